# The manifest and version resource of cudnn-doctor.exe, filled from the project version and
# compiled by windres (CMAKE_RC_COMPILER, cmake/mingw-w64.cmake) into the executable.
enable_language(RC)
set(DOCTOR_VERSION_QUAD "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}.${PROJECT_VERSION_PATCH}.0")
set(DOCTOR_MANIFEST ${CMAKE_CURRENT_BINARY_DIR}/cudnn-doctor.exe.manifest)
configure_file(${CMAKE_CURRENT_LIST_DIR}/cudnn-doctor.exe.manifest.in ${DOCTOR_MANIFEST} @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/cudnn-doctor.rc.in
               ${CMAKE_CURRENT_BINARY_DIR}/cudnn-doctor.rc @ONLY)
# A library of its own, so that the C++ warning flags the executable takes never reach windres.
add_library(cudnn_doctor_resources OBJECT ${CMAKE_CURRENT_BINARY_DIR}/cudnn-doctor.rc)
# windres reads the manifest when it compiles the .rc: a changed manifest recompiles it.
set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/cudnn-doctor.rc PROPERTIES
  OBJECT_DEPENDS ${DOCTOR_MANIFEST})
