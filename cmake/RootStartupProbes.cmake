# The answers to ROOT's start-up probes, found once as lanes is configured
# (plugins/root/RootSupport.cpp says why and how they are used):
#   the dynamic linker's system search path, which ROOT and cling each learn
#   by running `LD_DEBUG=libs LD_PRELOAD=DOESNOTEXIST ls` and reading the
#   line that ends "(system search path)";
#   the C++ standard library's include directories, which cling learns by
#   running `c++ -xc++ -E -v /dev/null` and keeping the directories whose
#   name holds "++": here the same filter over those CMake already found
#   for the compiler that builds lanes.
# Writes ${output}, a header defining LANES_LD_SYSTEM_PATH and
# LANES_CXX_STDLIB_INCLUDES (colon-separated, empty when not found), and
# LANES_CXX_STDLIB_INCLUDE_DIRS, the same directories as string literals
# separated by commas (for an initializer list).
function(lanes_answer_root_startup_probes output)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_DEBUG=libs LD_PRELOAD=DOESNOTEXIST ls /DOESNOTEXIST
                  OUTPUT_QUIET ERROR_VARIABLE linker_says RESULT_VARIABLE ignored)
  set(LANES_LD_SYSTEM_PATH "")
  if(linker_says MATCHES "search path=([^\n]*)\\(system search path\\)")
    string(STRIP "${CMAKE_MATCH_1}" LANES_LD_SYSTEM_PATH)
  endif()
  set(includes "")
  foreach(directory IN LISTS CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    if(directory MATCHES "\\+\\+")
      list(APPEND includes "${directory}")
    endif()
  endforeach()
  string(REPLACE ";" ":" LANES_CXX_STDLIB_INCLUDES "${includes}")
  set(LANES_CXX_STDLIB_INCLUDE_DIRS "")
  if(includes)
    string(REPLACE ";" "\", \"" LANES_CXX_STDLIB_INCLUDE_DIRS "\"${includes}\"")
  endif()
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/RootStartupProbes.h.in "${output}" @ONLY)
endfunction()
