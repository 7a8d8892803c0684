# AccelCuda.cmake — checks that need the CUDA toolkit's headers (not a
# device, not a driver): the loader's declarations are compiled against
# cuda.h and nvrtc.h when they exist.  tests/cuda/ tests link the internal
# objects (they reach the loader directly).
find_path(ACC_CUDA_INCLUDE_DIR cuda.h
          HINTS ENV CUDA_HOME ENV CUDA_PATH
          PATHS /usr/local/cuda
          PATH_SUFFIXES include)
if(ACC_CUDA_INCLUDE_DIR AND TARGET test_cuda_test_cuda_decls)
  message(STATUS "accel: CUDA headers in ${ACC_CUDA_INCLUDE_DIR}: the "
                 "loader's declarations are checked against them")
  target_include_directories(test_cuda_test_cuda_decls SYSTEM PRIVATE
                             "${ACC_CUDA_INCLUDE_DIR}")
  target_compile_definitions(test_cuda_test_cuda_decls PRIVATE
                             ACC_HAVE_CUDA_HEADERS)
elseif(TARGET test_cuda_test_cuda_decls)
  message(STATUS "accel: no CUDA headers: the loader's declarations are "
                 "not checked")
endif()

# The CUDA code generator's tests (tests/cuda/test_cuda_kernels*.c, no
# device, no driver: NVRTC when it is installed) share their fixture and
# checks, tests/cuda/kernels_support.c.
acc_test_helper(accel_kernels_test_support cuda/kernels_support.c
                "cuda/test_cuda_kernels*.c" accel_internal)

# The fake driver (tests/cuda/fake_driver*.c): built against cuda.h as a
# shared object named libcuda.so.1 in fake-cuda/, which the tests of the
# CUDA runtime load through ACC_CUDA_DRIVER (docs/CUDA.md).  Every
# tests/cuda/test_*fake*.c gets its path (ACC_FAKE_DRIVER) and links
# tests/cuda/fake_support.c, their shared fixture and helpers (not a test:
# its name does not start with test_).  Without the toolkit headers the
# fake is not built and those tests skip, saying so.
file(GLOB ACC_FAKE_CUDA_TEST_SOURCES CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/tests/cuda/test_*fake*.c")
set(ACC_FAKE_CUDA_TESTS "")
foreach(src IN LISTS ACC_FAKE_CUDA_TEST_SOURCES)
  get_filename_component(stem "${src}" NAME_WE)
  if(TARGET test_cuda_${stem})
    list(APPEND ACC_FAKE_CUDA_TESTS test_cuda_${stem})
  endif()
endforeach()
# The fake's files (fake_driver.c says which holds what).
set(ACC_FAKE_DRIVER_SOURCES
  "${PROJECT_SOURCE_DIR}/tests/cuda/fake_driver.c"
  "${PROJECT_SOURCE_DIR}/tests/cuda/fake_driver_device.c"
  "${PROJECT_SOURCE_DIR}/tests/cuda/fake_driver_memory.c"
  "${PROJECT_SOURCE_DIR}/tests/cuda/fake_driver_launch.c")
if(ACC_CUDA_INCLUDE_DIR AND ACC_FAKE_CUDA_TESTS)
  add_library(accel_fake_cuda SHARED ${ACC_FAKE_DRIVER_SOURCES})
  set_target_properties(accel_fake_cuda PROPERTIES
    PREFIX "lib" OUTPUT_NAME "cuda" SUFFIX ".so.1"
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fake-cuda")
  target_include_directories(accel_fake_cuda SYSTEM PRIVATE
                             "${ACC_CUDA_INCLUDE_DIR}")
  target_compile_definitions(accel_fake_cuda PRIVATE ${ACC_POSIX_DEFS})
  target_link_libraries(accel_fake_cuda PRIVATE Threads::Threads)
  set(ACC_FAKE_DRIVER_DEF "ACC_FAKE_DRIVER=\"$<TARGET_FILE:accel_fake_cuda>\"")
  add_library(accel_fake_support OBJECT
              "${PROJECT_SOURCE_DIR}/tests/cuda/fake_support.c")
  target_include_directories(accel_fake_support PRIVATE ${ACC_TEST_INCLUDES})
  target_compile_definitions(accel_fake_support PRIVATE ${ACC_POSIX_DEFS}
                             ${ACC_FAKE_DRIVER_DEF})
  target_link_libraries(accel_fake_support PRIVATE accel_internal
                        PkgConfig::CRITERION)
  foreach(target IN LISTS ACC_FAKE_CUDA_TESTS)
    add_dependencies(${target} accel_fake_cuda)
    target_compile_definitions(${target} PRIVATE ${ACC_FAKE_DRIVER_DEF})
    target_link_libraries(${target} PRIVATE accel_fake_support)
  endforeach()
endif()

# The emulated device (tests/cuda/emu/, docs/CUDA.md "The emulated
# device"): the fake driver again, built with FAKE_EMU so that it executes
# kernels, and a test NVRTC whose "PTX" is the CUDA source; both in
# emu-cuda/.  Kernels are built with the host C++ compiler after
# tests/cuda/emu/cuda_emu.h, cached by content in ACC_EMU_CACHE_DIR.  The
# language and fusion suites, the device suite and the emulator's own
# tests run on it (ctest label cuda-emu), on two device shapes
# (ACC_EMU_DEVICE small and large), with the interpreter as the
# reference; they are never skipped (no SKIP_RETURN_CODE).
find_program(ACC_EMU_CXX NAMES c++ g++ clang++)
# The modules are plain C++ objects in every build (not instrumented: the
# sanitizer build loads the same ones), named by a hash of what builds
# them, so one cache serves build/ and build-asan/ alike: `make test`
# compiles each kernel once, in its first (gcc) half.
set(ACC_EMU_CACHE_DIR "${PROJECT_SOURCE_DIR}/.cache/cuda-emu" CACHE PATH
    "The emulated device's module cache, shared by the builds of this tree")
if(ACC_CUDA_INCLUDE_DIR AND ACC_EMU_CXX AND TARGET accel_fake_cuda)
  set(ACC_EMU_DIR "${PROJECT_BINARY_DIR}/emu-cuda")
  set(ACC_EMU_DEFS
    "ACC_EMU_INCLUDE=\"${PROJECT_SOURCE_DIR}/tests/cuda/emu\""
    "ACC_EMU_CACHE=\"${ACC_EMU_CACHE_DIR}\"")
  add_library(accel_emu_cuda SHARED ${ACC_FAKE_DRIVER_SOURCES}
    "${PROJECT_SOURCE_DIR}/tests/cuda/emu/emu_build.c")
  set_target_properties(accel_emu_cuda PROPERTIES
    PREFIX "lib" OUTPUT_NAME "cuda" SUFFIX ".so.1"
    LIBRARY_OUTPUT_DIRECTORY "${ACC_EMU_DIR}")
  target_include_directories(accel_emu_cuda SYSTEM PRIVATE
                             "${ACC_CUDA_INCLUDE_DIR}")
  target_compile_definitions(accel_emu_cuda PRIVATE ${ACC_POSIX_DEFS}
                             FAKE_EMU ${ACC_EMU_DEFS})
  target_link_libraries(accel_emu_cuda PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
  add_library(accel_emu_nvrtc SHARED
    "${PROJECT_SOURCE_DIR}/tests/cuda/emu/emu_nvrtc.c"
    "${PROJECT_SOURCE_DIR}/tests/cuda/emu/emu_build.c")
  set_target_properties(accel_emu_nvrtc PROPERTIES
    PREFIX "lib" OUTPUT_NAME "nvrtc-emu" LIBRARY_OUTPUT_DIRECTORY "${ACC_EMU_DIR}")
  target_compile_definitions(accel_emu_nvrtc PRIVATE ${ACC_POSIX_DEFS}
                             ${ACC_EMU_DEFS})
  set(ACC_EMU_ENV
    "ACC_TEST_BACKEND=cuda"
    "ACC_CUDA_DRIVER=$<TARGET_FILE:accel_emu_cuda>"
    "ACC_NVRTC=$<TARGET_FILE:accel_emu_nvrtc>"
    "XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/test-kernel-cache-emu"
    # the cuBLAS/cuFFT plugins open libcuda.so.1 (this driver, already
    # loaded), libnvrtc.so.13 (a link to the test NVRTC), libcublas.so.13
    # and libcufft.so.12 (fakes over OpenBLAS and FFTW, cmake/
    # AccelForeign.cmake) by name: emu-cuda/ first, never a real
    # toolkit's, which cannot run on this driver
    "LD_LIBRARY_PATH=${ACC_EMU_DIR}")

  # A test executable again on the emulated device, once per shape.
  function(acc_emu_test name target dir)
    set(shapes small large)
    foreach(shape IN LISTS shapes)
      add_test(NAME ${name}.emu-${shape} COMMAND ${target}
               WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/${dir}")
      acc_test_properties(${name}.emu-${shape} LABELS cuda-emu)
      set_property(TEST ${name}.emu-${shape} APPEND PROPERTY ENVIRONMENT
                   ${ACC_EMU_ENV} "ACC_EMU_DEVICE=${shape}")
    endforeach()
    add_dependencies(${target} accel_emu_cuda accel_emu_nvrtc)
  endfunction()

  foreach(src IN LISTS ACC_TEST_SOURCES)
    file(RELATIVE_PATH rel "${ACC_TESTS_DIR}" "${src}")
    get_filename_component(dir "${rel}" DIRECTORY)
    get_filename_component(stem "${rel}" NAME_WE)
    string(REPLACE "/" "." test_name "${dir}.${stem}")
    string(REPLACE "." "_" target "test.${test_name}")
    # (gpu.test_cuda_plugins_device: cmake/AccelForeign.cmake, with the
    # fake cuBLAS and cuFFT)
    if(dir STREQUAL "lang" OR test_name STREQUAL "gpu.test_cuda_device" OR
       test_name STREQUAL "e2e.test_fusion")
      acc_emu_test(${test_name} ${target} ${dir})
    endif()
  endforeach()

  # Allocation-failure injection on the CUDA backend (its test
  # alloc_fail::cuda_emulated runs only here), on one shape: the others
  # are the host backends', in unit.test_alloc_fail.
  if(TARGET test_unit_test_alloc_fail)
    add_test(NAME unit.test_alloc_fail.emu COMMAND test_unit_test_alloc_fail
             WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/unit")
    acc_test_properties(unit.test_alloc_fail.emu LABELS cuda-emu)
    set_property(TEST unit.test_alloc_fail.emu APPEND PROPERTY LABELS unit)
    set_property(TEST unit.test_alloc_fail.emu APPEND PROPERTY ENVIRONMENT
                 ${ACC_EMU_ENV} "ACC_EMU_DEVICE=small")
    add_dependencies(test_unit_test_alloc_fail accel_emu_cuda accel_emu_nvrtc)
  endif()
endif()

# The emulator's own tests (tests/cuda/emu/test_emu_paths.c: every launch
# path taken, on both shapes; test_emu_device.c: the device model through
# the driver API) set their environment themselves from these.
foreach(emu_test emu_paths emu_device)
  if(TARGET accel_emu_cuda AND TARGET test_cuda_emu_test_${emu_test})
    target_compile_definitions(test_cuda_emu_test_${emu_test} PRIVATE
      "ACC_EMU_DRIVER=\"$<TARGET_FILE:accel_emu_cuda>\""
      "ACC_EMU_NVRTC=\"$<TARGET_FILE:accel_emu_nvrtc>\"")
    add_dependencies(test_cuda_emu_test_${emu_test} accel_emu_cuda
                     accel_emu_nvrtc)
    set_property(TEST cuda.emu.test_${emu_test} APPEND PROPERTY LABELS cuda-emu)
    set_property(TEST cuda.emu.test_${emu_test} APPEND PROPERTY ENVIRONMENT
      "XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/test-kernel-cache-emu")
  endif()
endforeach()

# On a GPU (make gpu-check runs ctest -j<cores>): the device suite fills
# the device's memory on purpose (out_of_device_memory), which would fail
# whatever runs beside it; it runs alone.
if(TEST gpu.test_cuda_device)
  set_property(TEST gpu.test_cuda_device PROPERTY RUN_SERIAL TRUE)
endif()
