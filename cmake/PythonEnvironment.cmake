# The Python environment lanes is built against, given by its interpreter
# LANES_PYTHON (CMakeLists.txt). Sets
#   LANES_ROOT_PACKAGE    its ROOT wheel's package directory (.../site-packages/ROOT); empty without one
#   LANES_ROOT_IN_PREFIX  that wheel's libraries relative to an environment's prefix
#                         (lib/python3.11/site-packages/ROOT/lib): where lanes, installed into an environment by
#                         pip, finds the ROOT wheel beside it (cmake/PluginApi.cmake); empty if not so laid out
# and makes the symlink that the wheel's CMake configuration needs (cmake/RootWheelLink.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/RootWheelLink.cmake)
set(LANES_ROOT_PACKAGE "")
set(LANES_ROOT_IN_PREFIX "")
if(EXISTS "${LANES_PYTHON}")
  # find_spec locates the package without importing ROOT (which takes seconds).
  execute_process(COMMAND "${LANES_PYTHON}" -c
                          "import importlib.util as u; s = u.find_spec('ROOT'); print(s.submodule_search_locations[0] if s else '')"
                  OUTPUT_VARIABLE LANES_ROOT_PACKAGE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(LANES_ROOT_PACKAGE MATCHES "/(lib/python3\\.[0-9]+/site-packages/ROOT)$")
  set(LANES_ROOT_IN_PREFIX "${CMAKE_MATCH_1}/lib")
endif()
if(LANES_ROOT_PACKAGE)
  lanes_link_root_wheel("${LANES_ROOT_PACKAGE}")
endif()
