# Type-exhaustive differential testing (tests/fuzz/diff/, docs/TESTING.md),
# included from the top-level CMakeLists.txt after the tests.
#
#   accel_diff_fuzz   the generator, the runner and the comparison rules
#                     (every tests/fuzz/diff/*.c but the test_*.c files and
#                     the command line); it reaches internals (the IR
#                     printer, the CUDA code generator, NVRTC), so it links
#                     the static library
#   fuzz_diff         the command line: `make fuzz-diff` runs random seeds
#                     for $(FUZZ_SECONDS); --repro SEED reproduces one
#   fuzz.diff.*       the ctest tests (cmake/AccelTests.cmake registers every
#                     tests/fuzz/diff/test_*.c; they get the library here):
#                     a fixed slice of seeds and the regression seeds, fewer
#                     in a sanitizer build (-DACC_DIFF_FUZZ_SEEDS=N overrides)
file(GLOB ACC_DIFF_SOURCES CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/tests/fuzz/diff/*.c")
list(FILTER ACC_DIFF_SOURCES EXCLUDE REGEX "/(test_[^/]*|fuzz_diff)\\.c$")
# About 60 s in the gcc build on this project's 2-core machine, less under
# the sanitizers (kernel compiles dominate).
if(DEFINED ACC_DIFF_FUZZ_SEEDS)
  set(_acc_diff_seeds ${ACC_DIFF_FUZZ_SEEDS})
elseif(ACC_SANITIZE)
  set(_acc_diff_seeds 16)
else()
  set(_acc_diff_seeds 60)
endif()

# The .npy writer of the accel tool, for the reproducer's files, with the
# tool's modules it uses where they exist (atomic output files, messages).
foreach(m npy outfile escape)
  if(EXISTS "${PROJECT_SOURCE_DIR}/tools/accel/${m}.c")
    list(APPEND ACC_DIFF_SOURCES "${PROJECT_SOURCE_DIR}/tools/accel/${m}.c")
  endif()
endforeach()
add_library(accel_diff_fuzz STATIC ${ACC_DIFF_SOURCES})
target_include_directories(accel_diff_fuzz PUBLIC
  "${PROJECT_SOURCE_DIR}/tests/fuzz/diff")
target_compile_definitions(accel_diff_fuzz PRIVATE ${ACC_POSIX_DEFS})
target_link_libraries(accel_diff_fuzz PUBLIC accel_internal m)

add_executable(fuzz_diff "${PROJECT_SOURCE_DIR}/tests/fuzz/diff/fuzz_diff.c")
target_compile_definitions(fuzz_diff PRIVATE ${ACC_POSIX_DEFS})
target_link_libraries(fuzz_diff PRIVATE accel_diff_fuzz)
set_target_properties(fuzz_diff PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fuzz/diff")

file(GLOB ACC_DIFF_TESTS CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/tests/fuzz/diff/test_*.c")
foreach(src IN LISTS ACC_DIFF_TESTS)
  get_filename_component(stem "${src}" NAME_WE)
  if(TARGET test_fuzz_diff_${stem})
    target_link_libraries(test_fuzz_diff_${stem} PRIVATE accel_diff_fuzz)
    set_property(TEST fuzz.diff.${stem} APPEND PROPERTY ENVIRONMENT
      "ACC_DIFF_FUZZ_SEEDS=${_acc_diff_seeds}")
  endif()
endforeach()
