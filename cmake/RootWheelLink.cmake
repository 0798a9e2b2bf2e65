# lanes_link_root_wheel(ROOT_PACKAGE): the symlink that the ROOT wheel's CMake
# configuration needs. Its targets name <prefix>/lib/pythonX.Y/mock_site_packages/ROOT,
# a path that exists only on the machine that built the wheel
# (root-project/root#22654); a symlink beside site-packages makes
# find_package(ROOT) work unchanged. ROOT_PACKAGE is the wheel's package
# directory, .../lib/pythonX.Y/site-packages/ROOT. Used as lanes is built
# (cmake/PythonEnvironment.cmake) and by its CMake package (lanesConfig.cmake).
function(lanes_link_root_wheel root_package)
  get_filename_component(site_packages "${root_package}" DIRECTORY)
  get_filename_component(python_lib "${site_packages}" DIRECTORY)
  if(EXISTS "${python_lib}/mock_site_packages" OR NOT EXISTS "${site_packages}")
    return()
  endif()
  message(STATUS "ROOT wheel: linking ${python_lib}/mock_site_packages to site-packages (root#22654)")
  file(CREATE_LINK site-packages "${python_lib}/mock_site_packages" SYMBOLIC)
endfunction()
