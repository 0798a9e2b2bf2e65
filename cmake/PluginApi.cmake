# lanes as a platform for plugin libraries built outside it: the plugin API
# (the public headers, stamped), what the lanes executable exports to the
# libraries it loads (cli/PluginLibraries.h), and `cmake --install build
# --prefix P`: P/bin/lanes, P/include/lanes, P/lib/cmake/lanes (the CMake
# package, lanesConfig.cmake), P/lib/lanes/optional (lanes' optional plugin libraries),
# P/share/lanes (the `lanes` Python package, the default job's profile;
# cli/InstallLayout.h). `pip install .` installs the same into the
# environment's prefix, the Python package into its site-packages.

# The plugin API: what a plugin library includes, as include/lanes/<path>.
# The module API of core (typed module bases, Event, ProductToken, Options,
# the registry and its registrars, Completion for external work), the hooks
# through which the monitor observes a job (ProcessingObserver.h) and the
# one through which a device's work appears in --trace (DeviceTrace.h).
# Every other header is private to lanes.
set(LANES_PUBLIC_HEADERS
    core/Completion.h core/Event.h core/EventId.h core/Exception.h core/Module.h core/ModuleTypes.h
    core/Options.h core/OutputModule.h core/PluginOptions.h core/PluginRegistry.h core/ProcessGroup.h
    core/ProcessingObserver.h core/Product.h core/ProductRegistry.h core/Source.h core/TemporaryName.h
    core/Lumi.h core/Conditions.h
    monitor/DeviceTrace.h)
set(LANES_PUBLIC_HEADER_FILES "")
foreach(header IN LISTS LANES_PUBLIC_HEADERS)
  string(REGEX MATCH "^[a-z]+" layer "${header}")
  list(APPEND LANES_PUBLIC_HEADER_FILES "${PROJECT_SOURCE_DIR}/${layer}/include/lanes/${header}")
endforeach()

# lanes/core/Version.h: the release and a digest of those headers, made at
# build time so that it follows every change to them (cmake/Version.cmake).
set(LANES_GENERATED_INCLUDE "${CMAKE_BINARY_DIR}/generated/include")
set(LANES_VERSION_HEADER "${LANES_GENERATED_INCLUDE}/lanes/core/Version.h")
string(REPLACE ";" "|" LANES_HEADER_ARGUMENT "${LANES_PUBLIC_HEADER_FILES}")
add_custom_command(OUTPUT "${LANES_VERSION_HEADER}"
                   COMMAND "${CMAKE_COMMAND}" -DVERSION=${PROJECT_VERSION} "-DOUTPUT=${LANES_VERSION_HEADER}"
                           "-DHEADERS=${LANES_HEADER_ARGUMENT}" -P "${PROJECT_SOURCE_DIR}/cmake/Version.cmake"
                   DEPENDS ${LANES_PUBLIC_HEADER_FILES} "${PROJECT_SOURCE_DIR}/cmake/Version.cmake"
                   COMMENT "Stamping the plugin API (lanes/core/Version.h)" VERBATIM)
target_sources(lanes_cli PRIVATE "${LANES_VERSION_HEADER}")
target_include_directories(lanes_cli PRIVATE "${LANES_GENERATED_INCLUDE}")

# A plugin library leaves lanes' symbols undefined; the executable holds the
# whole core and monitor (not only what it calls itself) and exports the
# symbols of namespace lanes to the libraries it loads: one copy of the core,
# one registry, one oneTBB per process, and the built-in plugins keep calling
# the core directly (no shared library on the hot path).
set_property(TARGET lanes PROPERTY LINK_LIBRARY_OVERRIDE_lanes_core WHOLE_ARCHIVE)
set_property(TARGET lanes PROPERTY LINK_LIBRARY_OVERRIDE_lanes_monitor WHOLE_ARCHIVE)
set_property(TARGET lanes PROPERTY LINK_LIBRARY_OVERRIDE_lanes_codec WHOLE_ARCHIVE)  # for the HDF5 plugin library
target_link_options(lanes PRIVATE "LINKER:--dynamic-list=${PROJECT_SOURCE_DIR}/cmake/lanes.dynamic-list")
set_property(TARGET lanes APPEND PROPERTY LINK_DEPENDS "${PROJECT_SOURCE_DIR}/cmake/lanes.dynamic-list")

# The tutorial's example modules (examples/modules) as a plugin library too,
# build/lib/liblanes_examples.so, made as lanes_add_plugin makes one outside
# lanes (lanesConfig.cmake.in): the tests run them with the `lanes` command
# (--plugin-library: several processes, ROOT outputs; tests/examples).
add_library(lanes_examples_plugin MODULE ${LANES_EXAMPLE_SOURCES} cmake/PluginStamp.cpp)
target_include_directories(lanes_examples_plugin PRIVATE ${PROJECT_SOURCE_DIR} core/include "${LANES_GENERATED_INCLUDE}")
target_link_libraries(lanes_examples_plugin PRIVATE lanes_tbb)
set_target_properties(lanes_examples_plugin PROPERTIES OUTPUT_NAME lanes_examples LIBRARY_OUTPUT_DIRECTORY
                      ${CMAKE_BINARY_DIR}/lib CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
add_dependencies(lanes_examples_plugin lanes_cli)  # which makes lanes/core/Version.h

# The installed lanes runs with the ROOT and oneTBB of the ROOT wheel beside
# it in the Python environment that pip installed it into (found from
# $ORIGIN, so that a wheel of lanes installs elsewhere), else with those it
# was built with (those of the Python environment it was built against, by
# their real paths), and the system's libraries.
file(REAL_PATH "${ROOT_LIBRARY_DIR}" LANES_ROOT_LIBRARY_DIR)
set(LANES_INSTALL_RPATH "${LANES_ROOT_LIBRARY_DIR}")
if(LANES_ROOT_IN_PREFIX)
  list(PREPEND LANES_INSTALL_RPATH "$ORIGIN/../${LANES_ROOT_IN_PREFIX}")
endif()
set_target_properties(lanes PROPERTIES INSTALL_RPATH "${LANES_INSTALL_RPATH}" INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS lanes RUNTIME DESTINATION bin)
# The test products' dictionary, which ROOT looks for next to the binary.
install(FILES "${CMAKE_BINARY_DIR}/bin/liblanes_root_rdict.pcm" DESTINATION bin)
foreach(header IN LISTS LANES_PUBLIC_HEADERS)
  string(REGEX MATCH "^[a-z]+" layer "${header}")
  get_filename_component(directory "${header}" DIRECTORY)
  install(FILES "${PROJECT_SOURCE_DIR}/${layer}/include/lanes/${header}" DESTINATION "include/lanes/${directory}")
endforeach()
install(FILES "${LANES_VERSION_HEADER}" DESTINATION include/lanes/core)
# The `lanes` Python package, which `lanes` runs its tools from (cli/InstallLayout.h). pip installs it into the
# environment's site-packages instead (pyproject.toml: wheel.packages), and not this component.
install(DIRECTORY python/lanes DESTINATION share/lanes/python COMPONENT python_package
        PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES data/profiles/nanoaod.json DESTINATION share/lanes/data/profiles)

# The CMake package.
if(LANES_ROOT_TBB)
  set(LANES_TBB_FROM_ROOT 1)
  set(LANES_CONFIG_TBB_INCLUDES "${LANES_TBB_INCLUDES}")
else()
  set(LANES_TBB_FROM_ROOT 0)
  set(LANES_CONFIG_TBB_INCLUDES "")
endif()
configure_file(cmake/lanesConfig.cmake.in "${CMAKE_BINARY_DIR}/lanesConfig.cmake" @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/lanesConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/lanesConfig.cmake" "${CMAKE_BINARY_DIR}/lanesConfigVersion.cmake"
              cmake/PluginStamp.cpp cmake/RootWheelLink.cmake DESTINATION lib/cmake/lanes)
