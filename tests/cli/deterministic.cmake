# Runs a command twice and requires byte-identical standard output: seeded scenarios are
# deterministic (same scenario and seed, same bytes), whatever the threads and forks inside.
#   -DCMD="codesim|run|scenario.json|--format|json"  -DWORKDIR=dir
string(REPLACE "|" ";" CMD "${CMD}")
foreach(i 1 2)
  execute_process(COMMAND ${CMD} WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE code OUTPUT_VARIABLE out${i} ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "exit code ${code}\n${err}")
  endif()
endforeach()
if(NOT out1 STREQUAL out2)
  message(FATAL_ERROR "two runs of the same scenario differ")
endif()
