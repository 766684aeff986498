# Finding ids as C++ constants, generated from data/kb/findings.json.
#
# doctor_finding_ids(OUT_HPP FINDINGS_JSON) generates OUT_HPP (cmake/FindingIdsScript.cmake
# says what it holds) whenever the findings file or the script changes. The header is a source
# of the library that lists OUT_HPP, so that library and everything linking it wait for it.
function(doctor_finding_ids out_hpp findings_json)
  add_custom_command(
    OUTPUT ${out_hpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_hpp} -DFINDINGS=${findings_json}
            -P ${PROJECT_SOURCE_DIR}/cmake/FindingIdsScript.cmake
    DEPENDS ${findings_json} ${PROJECT_SOURCE_DIR}/cmake/FindingIdsScript.cmake
    COMMENT "Generating the finding id constants"
    VERBATIM)
endfunction()
