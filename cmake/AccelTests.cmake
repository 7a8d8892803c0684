# Test rules, included from the top-level CMakeLists.txt.
#
# Every tests/**/test_*.c is one Criterion executable and one ctest test.
# The test is named after its folder under tests/ and its file stem, with
# dots: tests/unit/test_types.c -> unit.test_types,
#       tests/unit/ir/test_graph.c -> unit.ir.test_graph.
# Tests under tests/unit/, tests/cuda/ and tests/fuzz/diff/ link accel_internal (the static
# archive, so hidden internal functions are callable); all others link the shared libaccel.so.
# tests/support/*.c are helpers (public API only; emit_support.c and
# ir_support.c, for the tests that link accel_internal, are the
# exceptions) linked into every test.
# tests/cuda/test_*fake*.c also get the fake CUDA driver and its fixture,
# tests/cuda/fake_support.c (cmake/AccelCuda.cmake).
# A family of tests split over several files shares a helper beside them
# (acc_test_helper below): tests/lang/test_stdlib*.c link
# tests/lang/stdlib_support.c, tests/cuda/test_cuda_kernels*.c
# tests/cuda/kernels_support.c (cmake/AccelCuda.cmake).
#
# The device suite (label gpu: tests/gpu/ and the language and fusion
# suites again on the CUDA backend, *.cuda) needs a CUDA GPU.  Its
# executables are always built; its tests are registered only with
# -DACC_GPU_TESTS=ON (make test-gpu does that), and where no GPU can be
# used each executable exits with status 77 and one line saying why,
# which ctest reports as skipped.
option(ACC_GPU_TESTS "Register the device suite (ctest label gpu)" OFF)

set(ACC_TEST_TIMEOUT 300 CACHE STRING "Per-test ctest timeout in seconds")

pkg_check_modules(CRITERION REQUIRED IMPORTED_TARGET criterion)

set(ACC_TESTS_DIR "${PROJECT_SOURCE_DIR}/tests")
set(ACC_TEST_INCLUDES
  "${PROJECT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/abi/include"
  "${ACC_TESTS_DIR}/support")

# Environment for every test of a sanitizer build, so that running ctest by
# hand in build-asan/ behaves like `make test`.
#
# Criterion runs each test in a child process and ignores the child's exit
# status once the test has reported, so a leak found by LeakSanitizer when
# the child exits would not fail the test.  Every sanitizer report ends
# with a "SUMMARY: ...Sanitizer" line: ctest fails any test that prints one.
set(ACC_TEST_ENV "")
set(ACC_TEST_FAIL_REGEX "")
if(ACC_SANITIZE)
  set(ACC_TEST_ENV
    "ASAN_OPTIONS=detect_leaks=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  set(ACC_TEST_FAIL_REGEX "SUMMARY: [A-Za-z]*Sanitizer")
endif()

# Properties every test gets.
function(acc_test_properties name)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ACC_TEST_TIMEOUT} ${ARGN})
  if(ACC_TEST_ENV)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ACC_TEST_ENV}")
  endif()
  if(ACC_TEST_FAIL_REGEX)
    set_tests_properties(${name} PROPERTIES
      FAIL_REGULAR_EXPRESSION "${ACC_TEST_FAIL_REGEX}")
  endif()
endfunction()

# A test of the device suite: on the CUDA backend (support.c:
# ACC_TEST_BACKEND=cuda), skipped (status 77) where no GPU can be used.
function(acc_device_test name target dir label)
  add_test(NAME ${name} COMMAND ${target}
           WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/${dir}")
  acc_test_properties(${name} LABELS ${label})
  if(NOT label STREQUAL "gpu")
    set_property(TEST ${name} APPEND PROPERTY LABELS gpu)
  endif()
  set_property(TEST ${name} PROPERTY SKIP_RETURN_CODE 77)
  set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT
    "ACC_TEST_BACKEND=cuda"
    "XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/test-kernel-cache")
endfunction()

# Helpers shared by the tests; a static archive so a test pulls only what
# it uses.
file(GLOB ACC_TEST_SUPPORT_SOURCES CONFIGURE_DEPENDS
     "${ACC_TESTS_DIR}/support/*.c")
if(ACC_TEST_SUPPORT_SOURCES)
  add_library(accel_test_support STATIC ${ACC_TEST_SUPPORT_SOURCES})
  target_include_directories(accel_test_support PUBLIC ${ACC_TEST_INCLUDES})
  target_compile_definitions(accel_test_support PRIVATE ${ACC_POSIX_DEFS}
    "ACC_TEST_SHARED_CACHE=\"${PROJECT_BINARY_DIR}/test-kernel-cache\""
    "ACC_TEST_PROGRAMS_DIR=\"${ACC_TESTS_DIR}/programs\"")
  target_link_libraries(accel_test_support PUBLIC PkgConfig::CRITERION)
endif()

file(GLOB_RECURSE ACC_TEST_SOURCES CONFIGURE_DEPENDS
     "${ACC_TESTS_DIR}/test_*.c")
list(SORT ACC_TEST_SOURCES)
foreach(src IN LISTS ACC_TEST_SOURCES)
  file(RELATIVE_PATH rel "${ACC_TESTS_DIR}" "${src}")
  get_filename_component(dir "${rel}" DIRECTORY)
  get_filename_component(stem "${rel}" NAME_WE)
  if(dir STREQUAL "" OR dir MATCHES "^support(/|$)")
    continue()
  endif()
  string(REPLACE "/" "." test_name "${dir}.${stem}")
  string(REGEX REPLACE "/.*" "" label "${dir}")
  string(REPLACE "." "_" target "test.${test_name}")

  add_executable(${target} "${src}")
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${stem}
    RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/${dir}")
  target_include_directories(${target} PRIVATE ${ACC_TEST_INCLUDES})
  target_compile_definitions(${target} PRIVATE ${ACC_POSIX_DEFS})
  if(TARGET accel_test_support)
    target_link_libraries(${target} PRIVATE accel_test_support)
  endif()
  if(dir MATCHES "^(unit|cuda|fuzz/diff)(/|$)")
    target_link_libraries(${target} PRIVATE accel_internal)
  else()
    target_link_libraries(${target} PRIVATE accel)
  endif()
  target_link_libraries(${target} PRIVATE PkgConfig::CRITERION m)

  if(label STREQUAL "gpu")
    if(ACC_GPU_TESTS)
      acc_device_test(${test_name} ${target} ${dir} gpu)
    endif()
    continue()
  endif()

  # No arguments: Criterion prints failures and its one-line synthesis.
  add_test(NAME ${test_name} COMMAND ${target}
           WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/${dir}")
  acc_test_properties(${test_name} LABELS ${label})

  # The language and fusion suites again on the CPU backend (support.c:
  # ACC_TEST_BACKEND), with a kernel cache inside the build folder.
  if(dir STREQUAL "lang" OR test_name STREQUAL "e2e.test_fusion")
    add_test(NAME ${test_name}.cpu COMMAND ${target}
             WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/${dir}")
    acc_test_properties(${test_name}.cpu LABELS ${label})
    set_property(TEST ${test_name}.cpu APPEND PROPERTY LABELS cpu)
    set_property(TEST ${test_name}.cpu APPEND PROPERTY ENVIRONMENT
      "ACC_TEST_BACKEND=cpu"
      "XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/test-kernel-cache")
    if(ACC_GPU_TESTS)
      acc_device_test(${test_name}.cuda ${target} ${dir} ${label})
    endif()
  endif()
endforeach()

# The helper of a family of tests, beside them (no test of its own: its
# name does not start with test_): an object library `name` built from
# tests/<helper> and linked into the executable of every tests/<pattern>;
# `lib` is what those tests link (accel or accel_internal), for the
# helper's headers.
function(acc_test_helper name helper pattern lib)
  add_library(${name} OBJECT "${ACC_TESTS_DIR}/${helper}")
  target_include_directories(${name} PRIVATE ${ACC_TEST_INCLUDES})
  target_compile_definitions(${name} PRIVATE ${ACC_POSIX_DEFS})
  target_link_libraries(${name} PRIVATE ${lib} PkgConfig::CRITERION)
  file(GLOB srcs CONFIGURE_DEPENDS "${ACC_TESTS_DIR}/${pattern}")
  foreach(src IN LISTS srcs)
    file(RELATIVE_PATH rel "${ACC_TESTS_DIR}" "${src}")
    string(REGEX REPLACE "\\.c$" "" rel "${rel}")
    string(REPLACE "/" "_" target "test_${rel}")
    if(TARGET ${target})
      target_link_libraries(${target} PRIVATE ${name})
    endif()
  endforeach()
endfunction()

# The standard library's tests (the fixture and the builders they share).
acc_test_helper(accel_stdlib_test_support lang/stdlib_support.c
                "lang/test_stdlib*.c" accel)

# --- layering: no module includes a header of a module above it ------------
# docs/layers.txt lists the modules in layer order; the checker's self
# test shows it catches an upward include.
find_program(ACC_LAYERS_PYTHON3 NAMES python3)
if(ACC_LAYERS_PYTHON3)
  add_test(NAME layers.include_order
    COMMAND "${ACC_LAYERS_PYTHON3}" "${ACC_TESTS_DIR}/layers/check_layers.py"
            "${PROJECT_SOURCE_DIR}/docs/layers.txt" "${PROJECT_SOURCE_DIR}")
  acc_test_properties(layers.include_order LABELS layers)
  add_test(NAME layers.self_test
    COMMAND "${ACC_LAYERS_PYTHON3}" "${ACC_TESTS_DIR}/layers/check_layers.py"
            --self-test)
  acc_test_properties(layers.self_test LABELS layers)
endif()

# --- tests/programs: the LANGUAGE.md texts every binding's tests read ------
# (Python, Rust, Julia, C++; the C tests through tests/support/text_sources.c
# and ACC_TEST_PROGRAMS_DIR, the CLI tests through tests/cli/cli_support.py),
# the single copy, checked once here on the interpreter.
file(GLOB ACC_SHARED_PROGRAMS CONFIGURE_DEPENDS "${ACC_TESTS_DIR}/programs/*.acc")
foreach(f IN LISTS ACC_SHARED_PROGRAMS)
  get_filename_component(stem "${f}" NAME_WE)
  add_test(NAME programs.${stem}
           COMMAND "$<TARGET_FILE:accel_cli>" check "${f}" --no-plugins)
  acc_test_properties(programs.${stem} LABELS lang)
endforeach()
# The copies that must stay separate files (examples/demo.acc, the fuzz
# seed corpus) equal tests/programs/ (the script says why they stay).
if(ACC_LAYERS_PYTHON3)
  add_test(NAME programs.copies
           COMMAND "${ACC_LAYERS_PYTHON3}"
                   "${ACC_TESTS_DIR}/programs/check_copies.py"
                   "${PROJECT_SOURCE_DIR}")
  acc_test_properties(programs.copies LABELS lang)
endif()

# --- ABI checks (shell scripts) ----------------------------------------------
add_test(NAME abi.exported_symbols
  COMMAND "${ACC_TESTS_DIR}/abi/check_symbols.sh" "$<TARGET_FILE:accel>"
          "${PROJECT_SOURCE_DIR}/abi/accel.symbols"
          "${PROJECT_SOURCE_DIR}/abi/include/accel.h")
acc_test_properties(abi.exported_symbols LABELS abi)

string(JOIN " " ACC_CONSUMER_FLAGS ${ACC_SANITIZE_FLAGS})
add_test(NAME abi.install_consumers
  COMMAND "${ACC_TESTS_DIR}/abi/install_consumers.sh"
          "${PROJECT_BINARY_DIR}" "${PROJECT_SOURCE_DIR}")
acc_test_properties(abi.install_consumers LABELS abi)
set_tests_properties(abi.install_consumers PROPERTIES ENVIRONMENT
  "CC=${CMAKE_C_COMPILER};ACC_CONSUMER_FLAGS=${ACC_CONSUMER_FLAGS};${ACC_TEST_ENV}")

# --- DLPack (tests/abi/test_dlpack.c, tests/abi/dlpack_numpy.py) --------------
# The legacy DLPack structs of accel.h are checked against Debian's
# dlpack.h (libdlpack-dev, installed by tools/bootstrap.sh) when it is
# there; numpy hands arrays to the library through ctypes (not under the
# sanitizers: python cannot load an instrumented libaccel.so).
find_path(ACC_DLPACK_INCLUDE_DIR dlpack/dlpack.h)
if(TARGET test_abi_test_dlpack AND ACC_DLPACK_INCLUDE_DIR)
  target_include_directories(test_abi_test_dlpack SYSTEM PRIVATE
    "${ACC_DLPACK_INCLUDE_DIR}")
  target_compile_definitions(test_abi_test_dlpack PRIVATE ACC_HAVE_DLPACK_H)
endif()
find_program(ACC_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(ACC_PYTHON3 AND NOT ACC_SANITIZE)
  add_test(NAME abi.dlpack_numpy
    COMMAND "${ACC_PYTHON3}" "${ACC_TESTS_DIR}/abi/dlpack_numpy.py"
            "$<TARGET_FILE:accel>")
  acc_test_properties(abi.dlpack_numpy LABELS abi SKIP_RETURN_CODE 77)
endif()
