# Writes OUTPUT, a header that names the commit SOURCE_DIR is checked out at
# and whether its tracked files differ from it (LANES_GIT_COMMIT, empty when
# SOURCE_DIR is not a git checkout or git is missing; LANES_GIT_DIRTY 0/1).
# Run at every build (CMakeLists.txt: lanes_git_state), so that a commit or
# an edit made since the last build is seen without reconfiguring; OUTPUT is
# rewritten only when its text changes, so an unchanged tree rebuilds nothing.
find_package(Git QUIET)
set(commit "")
set(dirty 0)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT failed)
    set(commit ${head})
    # Tracked files only: build outputs and scratch files are not the source.
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE failed ERROR_QUIET)
    if(failed OR NOT changes STREQUAL "")
      set(dirty 1)
    endif()
  endif()
endif()
set(text "// Written by cmake/GitState.cmake at every build.\n#define LANES_GIT_COMMIT \"${commit}\"\n#define LANES_GIT_DIRTY ${dirty}\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
