# AccelPython.cmake — the Python binding (bindings/python/, issue 18): its
# pytest suite under ctest and its installation for /usr/bin/python3.
#
# The binding is pure Python over libaccel through ctypes: nothing is
# built.  Debian's /usr/bin/python3 is the one used (it has numpy and
# pytest, installed by tools/bootstrap.sh); the python3 first in PATH may be
# another install without numpy.

find_program(ACC_PYTHON3_SYSTEM NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)

# --- tests: python.pytest --------------------------------------------------
# Registered in the gcc build only: python cannot load the ASan/UBSan
# instrumented libaccel.so of build-asan/ (the sanitizer runtime must come
# first in the process, and python is not instrumented).
if(ACC_BUILD_TESTS AND ACC_PYTHON3_SYSTEM AND NOT ACC_SANITIZE)
  add_test(NAME python.pytest
    COMMAND "${ACC_PYTHON3_SYSTEM}" -m pytest -q -p no:cacheprovider
            "${PROJECT_SOURCE_DIR}/bindings/python/tests"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/bindings/python")
  acc_test_properties(python.pytest LABELS python)
  set_property(TEST python.pytest APPEND PROPERTY ENVIRONMENT
    "ACCEL_LIBRARY=$<TARGET_FILE:accel>"
    "XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/test-kernel-cache"
    "ACC_TEST_BUILD_DIR=${PROJECT_BINARY_DIR}"
    "PYTHONDONTWRITEBYTECODE=1")
  # The example of `make demo` (examples/python/demo.py), kept working.
  add_test(NAME python.demo
    COMMAND "${ACC_PYTHON3_SYSTEM}" "${PROJECT_SOURCE_DIR}/examples/python/demo.py")
  acc_test_properties(python.demo LABELS python)
  set_property(TEST python.demo APPEND PROPERTY ENVIRONMENT
    "ACCEL_LIBRARY=$<TARGET_FILE:accel>"
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/bindings/python"
    "XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/test-kernel-cache"
    "PYTHONDONTWRITEBYTECODE=1")
endif()

# --- install -----------------------------------------------------------------
# The package goes where /usr/bin/python3 looks for it under the prefix
# (Debian: PREFIX/lib/python3.X/dist-packages, which is on sys.path for
# PREFIX=/usr/local); ACC_PYTHON_SITEDIR (relative to the prefix) overrides.
# _install.py records where the library was installed, so the package
# finds it without LD_LIBRARY_PATH.
if(ACC_PYTHON3_SYSTEM)
  execute_process(
    COMMAND "${ACC_PYTHON3_SYSTEM}" -c
            "import sys; print('%d.%d' % sys.version_info[:2])"
    OUTPUT_VARIABLE _acc_py_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_acc_py_sitedir "lib/python${_acc_py_version}/dist-packages")
else()
  set(_acc_py_sitedir "lib/python3/dist-packages")
endif()
set(ACC_PYTHON_SITEDIR "${_acc_py_sitedir}" CACHE STRING
    "Where make install puts the Python package, relative to the prefix")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/bindings/python/accel"
  DESTINATION "${ACC_PYTHON_SITEDIR}"
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(CODE "
  set(_acc_lib \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libaccel.so.${ACC_ABI_VERSION}\")
  if(IS_ABSOLUTE \"${CMAKE_INSTALL_LIBDIR}\")
    set(_acc_lib \"${CMAKE_INSTALL_LIBDIR}/libaccel.so.${ACC_ABI_VERSION}\")
  endif()
  file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${ACC_PYTHON_SITEDIR}/accel/_install.py\"
    \"# Written by make install: the library this package was installed with.\\nLIBRARY = '\${_acc_lib}'\\n\")
  message(STATUS \"Installing: \${CMAKE_INSTALL_PREFIX}/${ACC_PYTHON_SITEDIR}/accel/_install.py\")
")

# --- the overhead benchmark (bench/python/, make bench-python) -----------------
# A module of the benchmark only (bench/python/ccall.c: acc_run from a C
# loop, loaded by bench/python/overhead.py through ctypes); the binding
# itself needs no compiled code.
add_library(accbench_ccall MODULE bench/python/ccall.c)
target_link_libraries(accbench_ccall PRIVATE accel)
set_target_properties(accbench_ccall PROPERTIES PREFIX ""
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
