# compile_fail.cmake — the ctest cpp.typed_mismatch_does_not_compile.
# Compiles SOURCE (typed_mismatch.cpp) once per "#elif CASE == n" with
# -fsyntax-only: CASE 0 must compile, every other case must fail with a
# diagnostic matching the regular expression on its "// expect:" line, so a
# case that fails for an unrelated reason (a typo) does not pass.
#
#   cmake -DCXX=c++ -DSOURCE=file.cpp -DINCLUDES="dir;dir" -P compile_fail.cmake
foreach(var CXX SOURCE INCLUDES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "compile_fail.cmake: -D${var}=... is required")
  endif()
endforeach()

set(flags -std=c++17 -fsyntax-only -Wall -Wextra -Wpedantic -Werror)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags "-I${dir}")
endforeach()

file(STRINGS "${SOURCE}" lines)
set(cases "")
set(case "")
foreach(line IN LISTS lines)
  if(line MATCHES "^#(el)?if CASE == ([0-9]+)")
    set(case ${CMAKE_MATCH_2})
    list(APPEND cases ${case})
  elseif(NOT case STREQUAL "" AND line MATCHES "^ *// expect: (.*)$")
    set(expect_${case} "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(LENGTH cases n)
if(n LESS 2)
  message(FATAL_ERROR "compile_fail.cmake: no cases in ${SOURCE}")
endif()

set(failed 0)
foreach(case IN LISTS cases)
  execute_process(COMMAND "${CXX}" ${flags} -DCASE=${case} "${SOURCE}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(case EQUAL 0)
    if(NOT rc EQUAL 0)
      message(SEND_ERROR "case 0 (well typed) does not compile:\n${out}")
      set(failed 1)
    else()
      message(STATUS "case 0: compiles")
    endif()
  elseif(rc EQUAL 0)
    message(SEND_ERROR "case ${case} compiled; it must not")
    set(failed 1)
  elseif(NOT out MATCHES "${expect_${case}}")
    message(SEND_ERROR "case ${case} failed, but without \"${expect_${case}}\":\n${out}")
    set(failed 1)
  else()
    message(STATUS "case ${case}: refused (${expect_${case}})")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "typed mismatches: see above")
endif()
