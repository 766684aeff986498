# Compiler warnings for project targets; DOCTOR_WERROR turns them into errors (the CI preset does).
add_library(doctor_warnings INTERFACE)
target_compile_options(doctor_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused
  -Woverloaded-virtual -Wimplicit-fallthrough
  $<$<BOOL:${DOCTOR_WERROR}>:-Werror>)
# GCC 12 at -O2 reports -Wrestrict inside libstdc++'s own std::string code when strings are
# concatenated (GCC bug 105329); the code is fine, the warning is not actionable here.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(doctor_warnings INTERFACE -Wno-restrict)
endif()
