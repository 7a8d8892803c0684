# The Julia binding (bindings/julia/, issue 21), included from the tests
# block of the top-level CMakeLists.txt.
#
# Julia is not packaged for Debian 12, so the package's code cannot run
# where accel is built; what can be checked here is:
#   bindings.julia.capi           every ccall of Accel.jl against accel.h
#                                 (clang's AST), the mirrored structs'
#                                 layouts against this build's C compiler,
#                                 the constants against the header (both
#                                 builds: gcc and clang)
#   bindings.julia.texts          every text program of test/runtests.jl
#                                 and examples/demo.jl compiled by `accel
#                                 check` (the refused ones refused as the
#                                 Julia code expects)
#   bindings.julia.test_calls     (tests/bindings/julia/test_calls.c) the
#                                 package's C call sequences, made from C
#   bindings.julia.capi_selftest  the checker catches deliberate mistakes
#                                 in the package and in the header (its
#                                 logic does not depend on the sanitizers:
#                                 plain build only)
#   bindings.julia.runtests       test/runtests.jl, when `julia` is on PATH;
#                                 otherwise one line saying it did not run,
#                                 and ctest reports it as skipped (plain
#                                 build only: Julia cannot load an
#                                 ASan-instrumented libaccel)
# Every test here also has the label julia (ctest -L julia).
#
# make test and CI always register them (a missing tool stops the
# configure); -DACC_JULIA_CHECKS=OFF leaves them out, for a lent GPU
# machine that has neither clang nor Debian's python3 (tools/gpu-check.sh).
option(ACC_JULIA_CHECKS "Register the Julia binding's checks (need /usr/bin/python3 and clang)" ON)
if(NOT ACC_JULIA_CHECKS)
  message(STATUS "Julia binding checks: not registered (ACC_JULIA_CHECKS=OFF)")
  return()
endif()
set(ACC_JULIA_DIR "${PROJECT_SOURCE_DIR}/bindings/julia")
find_program(ACC_JULIA_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(ACC_JULIA_CLANG NAMES clang clang-14)
if(NOT ACC_JULIA_PYTHON3 OR NOT ACC_JULIA_CLANG)
  message(FATAL_ERROR "the Julia binding's checks need /usr/bin/python3 and clang "
                      "(tools/bootstrap.sh installs both)")
endif()

add_test(NAME bindings.julia.capi
  COMMAND "${ACC_JULIA_PYTHON3}" "${ACC_JULIA_DIR}/tools/check_capi.py"
          --header "${PROJECT_SOURCE_DIR}/abi/include/accel.h"
          --package "${ACC_JULIA_DIR}/Accel"
          --cc "${CMAKE_C_COMPILER}" --clang "${ACC_JULIA_CLANG}")
acc_test_properties(bindings.julia.capi LABELS bindings)

add_test(NAME bindings.julia.texts
  COMMAND "${ACC_JULIA_PYTHON3}" "${ACC_JULIA_DIR}/tools/check_texts.py"
          --accel "$<TARGET_FILE:accel_cli>"
          --tests "${ACC_JULIA_DIR}/Accel/test/runtests.jl"
          --tests "${ACC_JULIA_DIR}/examples/demo.jl")
acc_test_properties(bindings.julia.texts LABELS bindings)

if(NOT ACC_SANITIZE)
  add_test(NAME bindings.julia.capi_selftest
    COMMAND "${ACC_JULIA_PYTHON3}" "${ACC_JULIA_DIR}/tools/test_check_capi.py"
            --header "${PROJECT_SOURCE_DIR}/abi/include/accel.h"
            --package "${ACC_JULIA_DIR}/Accel"
            --cc "${CMAKE_C_COMPILER}" --clang "${ACC_JULIA_CLANG}")
  acc_test_properties(bindings.julia.capi_selftest LABELS bindings)

  add_test(NAME bindings.julia.runtests
    COMMAND "${ACC_JULIA_DIR}/tools/run_julia_tests.sh"
            "$<TARGET_FILE:accel>" "${PROJECT_BINARY_DIR}/bindings-julia")
  acc_test_properties(bindings.julia.runtests LABELS bindings
    SKIP_RETURN_CODE 77)
endif()
set_property(TEST bindings.julia.capi bindings.julia.texts bindings.julia.test_calls
             APPEND PROPERTY LABELS julia)
if(NOT ACC_SANITIZE)
  set_property(TEST bindings.julia.capi_selftest bindings.julia.runtests
               APPEND PROPERTY LABELS julia)
endif()
