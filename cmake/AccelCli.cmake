# The `accel` command-line tool (tools/accel/) and its tests (tests/cli/),
# included from the top-level CMakeLists.txt after the test rules.
#
# The tool is an ordinary client of libaccel: it links the shared library
# and sees only accel.h.  It is built as build/bin/accel and installed in
# bin/ with an RPATH to the installed library, so a prefix can be moved.

file(GLOB ACC_CLI_SOURCES CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/tools/accel/*.c")
list(SORT ACC_CLI_SOURCES)
add_executable(accel_cli ${ACC_CLI_SOURCES})
set_target_properties(accel_cli PROPERTIES
  OUTPUT_NAME accel
  RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin"
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
target_compile_definitions(accel_cli PRIVATE ${ACC_POSIX_DEFS})
target_link_libraries(accel_cli PRIVATE accel m)
install(TARGETS accel_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(NOT ACC_BUILD_TESTS)
  return()
endif()

# tests/unit/test_npy.c tests the .npy module of the tool directly, with
# the modules it uses (atomic output files, terminal-safe messages).
if(TARGET test_unit_test_npy)
  target_sources(test_unit_test_npy PRIVATE
    "${PROJECT_SOURCE_DIR}/tools/accel/npy.c"
    "${PROJECT_SOURCE_DIR}/tools/accel/outfile.c"
    "${PROJECT_SOURCE_DIR}/tools/accel/escape.c")
endif()

# The driver needs a python3 with numpy: Debian's (python3-numpy, installed
# by tools/bootstrap.sh) is preferred over whatever python3 is first in PATH.
find_program(ACC_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(ACC_PYTHON3 NAMES python3)
if(NOT ACC_PYTHON3)
  message(WARNING "python3 not found: the cli.* tests are not registered")
  return()
endif()

# One ctest test per script tests/cli/cli_GROUP.py (the harness is
# tests/cli/cli_support.py); a script exits 77 (skipped) when numpy is
# missing.
foreach(group basic npy errors programs outputs)
  add_test(NAME cli.${group}
    COMMAND "${ACC_PYTHON3}" "${PROJECT_SOURCE_DIR}/tests/cli/cli_${group}.py"
            "$<TARGET_FILE:accel_cli>"
    WORKING_DIRECTORY "${PROJECT_BINARY_DIR}")
  acc_test_properties(cli.${group} LABELS cli SKIP_RETURN_CODE 77)
endforeach()

# The Accelerate programs ported to the text language (examples/accelerate/,
# docs/ACCELERATE.md): each run by its check.py against a reference, on the
# interpreter and on the CPU backend (kernel cache inside the build folder).
file(GLOB ACC_ACCELERATE_EXAMPLES CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/examples/accelerate/*.acc")
list(SORT ACC_ACCELERATE_EXAMPLES)
foreach(src IN LISTS ACC_ACCELERATE_EXAMPLES)
  get_filename_component(name "${src}" NAME_WE)
  foreach(backend interp cpu)
    set(test examples.accelerate.${name}.${backend})
    add_test(NAME ${test}
      COMMAND "${ACC_PYTHON3}" "${PROJECT_SOURCE_DIR}/examples/accelerate/check.py"
              "$<TARGET_FILE:accel_cli>" ${backend} ${name}
      WORKING_DIRECTORY "${PROJECT_BINARY_DIR}")
    acc_test_properties(${test} LABELS examples SKIP_RETURN_CODE 77)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
      "XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/test-kernel-cache")
    if(backend STREQUAL "cpu")
      set_property(TEST ${test} APPEND PROPERTY LABELS cpu)
    endif()
  endforeach()
endforeach()
