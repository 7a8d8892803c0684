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

# The fake driver (tests/cuda/fake_driver.c): built against cuda.h as a
# shared object named libcuda.so.1 in fake-cuda/, which the tests of the
# CUDA runtime load through ACC_CUDA_DRIVER (docs/CUDA.md).  Without the
# toolkit headers it is not built and those tests skip, saying so.
if(ACC_CUDA_INCLUDE_DIR AND TARGET test_cuda_test_cuda_runtime_fake)
  add_library(accel_fake_cuda SHARED "${PROJECT_SOURCE_DIR}/tests/cuda/fake_driver.c")
  set_target_properties(accel_fake_cuda PROPERTIES
    PREFIX "lib" OUTPUT_NAME "cuda" SUFFIX ".so.1"
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fake-cuda")
  target_include_directories(accel_fake_cuda SYSTEM PRIVATE
                             "${ACC_CUDA_INCLUDE_DIR}")
  target_compile_definitions(accel_fake_cuda PRIVATE ${ACC_POSIX_DEFS})
  target_link_libraries(accel_fake_cuda PRIVATE Threads::Threads)
  add_dependencies(test_cuda_test_cuda_runtime_fake accel_fake_cuda)
  target_compile_definitions(test_cuda_test_cuda_runtime_fake PRIVATE
    "ACC_FAKE_DRIVER=\"$<TARGET_FILE:accel_fake_cuda>\"")
endif()
