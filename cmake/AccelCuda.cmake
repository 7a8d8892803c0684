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
