# SPDX-License-Identifier: MIT
# Writes `mintidd --settings-reference FORM` to OUT, and fails the build if
# the server fails or writes nothing.
# Usage: cmake -DMINTIDD=path -DFORM=conf|man|names -DOUT=file -P settings-reference.cmake
execute_process(COMMAND ${MINTIDD} --settings-reference ${FORM}
  OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
file(SIZE ${OUT}.tmp size)
if(NOT rc EQUAL 0 OR size EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${MINTIDD} --settings-reference ${FORM} failed (${rc})")
endif()
file(RENAME ${OUT}.tmp ${OUT})
