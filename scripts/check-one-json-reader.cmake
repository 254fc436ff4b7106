# One JSON reader and writer (docs/architecture.md, "Numbers are kept
# exactly"): every JSON text orrery reads goes through read_json and every text
# it writes through write_json (src/core/exact_json.h), which keep a number as
# it was given. A direct use of the library's parse, sax_parse or dump
# anywhere else in src/ would round a 24-digit id or rewrite 2.50 as 2.5.
# Allowed: core/exact_json.cc itself, and core/spec_tree.cc's own SAX reader
# (which keeps numbers through exact_number and reports line numbers).
# Run by ctest as the test `one_json_reader`, or by hand:
#   cmake -DSOURCE_DIR=src -P scripts/check-one-json-reader.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/source-lines.cmake)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<the src directory> -P check-one-json-reader.cmake")
endif()

get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/*.h ${SOURCE_DIR}/*.cc)
list(SORT files)
set(allowed core/exact_json.cc core/spec_tree.cc)
set(violations "")
set(checked 0)
foreach(file IN LISTS files)
  math(EXPR checked "${checked} + 1")
  source_lines(${SOURCE_DIR}/${file} lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "^[ \t]*//")
      continue()
    endif()
    set(use "")
    if(line MATCHES "[Jj]son::parse[ \t]*\\(")
      set(use "parse")
    elseif(line MATCHES "(\\.|->)dump[ \t]*\\(")
      set(use "dump")
    elseif(line MATCHES "sax_parse[ \t]*\\(" AND NOT file IN_LIST allowed)
      set(use "sax_parse")
    endif()
    if(use AND NOT file STREQUAL "core/exact_json.cc")
      string(STRIP "${line}" line)
      list(APPEND violations "src/${file}:${number}: the library's ${use}: ${line}")
    endif()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "no source files under ${SOURCE_DIR}")
endif()
if(violations)
  list(LENGTH violations count)
  list(JOIN violations "\n" listed)
  message(FATAL_ERROR "${count} use(s) of the JSON library's own reader or writer; use read_json "
                      "and write_json (src/core/exact_json.h), which keep numbers exactly:\n"
                      "${listed}")
endif()
message(STATUS "one JSON reader: ${checked} files, JSON read and written only through "
               "core/exact_json")
