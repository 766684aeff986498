# SPDX-License-Identifier: MIT
# Runs a command and holds it to an exact exit status and an exact message at the end of its
# standard error. ctest alone cannot: WILL_FAIL passes on any failure (a program that never
# started included), and PASS_REGULAR_EXPRESSION ignores the exit status.
#
#   cmake -DSTATUS=<n> -DSTDERR=<text> -P expect_exit.cmake -- <command> [<arg>...]
#
# Standard error must end with STDERR, starting on a line of its own: an emulator may print lines
# of its own first (wine, when it creates its prefix). Carriage returns are dropped before
# comparing: a Windows program's text-mode stderr ends its lines with CRLF.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED STATUS OR NOT DEFINED STDERR)
  message(FATAL_ERROR "usage: cmake -DSTATUS=<n> -DSTDERR=<text> -P expect_exit.cmake -- <command>...")
endif()

set(_command)
set(_after_separator FALSE)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(_i RANGE ${_last})
  if(_after_separator)
    list(APPEND _command "${CMAKE_ARGV${_i}}")
  elseif("${CMAKE_ARGV${_i}}" STREQUAL "--")
    set(_after_separator TRUE)
  endif()
endforeach()
if(NOT _command)
  message(FATAL_ERROR "expect_exit.cmake: no command after --")
endif()

execute_process(COMMAND ${_command}
  RESULT_VARIABLE _status OUTPUT_VARIABLE _stdout ERROR_VARIABLE _stderr)
string(REPLACE "\r" "" _stderr "${_stderr}")

set(_problems)
if(NOT "${_status}" STREQUAL "${STATUS}")
  list(APPEND _problems "exit status '${_status}', expected ${STATUS}")
endif()
string(LENGTH "${_stderr}" _stderr_length)
string(LENGTH "${STDERR}" _expected_length)
math(EXPR _start "${_stderr_length} - ${_expected_length}")
set(_tail_matches FALSE)
if(_start GREATER_EQUAL 0)
  string(SUBSTRING "${_stderr}" ${_start} -1 _tail)
  set(_before "\n")
  if(_start GREATER 0)
    math(EXPR _previous "${_start} - 1")
    string(SUBSTRING "${_stderr}" ${_previous} 1 _before)
  endif()
  if("${_tail}" STREQUAL "${STDERR}" AND "${_before}" STREQUAL "\n")
    set(_tail_matches TRUE)
  endif()
endif()
if(NOT _tail_matches)
  list(APPEND _problems "standard error does not end with the expected message")
endif()

if(_problems)
  list(JOIN _problems "; " _problems)
  list(JOIN _command " " _shown)
  message(FATAL_ERROR "${_problems}\ncommand: ${_shown}\n"
    "expected standard error to end with:\n${STDERR}\n"
    "standard error:\n${_stderr}\nstandard output:\n${_stdout}")
endif()
message(STATUS "exit status ${_status}; standard error ends with the expected message")
