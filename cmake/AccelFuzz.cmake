# libFuzzer targets (clang only), included from the top-level CMakeLists.txt.
#
#   ACC_FUZZ=ON   builds tests/fuzz/fuzz_parse.c (LLVMFuzzerTestOneInput over
#                 acc_parse) and adds the ctest test fuzz.parse, a fixed run
#                 of ACC_FUZZ_RUNS inputs seeded with tests/fuzz/corpus/ (the
#                 LANGUAGE.md programs).  It is ON by default in a sanitizer
#                 build made with clang, OFF otherwise.
#
# The library objects get -fsanitize=fuzzer-no-link so that libFuzzer sees
# the coverage of the parser and the elaborator.  New inputs the fuzzer
# finds go to fuzz-corpus/ in the build tree, never to the seed corpus.
# A longer run, by hand (docs/LANGUAGE.md, "Fuzzing"):
#   build-asan/tests/fuzz/fuzz_parse -max_total_time=3600 -max_len=4096 \
#       build-asan/fuzz-corpus tests/fuzz/corpus

set(_acc_fuzz_default OFF)
if(ACC_SANITIZE AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(_acc_fuzz_default ON)
endif()
option(ACC_FUZZ "Build the libFuzzer targets (clang only)" ${_acc_fuzz_default})
set(ACC_FUZZ_RUNS 20000 CACHE STRING "Inputs the fuzz.parse ctest test tries")

if(ACC_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ACC_FUZZ=ON needs clang (libFuzzer); this build "
                        "uses ${CMAKE_C_COMPILER_ID}")
  endif()
  target_compile_options(accel_objects PRIVATE -fsanitize=fuzzer-no-link)
  add_executable(fuzz_parse "${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_parse.c")
  target_include_directories(fuzz_parse PRIVATE
    "${PROJECT_SOURCE_DIR}/abi/include")
  target_compile_options(fuzz_parse PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_parse PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_parse PRIVATE accel_internal)
  set_target_properties(fuzz_parse PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fuzz")
  if(ACC_BUILD_TESTS)
    file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/fuzz-corpus")
    add_test(NAME fuzz.parse
      COMMAND fuzz_parse -runs=${ACC_FUZZ_RUNS} -max_len=4096 -seed=1
              "${PROJECT_BINARY_DIR}/fuzz-corpus"
              "${PROJECT_SOURCE_DIR}/tests/fuzz/corpus")
    acc_test_properties(fuzz.parse LABELS fuzz)
  endif()
endif()
