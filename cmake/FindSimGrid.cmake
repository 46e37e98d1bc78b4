# Finds SimGrid (Debian's libsimgrid-dev ships a pkg-config file, no CMake package).
# Defines SimGrid_FOUND, SimGrid_VERSION and the imported target SimGrid::SimGrid.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_SimGrid QUIET simgrid)
endif()
find_path(SimGrid_INCLUDE_DIR simgrid/s4u.hpp HINTS ${PC_SimGrid_INCLUDE_DIRS})
find_library(SimGrid_LIBRARY NAMES simgrid HINTS ${PC_SimGrid_LIBRARY_DIRS})
if(SimGrid_INCLUDE_DIR AND EXISTS "${SimGrid_INCLUDE_DIR}/simgrid/version.h")
  file(STRINGS "${SimGrid_INCLUDE_DIR}/simgrid/version.h" _sg_ver REGEX "#define SIMGRID_VERSION_(MAJOR|MINOR) ")
  string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" _sg_major "${_sg_ver}")
  string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" _sg_minor "${_sg_ver}")
  set(SimGrid_VERSION "${_sg_major}.${_sg_minor}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SimGrid REQUIRED_VARS SimGrid_LIBRARY SimGrid_INCLUDE_DIR VERSION_VAR SimGrid_VERSION)
if(SimGrid_FOUND AND NOT TARGET SimGrid::SimGrid)
  add_library(SimGrid::SimGrid UNKNOWN IMPORTED)
  set_target_properties(SimGrid::SimGrid PROPERTIES
    IMPORTED_LOCATION "${SimGrid_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SimGrid_INCLUDE_DIR}")
endif()
