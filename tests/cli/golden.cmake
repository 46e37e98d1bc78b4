# Runs `codesim tables` (or any command) and compares its standard output with a checked-in file.
#   -DCMD="codesim|tables"  -DEXPECTED=path  -DWORKDIR=dir
string(REPLACE "|" ";" CMD "${CMD}")
execute_process(COMMAND ${CMD} WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "exit code ${code}\n${err}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  file(WRITE "${EXPECTED}.actual" "${out}")
  message(FATAL_ERROR "output differs from ${EXPECTED}; see ${EXPECTED}.actual (diff them; if the change is intended, copy it over)")
endif()
