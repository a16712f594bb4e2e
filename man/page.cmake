# SPDX-License-Identifier: MIT
# Writes a man page from its source, at build time (cmake -P):
#   IN, OUT     the page's source (man/*.in) and the page to write
#   VERSION     the release, for @PROJECT_VERSION@
#   MINTID      the built mintid: @FORMATS@ becomes the format table, from
#               `mintid formats`
#   MINTIDD     the built mintidd: @SETTINGS@ becomes the settings table, from
#               `mintidd --settings-reference man`
# So the pages list the formats and settings the programs have, and neither
# list is written by hand.

cmake_minimum_required(VERSION 3.16)

# Text as roff: backslashes and hyphens escaped, no line starting a request.
function(roff_escape out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "^([.'])" "\\\\&\\1" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(PROJECT_VERSION "${VERSION}")
set(FORMATS "")
set(SETTINGS "")

if(MINTID)
  execute_process(COMMAND "${MINTID}" formats OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR out STREQUAL "")
    message(FATAL_ERROR "${MINTID} formats failed (${rc})")
  endif()
  # One block per format: its name alone on a line, then its indented lines.
  # (A list splits at ';', which the lines contain: kept aside meanwhile.)
  string(REPLACE ";" "<semicolon>" out "${out}")
  string(REPLACE "\n" ";" lines "${out}")
  set(first TRUE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[a-z]")
      roff_escape(name "${line}")
      string(APPEND FORMATS ".TP\n.B ${name}\n")
      set(first TRUE)
    elseif(line MATCHES "^  +(.+)$")
      string(REPLACE "<semicolon>" ";" text "${CMAKE_MATCH_1}")
      roff_escape(text "${text}")
      if(NOT first)
        string(APPEND FORMATS ".br\n")
      endif()
      string(APPEND FORMATS "${text}\n")
      set(first FALSE)
    endif()
  endforeach()
  string(REGEX REPLACE "\n$" "" FORMATS "${FORMATS}")
endif()

if(MINTIDD)
  execute_process(COMMAND "${MINTIDD}" --settings-reference man OUTPUT_VARIABLE SETTINGS RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR SETTINGS STREQUAL "")
    message(FATAL_ERROR "${MINTIDD} --settings-reference man failed (${rc})")
  endif()
  string(REGEX REPLACE "\n$" "" SETTINGS "${SETTINGS}")
endif()

configure_file("${IN}" "${OUT}" @ONLY)
