# Third-party libraries, all from Debian (see scripts/install-deps.sh).
#
# Native builds use Debian's CMake packages. The mingw-w64 cross build cannot use Debian's host
# configs (they put /usr/include on the include path and glibc headers break the build), so the
# header-only libraries are staged into a directory of their own, and fmt's out-of-line part is
# compiled once (cmake/fmt_compiled_once.cpp) instead of into every file (FMT_HEADER_ONLY).
# DOCTOR_STATIC_RUNTIME builds use the same file, since Debian ships no static libfmt.
if(CMAKE_CROSSCOMPILING)
  set(_staged ${CMAKE_BINARY_DIR}/host-headers)
  file(MAKE_DIRECTORY ${_staged})
  foreach(_dir fmt nlohmann CLI tl)
    if(NOT EXISTS /usr/include/${_dir})
      message(FATAL_ERROR "/usr/include/${_dir} is missing: run scripts/install-deps.sh")
    endif()
    if(NOT EXISTS ${_staged}/${_dir})
      file(CREATE_LINK /usr/include/${_dir} ${_staged}/${_dir} SYMBOLIC)
    endif()
  endforeach()
  add_library(doctor_fmt STATIC ${CMAKE_CURRENT_LIST_DIR}/fmt_compiled_once.cpp)
  target_include_directories(doctor_fmt SYSTEM PUBLIC ${_staged})
  add_library(doctor_third_party INTERFACE)
  target_include_directories(doctor_third_party SYSTEM INTERFACE ${_staged})
  target_link_libraries(doctor_third_party INTERFACE doctor_fmt)
else()
  find_package(fmt REQUIRED)
  find_package(nlohmann_json 3.10 REQUIRED)
  find_package(CLI11 REQUIRED)
  find_package(tl-expected REQUIRED)
  add_library(doctor_third_party INTERFACE)
  if(DOCTOR_STATIC_RUNTIME)
    add_library(doctor_fmt STATIC ${CMAKE_CURRENT_LIST_DIR}/fmt_compiled_once.cpp)
    target_include_directories(doctor_fmt SYSTEM PUBLIC
      $<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>)
    set(_doctor_fmt doctor_fmt)
  else()
    set(_doctor_fmt fmt::fmt)
  endif()
  target_link_libraries(doctor_third_party INTERFACE
    ${_doctor_fmt} nlohmann_json::nlohmann_json CLI11::CLI11 tl::expected)
endif()
