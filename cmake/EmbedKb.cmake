# Embeds the knowledge base (data/kb/*.json) into the binary.
#
# doctor_embed_kb(OUT_CPP FILES...) generates OUT_CPP defining doctor::kb::embedded_files(): for
# every file, in a stable order, its name, its JSON text and its compiled form (a tape the
# knowledge base reads in place; cmake/embed_kb.py). The generated file is rebuilt whenever a KB
# file changes.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
function(doctor_embed_kb out_cpp)
  set(_files ${ARGN})
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/cmake/embed_kb.py ${out_cpp} ${_files}
    DEPENDS ${_files} ${PROJECT_SOURCE_DIR}/cmake/embed_kb.py
    COMMENT "Embedding and compiling the knowledge base"
    VERBATIM)
endfunction()
