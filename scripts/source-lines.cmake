# source_lines(PATH OUT): the file's lines as a CMake list in OUT, one element
# per line, empty lines included, so that an element's position is its line
# number. Characters that CMake lists treat specially are neutralised first
# (\ becomes /, [ and ] become ( and ), ; becomes ,): for checks that match
# patterns in source lines, not for reading text back.
function(source_lines path out)
  file(READ ${path} text)
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()
