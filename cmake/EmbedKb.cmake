# Embeds the knowledge base (data/kb/*.json) into the binary.
#
# doctor_embed_kb(TARGET OUT_CPP FILES...) generates OUT_CPP defining
# doctor::kb::embedded_files(): a list of {name, contents} for every file, in a stable order.
# The generated file is rebuilt whenever a KB file changes.
function(doctor_embed_kb out_cpp)
  set(_files ${ARGN})
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} "-DFILES=${_files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedKbScript.cmake
    DEPENDS ${_files} ${PROJECT_SOURCE_DIR}/cmake/EmbedKbScript.cmake
    COMMENT "Embedding the knowledge base"
    VERBATIM)
endfunction()
