# Runs one codesim command line and checks its exit code, its output and the files it leaves.
#   -DCMD="codesim|arg|..."   the command, arguments separated by |
#   -DCODE=N                  expected exit code
#   -DSTDERR_MATCH=REGEX      optional: standard error must match
#   -DSTDOUT_MATCH=REGEX      optional: standard output must match
#   -DABSENT=PATH             optional: this path must not exist afterwards (no partial output)
#   -DPRESENT=PATH            optional: this file must exist afterwards
#   -DWORKDIR=DIR             working directory
if(DEFINED ABSENT)
  file(REMOVE_RECURSE "${ABSENT}")
endif()
if(DEFINED PRESENT)
  file(REMOVE "${PRESENT}")
endif()
string(REPLACE "|" ";" CMD "${CMD}")
foreach(stream STDERR STDOUT)
  if(DEFINED ${stream}_MATCH)
    string(REPLACE "<semicolon>" ";" ${stream}_MATCH "${${stream}_MATCH}")
  endif()
endforeach()
execute_process(COMMAND ${CMD} WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code STREQUAL "${CODE}")
  message(FATAL_ERROR "exit code ${code}, expected ${CODE}\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED STDERR_MATCH AND NOT err MATCHES "${STDERR_MATCH}")
  message(FATAL_ERROR "stderr does not match '${STDERR_MATCH}':\n${err}")
endif()
if(DEFINED STDOUT_MATCH AND NOT out MATCHES "${STDOUT_MATCH}")
  message(FATAL_ERROR "stdout does not match '${STDOUT_MATCH}':\n${out}")
endif()
if(DEFINED ABSENT AND EXISTS "${ABSENT}")
  message(FATAL_ERROR "${ABSENT} was left behind")
endif()
if(DEFINED PRESENT AND NOT EXISTS "${PRESENT}")
  message(FATAL_ERROR "${PRESENT} was not written")
endif()
