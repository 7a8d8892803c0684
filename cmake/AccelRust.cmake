# The Rust bindings (bindings/rust/, issue 20), included from the top-level
# CMakeLists.txt after the tests: cargo builds and tests the accel-sys and
# accel crates against this build tree's libaccel.so (ACCEL_LIB_DIR), with
# no registry (bindings/rust/.cargo/config.toml: offline, crates-io replaced
# by Debian's /usr/share/cargo/registry; the crates need no dependency).
#
# The target folder is ${PROJECT_BINARY_DIR}/rust-target: a clean clone
# stays clean, and cargo rebuilds only what changed between runs (the first
# `make test` compiles the crates, ~15 s of CPU for the three tests).
#
# Tests (label rust):
#   rust.cargo_test   cargo test: unit, integration (LANGUAGE.md §4 through
#                     text and builder, every operation, errors, threads,
#                     drop order), doctests (compile_fail included), and
#                     the check that accel-sys matches accel.h (bindgen)
#   rust.clippy       cargo clippy --all-targets -- -D warnings
#   rust.doc          cargo doc with RUSTDOCFLAGS=-D warnings
# and the target rust_examples (make demo runs them).
#
# Not in the sanitizer build: a Rust executable linking the ASan/UBSan
# instrumented libaccel would need clang's sanitizer runtime loaded first
# (LD_PRELOAD) and LeakSanitizer would then judge the Rust runtime too;
# the gcc build runs the same tests against the same C code, and the C
# library's memory safety is what build-asan's own C tests check.
if(ACC_SANITIZE)
  return()
endif()

find_program(ACC_CARGO cargo HINTS "$ENV{HOME}/.cargo/bin" "$ENV{CARGO_HOME}/bin")
set(ACC_RUST_DIR "${PROJECT_SOURCE_DIR}/bindings/rust")
set(ACC_RUST_ENV
  "CARGO_TARGET_DIR=${PROJECT_BINARY_DIR}/rust-target"
  "ACCEL_LIB_DIR=${PROJECT_BINARY_DIR}"
  # doctests are linked by rustdoc, without the rpath the tests get
  "LD_LIBRARY_PATH=${PROJECT_BINARY_DIR}")

if(NOT ACC_CARGO)
  message(STATUS "Rust bindings: cargo not found, rust.* tests report SKIPPED")
  add_custom_target(rust_examples
    COMMAND ${CMAKE_COMMAND} -E echo "rust examples SKIPPED: cargo is not installed")
  if(NOT ACC_BUILD_TESTS)
    return()
  endif()
  add_test(NAME rust.cargo_test COMMAND sh -c
    "echo 'rust.cargo_test: SKIPPED: cargo is not installed (https://rustup.rs)'; exit 77")
  acc_test_properties(rust.cargo_test LABELS rust SKIP_RETURN_CODE 77)
  return()
endif()
get_filename_component(ACC_CARGO_BIN_DIR "${ACC_CARGO}" DIRECTORY)
# cargo runs rustc, clippy-driver and rustdoc from its own folder
list(APPEND ACC_RUST_ENV "PATH=${ACC_CARGO_BIN_DIR}:$ENV{PATH}")
message(STATUS "Rust bindings: ${ACC_CARGO}")

# make demo: the examples of bindings/rust/accel/examples/, built and run
# by cargo against this build tree.
add_custom_target(rust_examples
  COMMAND ${CMAKE_COMMAND} -E env ${ACC_RUST_ENV}
    sh "${ACC_RUST_DIR}/run_examples.sh" "${ACC_CARGO}"
  WORKING_DIRECTORY "${ACC_RUST_DIR}"
  DEPENDS accel
  USES_TERMINAL
  VERBATIM)

if(NOT ACC_BUILD_TESTS)
  return()
endif()

function(acc_rust_test name)
  add_test(NAME ${name} COMMAND ${ARGN} WORKING_DIRECTORY "${ACC_RUST_DIR}")
  acc_test_properties(${name} LABELS rust)
  set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT ${ACC_RUST_ENV})
  # one cargo at a time on the shared target folder (cargo would wait on
  # its lock anyway; this keeps ctest -j from counting the wait as a run)
  set_property(TEST ${name} PROPERTY RESOURCE_LOCK rust-target)
endfunction()

acc_rust_test(rust.cargo_test "${ACC_CARGO}" test --offline --workspace)
execute_process(COMMAND "${ACC_CARGO}" clippy --version
  RESULT_VARIABLE ACC_CLIPPY_RC OUTPUT_QUIET ERROR_QUIET)
if(ACC_CLIPPY_RC EQUAL 0)
  acc_rust_test(rust.clippy "${ACC_CARGO}" clippy --offline --workspace --all-targets
    -- -D warnings)
else()
  add_test(NAME rust.clippy COMMAND sh -c
    "echo 'rust.clippy: SKIPPED: cargo clippy is not installed'; exit 77")
  acc_test_properties(rust.clippy LABELS rust SKIP_RETURN_CODE 77)
endif()
acc_rust_test(rust.doc "${ACC_CARGO}" doc --offline --workspace --no-deps)
set_property(TEST rust.doc APPEND PROPERTY ENVIRONMENT "RUSTDOCFLAGS=-D warnings")
