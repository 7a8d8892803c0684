# Foreign functions and plugins (DESIGN.md §8), included from the top-level
# CMakeLists.txt: the built-in plugins (plugins/*, each a MODULE named
# accel_NAME.so in build/plugins/ and installed in LIBDIR/accel/plugins/),
# the example plugin (examples/plugin/), and the helpers and settings of
# the tests under tests/foreign/ (which AccelTests.cmake registers).
#
# A plugin is built only when what it links is found; the configure output
# says which plugins are built and why not.

set(ACC_PLUGIN_BUILD_DIR "${PROJECT_BINARY_DIR}/plugins")
set(ACC_PLUGIN_INSTALL_SUBDIR "${CMAKE_INSTALL_LIBDIR}/accel/plugins")
# The library finds LIBDIR/accel/plugins next to its own file; the
# configured folder is only the answer when that fails.  Code running from
# this build tree also searches ACC_PLUGIN_BUILD_DIR (foreign/plugin.c).
target_compile_definitions(accel_objects PRIVATE
  ACC_PLUGIN_INSTALL_DIR="${CMAKE_INSTALL_FULL_LIBDIR}/accel/plugins"
  ACC_BUILD_TREE="${PROJECT_BINARY_DIR}")

# acc_add_plugin(NAME SOURCES...): plugins/NAME as accel_NAME.so.
function(acc_add_plugin name)
  set(target accel_plugin_${name})
  add_library(${target} MODULE ${ARGN})
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME accel_${name}
    LIBRARY_OUTPUT_DIRECTORY "${ACC_PLUGIN_BUILD_DIR}")
  target_include_directories(${target} PRIVATE
    "${PROJECT_SOURCE_DIR}/abi/include")
  target_compile_definitions(${target} PRIVATE ${ACC_POSIX_DEFS})
  target_link_libraries(${target} PRIVATE accel)
  install(TARGETS ${target} LIBRARY DESTINATION ${ACC_PLUGIN_INSTALL_SUBDIR})
  set(ACC_PLUGIN_TARGETS ${ACC_PLUGIN_TARGETS} ${target} PARENT_SCOPE)
endfunction()

set(ACC_PLUGINS_BUILT "")
set(ACC_PLUGIN_TARGETS "")
pkg_check_modules(OPENBLAS IMPORTED_TARGET openblas)
if(OPENBLAS_FOUND)
  acc_add_plugin(cblas "${PROJECT_SOURCE_DIR}/plugins/cblas/cblas_plugin.c")
  target_link_libraries(accel_plugin_cblas PRIVATE PkgConfig::OPENBLAS)
  list(APPEND ACC_PLUGINS_BUILT cblas)
  message(STATUS "accel plugin cblas: built (OpenBLAS ${OPENBLAS_VERSION})")
else()
  message(STATUS "accel plugin cblas: NOT built (OpenBLAS not found; "
                 "install libopenblas-dev)")
endif()

pkg_check_modules(FFTW3 IMPORTED_TARGET fftw3)
pkg_check_modules(FFTW3F IMPORTED_TARGET fftw3f)
if(FFTW3_FOUND AND FFTW3F_FOUND)
  acc_add_plugin(fftw "${PROJECT_SOURCE_DIR}/plugins/fftw/fftw_plugin.c")
  target_link_libraries(accel_plugin_fftw PRIVATE
    PkgConfig::FFTW3 PkgConfig::FFTW3F Threads::Threads)
  # FFTW's threads (plugins/fftw/fftw_plugin.c): used when both are there.
  find_library(FFTW3_THREADS_LIB fftw3_threads HINTS ${FFTW3_LIBRARY_DIRS})
  find_library(FFTW3F_THREADS_LIB fftw3f_threads HINTS ${FFTW3F_LIBRARY_DIRS})
  if(FFTW3_THREADS_LIB AND FFTW3F_THREADS_LIB)
    target_link_libraries(accel_plugin_fftw PRIVATE
      ${FFTW3_THREADS_LIB} ${FFTW3F_THREADS_LIB})
    target_compile_definitions(accel_plugin_fftw PRIVATE ACC_FFTW_THREADS=1)
    # FFTW's worker threads are detached and still run FFTW's code for a
    # moment after fftw_cleanup_threads returns: the plugin (and so FFTW)
    # must stay mapped after dlclose, or they run into unmapped pages.
    target_link_options(accel_plugin_fftw PRIVATE "LINKER:-z,nodelete")
  endif()
  list(APPEND ACC_PLUGINS_BUILT fftw)
  message(STATUS "accel plugin fftw: built (FFTW ${FFTW3_VERSION})")
else()
  message(STATUS "accel plugin fftw: NOT built (fftw3 and fftw3f not found; "
                 "install libfftw3-dev)")
endif()

# The mpi plugin (docs/DISTRIBUTED.md) links MPI; the library never does.
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND)
  file(GLOB _mpi_sources "${PROJECT_SOURCE_DIR}/plugins/mpi/*.c")
  acc_add_plugin(mpi ${_mpi_sources})
  target_link_libraries(accel_plugin_mpi PRIVATE MPI::MPI_C Threads::Threads
    ${CMAKE_DL_LIBS})
  list(APPEND ACC_PLUGINS_BUILT mpi)
  message(STATUS "accel plugin mpi: built (MPI ${MPI_C_VERSION})")
else()
  message(STATUS "accel plugin mpi: NOT built (MPI not found; install "
                 "libopenmpi-dev openmpi-bin)")
endif()

# The CUDA plugins need nothing CUDA to build: they open the driver, the
# vendor library and NVRTC when loaded, and without them register
# implementations that say why they are unavailable (docs/PLUGINS.md).
# plugins/cuda_common/ is compiled into both, with hidden visibility so
# that each exports only its entry.
set(ACC_PCUDA_DIR "${PROJECT_SOURCE_DIR}/plugins/cuda_common")
add_library(accel_pcuda OBJECT "${ACC_PCUDA_DIR}/pcuda_lib.c"
  "${ACC_PCUDA_DIR}/pcuda_ctx.c" "${ACC_PCUDA_DIR}/pcuda_plugin.c")
set_target_properties(accel_pcuda PROPERTIES POSITION_INDEPENDENT_CODE ON
  C_VISIBILITY_PRESET hidden)
target_include_directories(accel_pcuda PRIVATE
  "${PROJECT_SOURCE_DIR}/abi/include" "${ACC_PCUDA_DIR}")
target_compile_definitions(accel_pcuda PRIVATE ${ACC_POSIX_DEFS})

# cufft's device code (plugins/cufft/cufft_callbacks.cu), embedded as
# AccelSkeletons.cmake embeds the skeletons.
set(ACC_CUFFT_GENERATED "${PROJECT_BINARY_DIR}/generated/plugins/cufft")
set(ACC_CUFFT_DEVICE_SOURCE
    "${PROJECT_SOURCE_DIR}/plugins/cufft/cufft_callbacks.cu")
add_custom_command(
  OUTPUT "${ACC_CUFFT_GENERATED}/cufft_sources.h"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${ACC_CUFFT_GENERATED}"
  COMMAND "${CMAKE_COMMAND}"
          "-DACC_SKELETON_FILES=${ACC_CUFFT_DEVICE_SOURCE}"
          "-DACC_SKELETON_ROOT=${PROJECT_SOURCE_DIR}/plugins/cufft"
          "-DACC_SKELETON_HEADER=${ACC_CUFFT_GENERATED}/cufft_sources.h"
          -P "${PROJECT_SOURCE_DIR}/cmake/AccelSkeletons.cmake"
  DEPENDS "${ACC_CUFFT_DEVICE_SOURCE}"
          "${PROJECT_SOURCE_DIR}/cmake/AccelSkeletons.cmake"
  COMMENT "Embedding the cufft plugin's device code"
  VERBATIM)
set(ACC_CUFFT_COMPILE_SOURCES
  "${PROJECT_SOURCE_DIR}/plugins/cufft/cufft_compile.c"
  "${ACC_CUFFT_GENERATED}/cufft_sources.h")

foreach(p cublas cufft)
  file(GLOB _sources "${PROJECT_SOURCE_DIR}/plugins/${p}/*.c")
  acc_add_plugin(${p} ${_sources} $<TARGET_OBJECTS:accel_pcuda>)
  set_target_properties(accel_plugin_${p} PROPERTIES
    C_VISIBILITY_PRESET hidden)
  target_include_directories(accel_plugin_${p} PRIVATE "${ACC_PCUDA_DIR}"
    "${PROJECT_SOURCE_DIR}/plugins/${p}" "${ACC_CUFFT_GENERATED}")
  target_link_libraries(accel_plugin_${p} PRIVATE Threads::Threads
                        ${CMAKE_DL_LIBS})
  list(APPEND ACC_PLUGINS_BUILT ${p})
  message(STATUS "accel plugin ${p}: built (opens the CUDA libraries when "
                 "loaded; nothing CUDA is needed to build it)")
endforeach()
target_sources(accel_plugin_cufft PRIVATE
  "${ACC_CUFFT_GENERATED}/cufft_sources.h")


# The example plugin of docs/PLUGINS.md.
if(ACC_BUILD_EXAMPLES)
  add_library(accel_example_plugin MODULE
    "${PROJECT_SOURCE_DIR}/examples/plugin/example_plugin.c")
  set_target_properties(accel_example_plugin PROPERTIES
    PREFIX "" OUTPUT_NAME accel_example
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/examples/plugin")
  target_include_directories(accel_example_plugin PRIVATE
    "${PROJECT_SOURCE_DIR}/abi/include")
  target_link_libraries(accel_example_plugin PRIVATE accel m)
  if(TARGET foreign_dot)
    add_dependencies(foreign_dot ${ACC_PLUGIN_TARGETS})
  endif()
endif()

if(NOT ACC_BUILD_TESTS)
  return()
endif()

# --- test helpers: a library of plain C functions, and a plugin built for
# another ABI version (ACC_ABI_VERSION + 1). --------------------------------
add_library(accel_testfns SHARED "${ACC_TESTS_DIR}/foreign/libtestfns.c")
set_target_properties(accel_testfns PROPERTIES
  OUTPUT_NAME testfns
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/foreign")
target_link_libraries(accel_testfns PRIVATE m)
add_library(accel_bad_abi_plugin MODULE
  "${ACC_TESTS_DIR}/foreign/bad_abi_plugin.c")
set_target_properties(accel_bad_abi_plugin PROPERTIES
  PREFIX "" OUTPUT_NAME accel_bad_abi
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/foreign")
target_include_directories(accel_bad_abi_plugin PRIVATE
  "${PROJECT_SOURCE_DIR}/abi/include")

set(ACC_FOREIGN_TEST_DEFS
  ACC_TEST_PLUGIN_DIR="${ACC_PLUGIN_BUILD_DIR}"
  ACC_TEST_FNS_LIB="$<TARGET_FILE:accel_testfns>"
  ACC_TEST_BAD_PLUGIN="$<TARGET_FILE:accel_bad_abi_plugin>"
  ACC_TEST_EXAMPLE_PLUGIN="${PROJECT_BINARY_DIR}/examples/plugin/accel_example.so")
foreach(p cblas fftw)
  if(p IN_LIST ACC_PLUGINS_BUILT)
    string(TOUPPER ${p} P)
    list(APPEND ACC_FOREIGN_TEST_DEFS ACC_TEST_HAVE_${P}=1)
  endif()
endforeach()

file(GLOB ACC_FOREIGN_TESTS CONFIGURE_DEPENDS
     "${ACC_TESTS_DIR}/foreign/test_*.c")
foreach(src IN LISTS ACC_FOREIGN_TESTS)
  get_filename_component(stem "${src}" NAME_WE)
  set(target test_foreign_${stem})
  if(NOT TARGET ${target})
    continue()
  endif()
  target_compile_definitions(${target} PRIVATE ${ACC_FOREIGN_TEST_DEFS})
  add_dependencies(${target} accel_testfns accel_bad_abi_plugin
                   ${ACC_PLUGIN_TARGETS})
  if(TARGET accel_example_plugin)
    add_dependencies(${target} accel_example_plugin)
  endif()
endforeach()

# --- the CUDA plugins' tests -------------------------------------------------
# test_cuda_plugins links the cufft plugin's compile step (and what it
# uses) to compile the device code with NVRTC, and runs a second time with
# the toolkit's stub libcuda.so first in the library path: a driver that
# loads but does not start.  test_cuda_plugin_decls compiles the plugins'
# declarations against the toolkit's headers when they are installed.
set(ACC_CUDA_PLUGIN_DIRS "${ACC_PCUDA_DIR}"
    "${PROJECT_SOURCE_DIR}/plugins/cublas"
    "${PROJECT_SOURCE_DIR}/plugins/cufft" "${ACC_CUFFT_GENERATED}")
set(ACC_CUDA_PLUGIN_HEADERS OFF)
if(ACC_CUDA_INCLUDE_DIR AND EXISTS "${ACC_CUDA_INCLUDE_DIR}/cublas_v2.h"
   AND EXISTS "${ACC_CUDA_INCLUDE_DIR}/cufftXt.h")
  set(ACC_CUDA_PLUGIN_HEADERS ON)
endif()
if(TARGET test_foreign_test_cuda_plugins)
  target_sources(test_foreign_test_cuda_plugins PRIVATE
    ${ACC_CUFFT_COMPILE_SOURCES} $<TARGET_OBJECTS:accel_pcuda>)
  target_include_directories(test_foreign_test_cuda_plugins PRIVATE
    ${ACC_CUDA_PLUGIN_DIRS})
  if(ACC_CUDA_PLUGIN_HEADERS)
    target_compile_definitions(test_foreign_test_cuda_plugins PRIVATE
      ACC_TEST_CUDA_INCLUDE="${ACC_CUDA_INCLUDE_DIR}")
  endif()
  find_path(ACC_CUDA_STUBS_DIR libcuda.so HINTS ENV CUDA_HOME ENV CUDA_PATH
            PATHS /usr/local/cuda PATH_SUFFIXES lib64/stubs NO_DEFAULT_PATH)
  if(ACC_CUDA_STUBS_DIR)
    add_test(NAME foreign.test_cuda_plugins.stub_driver
             COMMAND test_foreign_test_cuda_plugins
             WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/foreign")
    acc_test_properties(foreign.test_cuda_plugins.stub_driver LABELS foreign)
    set_property(TEST foreign.test_cuda_plugins.stub_driver APPEND PROPERTY
      ENVIRONMENT "LD_LIBRARY_PATH=${ACC_CUDA_STUBS_DIR}"
                  "ACC_TEST_CUDA_DRIVER_STUB=1")
  endif()
endif()
# ... and a third time on a fake driver and a fake cuBLAS over OpenBLAS
# (tests/foreign/fake_*.c), where the cublas plugin is available and its
# argument mapping is checked on host memory.
if(TARGET test_foreign_test_cuda_plugins AND OPENBLAS_FOUND)
  set(ACC_FAKE_CUDA_DIR "${PROJECT_BINARY_DIR}/tests/foreign/fake_cuda")
  add_library(accel_fake_cuda_plugins SHARED
    "${ACC_TESTS_DIR}/foreign/fake_cuda_driver.c")
  add_library(accel_fake_cublas SHARED
    "${ACC_TESTS_DIR}/foreign/fake_cublas.c")
  target_link_libraries(accel_fake_cublas PRIVATE PkgConfig::OPENBLAS)
  set_target_properties(accel_fake_cuda_plugins PROPERTIES OUTPUT_NAME cuda
    SUFFIX ".so.1" LIBRARY_OUTPUT_DIRECTORY "${ACC_FAKE_CUDA_DIR}")
  set_target_properties(accel_fake_cublas PROPERTIES OUTPUT_NAME cublas
    SUFFIX ".so.13" LIBRARY_OUTPUT_DIRECTORY "${ACC_FAKE_CUDA_DIR}")
  add_dependencies(test_foreign_test_cuda_plugins accel_fake_cuda_plugins
                   accel_fake_cublas)
  add_test(NAME foreign.test_cuda_plugins.fake_device
           COMMAND test_foreign_test_cuda_plugins
           WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/foreign")
  acc_test_properties(foreign.test_cuda_plugins.fake_device LABELS foreign)
  set_property(TEST foreign.test_cuda_plugins.fake_device APPEND PROPERTY
    ENVIRONMENT "LD_LIBRARY_PATH=${ACC_FAKE_CUDA_DIR}" "ACC_TEST_FAKE_CUDA=1")
endif()
if(TARGET test_foreign_test_cuda_plugin_decls)
  target_include_directories(test_foreign_test_cuda_plugin_decls PRIVATE
    ${ACC_CUDA_PLUGIN_DIRS})
  if(ACC_CUDA_PLUGIN_HEADERS)
    target_include_directories(test_foreign_test_cuda_plugin_decls SYSTEM
      PRIVATE "${ACC_CUDA_INCLUDE_DIR}")
    target_compile_definitions(test_foreign_test_cuda_plugin_decls PRIVATE
      ACC_HAVE_CUDA_HEADERS)
  endif()
endif()
# The device test: skipped (not passed) where no cuda context can be made.
if(TARGET test_gpu_test_cuda_plugins_device)
  target_compile_definitions(test_gpu_test_cuda_plugins_device PRIVATE
    ACC_TEST_PLUGIN_DIR="${ACC_PLUGIN_BUILD_DIR}")
  add_dependencies(test_gpu_test_cuda_plugins_device ${ACC_PLUGIN_TARGETS})
  if(TEST gpu.test_cuda_plugins_device) # registered with ACC_GPU_TESTS=ON
    set_tests_properties(gpu.test_cuda_plugins_device PROPERTIES
      SKIP_REGULAR_EXPRESSION "SKIPPED, nothing ran on a GPU")
  endif()
  # ... and on the emulated device (cmake/AccelCuda.cmake), where the
  # plugins find, in build/emu-cuda/, the emulating driver (libcuda.so.1),
  # the test NVRTC (libnvrtc.so.13, a link), a fake cuBLAS over OpenBLAS
  # and a fake cuFFT over FFTW (tests/foreign/fake_cu*.c).
  if(TARGET accel_emu_cuda AND OPENBLAS_FOUND AND FFTW3_FOUND AND
     FFTW3F_FOUND)
    add_library(accel_emu_cublas SHARED "${ACC_TESTS_DIR}/foreign/fake_cublas.c")
    target_link_libraries(accel_emu_cublas PRIVATE PkgConfig::OPENBLAS)
    add_library(accel_emu_cufft SHARED "${ACC_TESTS_DIR}/foreign/fake_cufft.c"
      "${ACC_TESTS_DIR}/cuda/emu/emu_build.c")
    target_include_directories(accel_emu_cufft PRIVATE "${ACC_TESTS_DIR}/cuda")
    target_compile_definitions(accel_emu_cufft PRIVATE ${ACC_POSIX_DEFS}
                               ${ACC_EMU_DEFS})
    target_link_libraries(accel_emu_cufft PRIVATE PkgConfig::FFTW3
      PkgConfig::FFTW3F ${CMAKE_DL_LIBS})
    set_target_properties(accel_emu_cublas PROPERTIES OUTPUT_NAME cublas
      SUFFIX ".so.13" LIBRARY_OUTPUT_DIRECTORY "${ACC_EMU_DIR}")
    set_target_properties(accel_emu_cufft PROPERTIES OUTPUT_NAME cufft
      SUFFIX ".so.12" LIBRARY_OUTPUT_DIRECTORY "${ACC_EMU_DIR}")
    add_custom_command(TARGET accel_emu_cufft POST_BUILD COMMAND
      ${CMAKE_COMMAND} -E create_symlink "$<TARGET_FILE_NAME:accel_emu_nvrtc>"
      "${ACC_EMU_DIR}/libnvrtc.so.13")
    add_dependencies(test_gpu_test_cuda_plugins_device accel_emu_cuda
      accel_emu_nvrtc accel_emu_cublas accel_emu_cufft)
    add_test(NAME gpu.test_cuda_plugins_device.emu-small
             COMMAND test_gpu_test_cuda_plugins_device
             WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/gpu")
    acc_test_properties(gpu.test_cuda_plugins_device.emu-small
                        LABELS cuda-emu)
    set_property(TEST gpu.test_cuda_plugins_device.emu-small APPEND PROPERTY
      ENVIRONMENT ${ACC_EMU_ENV} "ACC_EMU_DEVICE=small")
    # skipped is a failure here: the emulated device is always there
    set_property(TEST gpu.test_cuda_plugins_device.emu-small PROPERTY
      FAIL_REGULAR_EXPRESSION "SKIPPED, nothing ran")
  endif()
endif()
