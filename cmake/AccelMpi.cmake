# The distributed collectives (docs/DISTRIBUTED.md), included from the
# top-level CMakeLists.txt after cmake/AccelForeign.cmake (which builds the
# mpi plugin when MPI is found): the tests (ctest label mpi), each started
# by mpirun with a time limit, and the examples under examples/mpi/.
#
# tests/mpi/mpi_driver.c is one program run on every rank (not a Criterion
# test: Criterion forks every test, and MPI ranks are processes).  As root,
# Open MPI's mpirun wants OMPI_ALLOW_RUN_AS_ROOT and its confirmation; more
# ranks than cores need --oversubscribe.

if(NOT MPI_C_FOUND OR NOT MPIEXEC_EXECUTABLE)
  if(ACC_BUILD_TESTS)
    message(STATUS "accel mpi tests: NOT registered (MPI or mpirun not "
                   "found; install libopenmpi-dev openmpi-bin)")
  endif()
  return()
endif()

set(ACC_MPI_ENV
  "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  # a job whose processes outlive a failed test must not hang ctest
  "ACC_MPI_TIMEOUT=20")
set(ACC_MPI_LEAK_ENV "")
if(ACC_SANITIZE)
  # Open MPI keeps what it allocates until the process ends, in MCA
  # components it unloads at MPI_Finalize: a leak report can name them
  # only through the full stack (the slow unwinder reaching libmpi's or
  # libopen-pal's frames), which makes a run ten times slower.  So the
  # tests under mpirun run without leak detection, except those given
  # LEAKS, which use the full stacks and tests/mpi/lsan.supp (the MPI
  # libraries only: accel's own leaks are reported).
  list(APPEND ACC_MPI_ENV "ASAN_OPTIONS=detect_leaks=0"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  set(ACC_MPI_LEAK_ENV "ASAN_OPTIONS=detect_leaks=1"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/mpi/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0:malloc_context_size=64")
endif()

# acc_mpi_test(NAME NP|alone TIMEOUT_S [LEAKS] COMMAND... [ENV VAR=VALUE...])
function(acc_mpi_test name np timeout)
  cmake_parse_arguments(T "LEAKS" "" "COMMAND;ENV" ${ARGN})
  if(T_LEAKS)
    list(APPEND T_ENV ${ACC_MPI_LEAK_ENV})
  endif()
  if(np STREQUAL "alone")
    set(launcher "")
  else()
    set(launcher ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np})
    if(np GREATER 2)
      list(APPEND launcher --oversubscribe)
    endif()
  endif()
  add_test(NAME ${name} COMMAND ${launcher} ${T_COMMAND}
           WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/mpi")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS mpi
    ENVIRONMENT "${ACC_MPI_ENV};${T_ENV}")
  if(ACC_TEST_FAIL_REGEX)
    set_tests_properties(${name} PROPERTIES
      FAIL_REGULAR_EXPRESSION "${ACC_TEST_FAIL_REGEX}")
  endif()
endfunction()

if(ACC_BUILD_TESTS)
  add_executable(mpi_driver "${PROJECT_SOURCE_DIR}/tests/mpi/mpi_driver.c")
  target_link_libraries(mpi_driver PRIVATE accel m ${CMAKE_DL_LIBS})
  set_target_properties(mpi_driver PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/mpi")
  add_dependencies(mpi_driver accel_plugin_mpi)
  set(drv "${PROJECT_BINARY_DIR}/tests/mpi/mpi_driver")

  # every collective: alone (the fallbacks), on 2 and 4 ranks, and on 3
  # with every message split into one-element pieces and ACC_MPI_CHECK on
  acc_mpi_test(mpi.collectives.alone alone 60 LEAKS COMMAND ${drv} collectives)
  acc_mpi_test(mpi.collectives.np2 2 60 LEAKS COMMAND ${drv} collectives)
  acc_mpi_test(mpi.collectives.np4 4 60 COMMAND ${drv} collectives)
  acc_mpi_test(mpi.collectives.np2_cpu 2 120 COMMAND ${drv} collectives cpu)
  acc_mpi_test(mpi.collectives.np3_split_checked 3 60
    COMMAND ${drv} collectives ENV ACC_MPI_CHUNK=1 ACC_MPI_CHECK=1)
  # ranks at different collectives: the same error everywhere, no hang
  acc_mpi_test(mpi.mismatch.np2 2 60 COMMAND ${drv} mismatch
    ENV ACC_MPI_CHECK=1)
  acc_mpi_test(mpi.mismatch.np4 4 60 COMMAND ${drv} mismatch
    ENV ACC_MPI_CHECK=1)
  # a rank that fails before a collective: the others stop after 2 s
  acc_mpi_test(mpi.failure.np2 2 60 COMMAND ${drv} failure
    ENV ACC_MPI_TIMEOUT=2)
  acc_mpi_test(mpi.failure.np4 4 60 COMMAND ${drv} failure
    ENV ACC_MPI_TIMEOUT=2)

  # The collectives on the cuda backend (device arrays staged through host
  # memory, or device pointers to MPI), on the driver ACC_MPI_CUDA_DRIVER
  # names: by default the fake (tests/cuda/fake_driver.c), whose records
  # the driver checks; it computes no kernel, so only programs made of
  # collectives run on it.  Point ACC_MPI_CUDA_DRIVER at a driver that
  # computes to run them all.  Exit 77 (skipped): no CUDA context here.
  if(TARGET accel_fake_cuda)
    set(ACC_MPI_CUDA_DRIVER "$<TARGET_FILE:accel_fake_cuda>" CACHE STRING
        "the CUDA driver of the mpi.cuda tests")
    foreach(path staged direct)
      if(path STREQUAL "staged")
        set(aware 0)
      else()
        set(aware 1)
      endif()
      # staged with leak checks (its host buffers)
      if(path STREQUAL "staged")
        set(leaks LEAKS)
      else()
        set(leaks "")
      endif()
      acc_mpi_test(mpi.cuda.${path}.np2 2 60 ${leaks}
        COMMAND ${drv} collectives cuda
        ENV ACC_CUDA_DRIVER=${ACC_MPI_CUDA_DRIVER} ACC_MPI_CUDA_AWARE=${aware})
      set_tests_properties(mpi.cuda.${path}.np2 PROPERTIES
                           SKIP_RETURN_CODE 77)
    endforeach()
    # every message split (device copies of the split paths) and checked
    # (a rank's device error agreed on at once)
    foreach(path staged direct)
      if(path STREQUAL "staged")
        set(aware 0)
      else()
        set(aware 1)
      endif()
      acc_mpi_test(mpi.cuda.${path}.np3_split_checked 3 60
        COMMAND ${drv} collectives cuda
        ENV ACC_CUDA_DRIVER=${ACC_MPI_CUDA_DRIVER} ACC_MPI_CUDA_AWARE=${aware}
            ACC_MPI_CHUNK=1 ACC_MPI_CHECK=1)
      set_tests_properties(mpi.cuda.${path}.np3_split_checked PROPERTIES
                           SKIP_RETURN_CODE 77)
    endforeach()
    add_dependencies(mpi_driver accel_fake_cuda)
  endif()
endif()

# The examples (examples/mpi/): a C driver that passes its own
# communicator, and the text programs run by the accel tool on every rank
# with per-rank inputs, each compared with the one-process result.
add_executable(mpi_dot_driver "${PROJECT_SOURCE_DIR}/examples/mpi/dot_driver.c")
target_link_libraries(mpi_dot_driver PRIVATE accel MPI::MPI_C m)
set_target_properties(mpi_dot_driver PROPERTIES OUTPUT_NAME dot_driver
  RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/examples/mpi")
add_dependencies(mpi_dot_driver accel_plugin_mpi)

if(ACC_BUILD_TESTS)
  set(drv "${PROJECT_BINARY_DIR}/examples/mpi/dot_driver")
  acc_mpi_test(mpi.example.dot_driver.np2 2 60 COMMAND ${drv})
  acc_mpi_test(mpi.example.dot_driver.np4 4 60 COMMAND ${drv})
  find_program(ACC_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(ACC_SYSTEM_PYTHON AND TARGET accel_cli)
    foreach(np 2 4)
      acc_mpi_test(mpi.examples.np${np} alone 120
        COMMAND ${ACC_SYSTEM_PYTHON}
                "${PROJECT_SOURCE_DIR}/examples/mpi/run_examples.py"
                $<TARGET_FILE:accel_cli> ${np} ${MPIEXEC_EXECUTABLE})
    endforeach()
    # text programs of collectives alone through `accel run --backend
    # cuda`, staged and direct (tests/mpi/cuda_cli.py), on the driver of
    # the mpi.cuda tests above
    if(ACC_MPI_CUDA_DRIVER)
      foreach(aware 0 1)
        acc_mpi_test(mpi.cuda.cli_aware${aware}.np2 alone 120
          COMMAND ${ACC_SYSTEM_PYTHON}
                  "${PROJECT_SOURCE_DIR}/tests/mpi/cuda_cli.py"
                  $<TARGET_FILE:accel_cli> 2 ${MPIEXEC_EXECUTABLE}
          ENV ACC_CUDA_DRIVER=${ACC_MPI_CUDA_DRIVER}
              ACC_MPI_CUDA_AWARE=${aware})
        set_tests_properties(mpi.cuda.cli_aware${aware}.np2 PROPERTIES
                             SKIP_RETURN_CODE 77)
      endforeach()
    endif()
  endif()
endif()

# make bench-mpi (docs/DISTRIBUTED.md, "Scaling"): bench/mpi_bench.c.
add_executable(mpi_bench "${PROJECT_SOURCE_DIR}/bench/mpi_bench.c")
target_link_libraries(mpi_bench PRIVATE accel MPI::MPI_C)
set_target_properties(mpi_bench PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
add_dependencies(mpi_bench accel_plugin_mpi)
