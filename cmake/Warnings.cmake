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

# DOCTOR_SANITIZE (e.g. "address,undefined") instruments the project's own code, the libraries of
# src/doctor and the CLI, and links every executable with the sanitizer runtimes. Test harnesses
# (GoogleTest files, fuzz replayers, test tools) are not instrumented: they only drive the code
# under test, and instrumenting GoogleTest's macros made the test files most of a sanitized build.
set(DOCTOR_SANITIZE "" CACHE STRING "Sanitizers for the project's own code (-fsanitize=LIST)")
add_library(doctor_sanitized INTERFACE)
if(DOCTOR_SANITIZE)
  target_compile_options(doctor_sanitized INTERFACE
    -fsanitize=${DOCTOR_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${DOCTOR_SANITIZE})
endif()
