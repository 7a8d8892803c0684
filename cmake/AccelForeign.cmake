# Foreign functions and plugins (DESIGN.md §8), included from the top-level
# CMakeLists.txt: the built-in plugins (plugins/*, each a MODULE named
# accel_NAME.so in build/plugins/ and installed in LIBDIR/accel/plugins/),
# the example plugin (examples/plugin/), and the helpers and settings of
# the tests under tests/foreign/ (which AccelTests.cmake registers).
#
# A plugin is built only when what it links is found; the configure output
# says which plugins are built and why not.

set(ACC_PLUGIN_BUILD_DIR "${PROJECT_BINARY_DIR}/plugins")
set(ACC_PLUGIN_INSTALL_SUBDIR "${CMAKE_INSTALL_LIBDIR}/accel/plugins")
target_compile_definitions(accel_objects PRIVATE
  ACC_PLUGIN_INSTALL_DIR="${CMAKE_INSTALL_FULL_LIBDIR}/accel/plugins")

# acc_add_plugin(NAME SOURCES...): plugins/NAME as accel_NAME.so.
function(acc_add_plugin name)
  set(target accel_plugin_${name})
  add_library(${target} MODULE ${ARGN})
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME accel_${name}
    LIBRARY_OUTPUT_DIRECTORY "${ACC_PLUGIN_BUILD_DIR}")
  target_include_directories(${target} PRIVATE
    "${PROJECT_SOURCE_DIR}/abi/include")
  target_compile_definitions(${target} PRIVATE ${ACC_POSIX_DEFS})
  target_link_libraries(${target} PRIVATE accel)
  install(TARGETS ${target} LIBRARY DESTINATION ${ACC_PLUGIN_INSTALL_SUBDIR})
  set(ACC_PLUGIN_TARGETS ${ACC_PLUGIN_TARGETS} ${target} PARENT_SCOPE)
endfunction()

set(ACC_PLUGINS_BUILT "")
set(ACC_PLUGIN_TARGETS "")
pkg_check_modules(OPENBLAS IMPORTED_TARGET openblas)
if(OPENBLAS_FOUND)
  acc_add_plugin(cblas "${PROJECT_SOURCE_DIR}/plugins/cblas/cblas_plugin.c")
  target_link_libraries(accel_plugin_cblas PRIVATE PkgConfig::OPENBLAS)
  list(APPEND ACC_PLUGINS_BUILT cblas)
  message(STATUS "accel plugin cblas: built (OpenBLAS ${OPENBLAS_VERSION})")
else()
  message(STATUS "accel plugin cblas: NOT built (OpenBLAS not found; "
                 "install libopenblas-dev)")
endif()

pkg_check_modules(FFTW3 IMPORTED_TARGET fftw3)
pkg_check_modules(FFTW3F IMPORTED_TARGET fftw3f)
if(FFTW3_FOUND AND FFTW3F_FOUND)
  acc_add_plugin(fftw "${PROJECT_SOURCE_DIR}/plugins/fftw/fftw_plugin.c")
  target_link_libraries(accel_plugin_fftw PRIVATE
    PkgConfig::FFTW3 PkgConfig::FFTW3F Threads::Threads)
  list(APPEND ACC_PLUGINS_BUILT fftw)
  message(STATUS "accel plugin fftw: built (FFTW ${FFTW3_VERSION})")
else()
  message(STATUS "accel plugin fftw: NOT built (fftw3 and fftw3f not found; "
                 "install libfftw3-dev)")
endif()


# The example plugin of docs/PLUGINS.md.
if(ACC_BUILD_EXAMPLES)
  add_library(accel_example_plugin MODULE
    "${PROJECT_SOURCE_DIR}/examples/plugin/example_plugin.c")
  set_target_properties(accel_example_plugin PROPERTIES
    PREFIX "" OUTPUT_NAME accel_example
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/examples/plugin")
  target_include_directories(accel_example_plugin PRIVATE
    "${PROJECT_SOURCE_DIR}/abi/include")
  target_link_libraries(accel_example_plugin PRIVATE accel m)
  if(TARGET foreign_dot)
    add_dependencies(foreign_dot ${ACC_PLUGIN_TARGETS})
  endif()
endif()

if(NOT ACC_BUILD_TESTS)
  return()
endif()

# --- test helpers: a library of plain C functions, and a plugin built for
# another ABI version (ACC_ABI_VERSION + 1). --------------------------------
add_library(accel_testfns SHARED "${ACC_TESTS_DIR}/foreign/libtestfns.c")
set_target_properties(accel_testfns PROPERTIES
  OUTPUT_NAME testfns
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/foreign")
target_link_libraries(accel_testfns PRIVATE m)
add_library(accel_bad_abi_plugin MODULE
  "${ACC_TESTS_DIR}/foreign/bad_abi_plugin.c")
set_target_properties(accel_bad_abi_plugin PROPERTIES
  PREFIX "" OUTPUT_NAME accel_bad_abi
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/foreign")
target_include_directories(accel_bad_abi_plugin PRIVATE
  "${PROJECT_SOURCE_DIR}/abi/include")

set(ACC_FOREIGN_TEST_DEFS
  ACC_TEST_PLUGIN_DIR="${ACC_PLUGIN_BUILD_DIR}"
  ACC_TEST_FNS_LIB="$<TARGET_FILE:accel_testfns>"
  ACC_TEST_BAD_PLUGIN="$<TARGET_FILE:accel_bad_abi_plugin>"
  ACC_TEST_EXAMPLE_PLUGIN="${PROJECT_BINARY_DIR}/examples/plugin/accel_example.so")
foreach(p cblas fftw)
  if(p IN_LIST ACC_PLUGINS_BUILT)
    string(TOUPPER ${p} P)
    list(APPEND ACC_FOREIGN_TEST_DEFS ACC_TEST_HAVE_${P}=1)
  endif()
endforeach()

file(GLOB ACC_FOREIGN_TESTS CONFIGURE_DEPENDS
     "${ACC_TESTS_DIR}/foreign/test_*.c")
foreach(src IN LISTS ACC_FOREIGN_TESTS)
  get_filename_component(stem "${src}" NAME_WE)
  set(target test_foreign_${stem})
  if(NOT TARGET ${target})
    continue()
  endif()
  target_compile_definitions(${target} PRIVATE ${ACC_FOREIGN_TEST_DEFS})
  add_dependencies(${target} accel_testfns accel_bad_abi_plugin
                   ${ACC_PLUGIN_TARGETS})
  if(TARGET accel_example_plugin)
    add_dependencies(${target} accel_example_plugin)
  endif()
endforeach()
