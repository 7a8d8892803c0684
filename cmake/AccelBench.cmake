# AccelBench.cmake — the benchmark program (make bench).  The baselines are
# compiled with ACC_BENCH_BASELINE_FLAGS, which should equal the flags the
# CPU backend compiles kernels with, so the comparison is like for like:
# vectorisation without -ffast-math (libmvec's vector exp/log are declared
# in bench/baselines.c; -fno-math-errno and -fno-trapping-math let gcc use
# them and if-convert the loops while keeping IEEE results), for this
# machine's instruction set (-march=native, as the kernels are built
# unless ACC_CPU_NATIVE=0).
include(CheckCCompilerFlag)
check_c_compiler_flag(-march=native ACC_HAVE_MARCH_NATIVE)
set(_acc_bench_flags -O3 -fno-math-errno -fno-trapping-math)
if(ACC_HAVE_MARCH_NATIVE)
  list(APPEND _acc_bench_flags -march=native)
endif()
set(ACC_BENCH_BASELINE_FLAGS ${_acc_bench_flags}
    CACHE STRING "Compiler flags of the hand-written baselines")
add_executable(accel_bench bench/accel_bench.c bench/baselines.c
               bench/bench_common.c bench/kernel_bench.c
               bench/permute_bench.c bench/vendor_bench.c bench/bandwidth.c
               bench/workloads.c
               bench/loop_bench.c bench/loop_baselines.c)
target_include_directories(accel_bench PRIVATE "${PROJECT_SOURCE_DIR}")
set_source_files_properties(bench/baselines.c bench/bandwidth.c PROPERTIES
                            COMPILE_OPTIONS "${ACC_BENCH_BASELINE_FLAGS}")
# the text programs are read from the source tree (tests/programs/ is
# their single copy; bench/programs.acc the bench's own)
set_source_files_properties(bench/bench_common.c PROPERTIES
  COMPILE_DEFINITIONS "ACC_BENCH_SOURCE_DIR=\"${PROJECT_SOURCE_DIR}\"")
# issue 22's baselines: the same flags, with 512-bit vectors preferred
check_c_compiler_flag(-mprefer-vector-width=512 ACC_HAVE_PREFER_512)
set(_acc_loop_flags ${ACC_BENCH_BASELINE_FLAGS})
if(ACC_HAVE_PREFER_512)
  list(APPEND _acc_loop_flags -mprefer-vector-width=512)
endif()
set_source_files_properties(bench/loop_baselines.c PROPERTIES
                            COMPILE_OPTIONS "${_acc_loop_flags}")
find_library(ACC_LIBMVEC mvec)
target_link_libraries(accel_bench PRIVATE accel Threads::Threads
                      ${CMAKE_DL_LIBS} m)
if(ACC_LIBMVEC)
  target_link_libraries(accel_bench PRIVATE ${ACC_LIBMVEC})
endif()
set_target_properties(accel_bench PROPERTIES
                      RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")

# bench/fftw_layout.c: the fftw plugin against FFTW called directly, split
# against interleaved layout; run by hand (bench/README.md), not by make
# bench.  Built where the fftw plugin is built with FFTW's threads.
if(TARGET accel_plugin_fftw AND FFTW3_THREADS_LIB AND FFTW3F_THREADS_LIB)
  add_executable(fftw_layout bench/fftw_layout.c bench/bench_common.c)
  target_include_directories(fftw_layout PRIVATE "${PROJECT_SOURCE_DIR}")
  target_link_libraries(fftw_layout PRIVATE accel PkgConfig::FFTW3
                        PkgConfig::FFTW3F ${FFTW3_THREADS_LIB}
                        ${FFTW3F_THREADS_LIB} m)
  set_target_properties(fftw_layout PROPERTIES
                        RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
endif()

# ctest bench.smoke: the bandwidth line, the memory-bound rows' fractions
# and bench/python/peers.py (numpy, numba) on tiny sizes, in seconds
# (bench/python/smoke_test.py; nothing measures speed).
if(EXISTS /usr/bin/python3)
  add_test(NAME bench.smoke
           COMMAND /usr/bin/python3
                   "${PROJECT_SOURCE_DIR}/bench/python/smoke_test.py"
                   "$<TARGET_FILE:accel_bench>"
                   "${PROJECT_BINARY_DIR}/bench-smoke")
  acc_test_properties(bench.smoke LABELS bench)
endif()

# make bench-gpu: the CUDA backend against cuBLAS and hand-written CUDA
# (bench/gpu_bench.c).  It links the library's objects statically to reuse
# the run-time loader of the driver and NVRTC; it builds everywhere and,
# without a device, says so and measures nothing.
add_executable(accel_gpu_bench bench/gpu_bench.c bench/bench_common.c)
target_include_directories(accel_gpu_bench PRIVATE "${PROJECT_SOURCE_DIR}")
target_compile_definitions(accel_gpu_bench PRIVATE
  ACC_BENCH_GPU_BASELINES="${PROJECT_SOURCE_DIR}/bench/gpu_baselines.cu")
target_link_libraries(accel_gpu_bench PRIVATE accel_internal m)
set_target_properties(accel_gpu_bench PROPERTIES
                      OUTPUT_NAME gpu_bench
                      RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
if(TARGET test_cuda_test_gpu_bench_baselines)
  target_compile_definitions(test_cuda_test_gpu_bench_baselines PRIVATE
    ACC_TEST_GPU_BASELINES="${PROJECT_SOURCE_DIR}/bench/gpu_baselines.cu")
endif()
