# SPDX-License-Identifier: MIT
# Each test's time budget: about three times its usual time in a plain build
# on the 2-core machines `make check` runs on (a minute at least), four times
# that under AddressSanitizer, eight under ThreadSanitizer. A test that hangs then fails near its usual time,
# saying so, instead of holding `make check` for ctest's default 1500 s.
# Included at the end of each directory's CMakeLists.txt: a directory sets
# the properties of its own tests. A test not listed keeps the budget it set
# itself, or gets the minute.
set(_mintid_budget_scale 1)
if(MINTID_SANITIZE MATCHES "thread")
  set(_mintid_budget_scale 8)
elseif(MINTID_SANITIZE)
  set(_mintid_budget_scale 4)
endif()
set(_mintid_budgets
  # usual plain time in s, times three, at least 60
  fault_one_space=240 fault_etcd=150 fault_restarts=150 fault_state_file=120 fault_leases=120
  fault_overload=100 fault_clock=100 fault_fleet=90 fault_host_gen=90 fault_stall=60 fault_node_claim=60
  test_promise=120 test_lease=90 test_threads=70 test_cli=60 test_generator=60 test_server=60 test_host=60
  test_tls=75 test_protocol=60 test_workers=60 test_keys=60 test_clients=60 test_independent=60 test_page=60
  test_keys_etcd=60 test_sqlite=60 test_python=60 xcheck_npm=60 test_edges=60 test_openapi=60 test_install=60
  test_ready=60 test_table=60 test_one_voice=90 test_node=60 test_node_hostwide=60 test_node_types=60
  test_node_package=60 test_monitoring=60 test_sqlite_fuzz=60 test_sqlite_fork=60 test_notify=60
  test_mariadb=60 test_one_voice_mariadb=60)
get_property(_mintid_here DIRECTORY PROPERTY TESTS)
foreach(_test ${_mintid_here})
  get_test_property(${_test} TIMEOUT _set)
  if(NOT _set)
    math(EXPR _seconds "60 * ${_mintid_budget_scale}")
    set_tests_properties(${_test} PROPERTIES TIMEOUT ${_seconds})
  endif()
endforeach()
foreach(_pair ${_mintid_budgets})
  string(REPLACE "=" ";" _kv ${_pair})
  list(GET _kv 0 _test)
  list(GET _kv 1 _seconds)
  if(_test IN_LIST _mintid_here)
    # The budget is also the test's cost: ctest starts the costliest first,
    # so that on a fresh clone, with no timings of its own yet, the long
    # fault tests do not start last and run on alone at the end.
    set_tests_properties(${_test} PROPERTIES COST ${_seconds})
    math(EXPR _seconds "${_seconds} * ${_mintid_budget_scale}")
    set_tests_properties(${_test} PROPERTIES TIMEOUT ${_seconds})
  endif()
endforeach()
