# SPDX-License-Identifier: MIT
# mintid: the two commands that do everything on a fresh Debian machine.
#
#   make run     install what building and running the ID server needs (no
#                other server, no npm), build, and run the ID server
#                (mintidd) in the foreground on loopback
#   make check   install what the tests need, build, and run every test: the
#                plain build, AddressSanitizer + UndefinedBehaviorSanitizer
#                with the fuzzers, and ThreadSanitizer for the thread tests
#
# Other targets: deps, deps-run, deps-python, deps-node, build, sqlite, python, wheel, node, pg, check-pg, check-sanitized-faults, deb, check-deb, demo, bench, soak, install (PREFIX=...), format, clean.

JOBS    ?= 2
# Tests at a time: most of the server and fault tests wait on timers, leases
# and clocks rather than compute, so one more than the cores keeps both busy.
# The ones that measure latency or memory run alone (RUN_SERIAL).
TEST_JOBS ?= 3
PREFIX  ?= /usr/local
BUILD   := build
ASAN    := build-asan
TSAN    := build-tsan

# Debian packages that building and running the server needs (make deps-run,
# so make build and make run): a compiler, CMake and the libraries mintidd
# links. None of them starts a service when installed, and none needs npm
# (tests/test_run_deps.py checks).
RUN_PACKAGES := build-essential cmake pkg-config libssl-dev libevent-dev libcurl4-openssl-dev libjansson-dev libsqlite3-dev
# The Python module's (make python).
PYTHON_PACKAGES := python3-dev python3-setuptools python3-wheel
# What the tests, the sanitizer builds, the PostgreSQL extension and the
# Debian packages add (make deps, which make check runs). Among them
# are the servers the tests start on spare ports (redis-server, etcd-server,
# nginx, prometheus, PostgreSQL), which Debian also starts as services where
# systemd runs. (npm too, but from Debian only when the command is missing:
# a Node.js that ships its own npm, as NodeSource's does, conflicts with
# Debian's npm package.)
TEST_PACKAGES := clang libclang-rt-14-dev python3 faketime clang-format curl redis-tools redis-server etcd-server wrk \
            nginx nodejs postgresql-15 postgresql-server-dev-15 python3-redis libhiredis-dev \
            python3-yaml python3-jsonschema prometheus groff-base man-db bash-completion \
            sqlite3 python3-wheel python3-pip python3-venv python3-mypy \
            libsystemd-dev systemd debhelper dpkg-dev fakeroot lintian postgresql-server-dev-all \
            dh-python python3-all-dev chromium iproute2 mariadb-server libmariadb-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps deps-run deps-python deps-node build sqlite python wheel node run demo check check-plain build-asan check-asan check-sanitized-faults check-tsan check-pg pg deb check-deb bench soak install format clean

all: build

# A recipe line that installs those of the Debian packages $(1) that are missing.
define apt-install
@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps-run:
	$(call apt-install,$(RUN_PACKAGES))

deps-python: deps-run
	$(call apt-install,$(PYTHON_PACKAGES))

# The Node.js package's (make node): Node.js and npm (npm from Debian only
# when the command is missing, as below), and the npm packages of node/ at
# the versions its package-lock.json pins: Node-API's C headers, and for
# the tests TypeScript and the packages mintid/compat is checked against;
# again whenever the lockfile is newer.
deps-node: deps-run
	$(call apt-install,nodejs $$(command -v npm >/dev/null 2>&1 || echo npm))
	@if [ ! -f node/node_modules/.package-lock.json ] || \
	    [ node/package-lock.json -nt node/node_modules/.package-lock.json ]; then \
	  echo "installing the npm packages of node"; \
	  npm ci --prefix node --no-audit --no-fund --loglevel=error >/dev/null; \
	fi

# Everything: what the tests need, and so make check.
deps: deps-run deps-python deps-node
	$(call apt-install,$(TEST_PACKAGES) $$(command -v npm >/dev/null 2>&1 || echo npm))
	@# The npm reference implementations of tests/xcheck, at the versions its
	@# package-lock.json pins; again whenever the lockfile is newer.
	@if [ ! -f tests/xcheck/node_modules/.package-lock.json ] || \
	    [ tests/xcheck/package-lock.json -nt tests/xcheck/node_modules/.package-lock.json ]; then \
	  echo "installing the npm packages of tests/xcheck"; \
	  npm ci --prefix tests/xcheck --no-audit --no-fund --loglevel=error >/dev/null; \
	fi
	@# The Node.js Redis clients of the client matrix (tests/clients), likewise.
	@if [ ! -f tests/clients/node_modules/.package-lock.json ] || \
	    [ tests/clients/package-lock.json -nt tests/clients/node_modules/.package-lock.json ]; then \
	  echo "installing the npm packages of tests/clients"; \
	  npm ci --prefix tests/clients --no-audit --no-fund --loglevel=error >/dev/null; \
	fi

# Configured again when the installed packages change (after make deps,
# say): CMake looks for the optional ones (python3-dev, libsystemd-dev,
# libhiredis-dev, the sqlite3 shell) only when it configures.
$(BUILD)/Makefile: $(wildcard /var/lib/dpkg/status)
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINTID_WERROR=ON
	touch $@

build: deps-run $(BUILD)/Makefile
	cmake --build $(BUILD) -j$(JOBS)

# The SQLite extension alone, build/sqlite/mintid.so (part of build when
# libsqlite3-dev is there); `.load build/sqlite/mintid` in the sqlite3 shell.
sqlite: deps-run $(BUILD)/Makefile
	cmake --build $(BUILD) --target mintid_sqlite -j$(JOBS)

# The Python module (python/, docs/python.md), built by its setup.py into
# $(BUILD)/python, where test_python imports it; part of `build` too.
python: deps-python $(BUILD)/Makefile
	cmake --build $(BUILD) --target mintid_python

# A wheel of the Python module for the CPython version of Debian's python3,
# $(BUILD)/wheel/mintid-*.whl, which pip installs offline into a virtual
# environment of any CPython of that version (docs/python.md); part of
# `build` too where python3-wheel is installed.
wheel: deps-python $(BUILD)/Makefile
	cmake --build $(BUILD) --target mintid_wheel

# The Node.js package (node/, docs/node.md): the addon built into
# $(BUILD)/node/package, where the tests load it, and packed by npm pack
# into $(BUILD)/node/mintid-*.tgz, which npm installs offline into any
# project on Linux x86-64 without a compiler; part of `build` too where
# Node.js and node/'s npm packages are installed.
node: deps-node $(BUILD)/Makefile
	cmake --build $(BUILD) --target mintid_node_package -j$(JOBS)

# The main job: mintidd in the foreground with the embedded default (node 0,
# state in ./mintid-state, loopback only). Ctrl-C stops it cleanly.
run: build
	@echo "mintidd: HTTP on 127.0.0.1:8080, Redis protocol on 127.0.0.1:6380; Ctrl-C to stop. Try:"
	@echo "  curl http://127.0.0.1:8080/v1/nanoflake"
	@echo "  curl -H 'Accept: application/json' 'http://127.0.0.1:8080/v1/scru160?count=3'"
	@echo "  curl http://127.0.0.1:8080/v1/nanoflake/1c49kkphl4ow"
	@echo "  redis-cli -p 6380 MINT ulid-flake 3"
	@echo "  redis-cli -p 6380 INSPECT uexky xinaS8QBh"
	@echo "  $(BUILD)/mintid gen caloriosa -n 3 | $(BUILD)/mintid inspect"
	exec $(BUILD)/mintidd --state-dir mintid-state

# Mints and inspects a few IDs of every format with the command-line tool.
demo: build
	@for f in $$($(BUILD)/mintid formats | grep -E '^[a-z]'); do \
	  echo "== $$f"; \
	  $(BUILD)/mintid gen $$f -n 3 | tee /dev/stderr | $(BUILD)/mintid inspect --format $$f; \
	done 2>&1

# The ThreadSanitizer tree is built and run while PostgreSQL's tests, which
# mostly wait on the server, run beside it; each one's output is shown
# whole when it ends (--output-sync).
check: check-plain check-asan
	@$(MAKE) --no-print-directory --output-sync=target -j2 check-tsan check-pg
	@echo "make check: all test suites passed"

check-plain: deps build
	cd $(BUILD) && ctest --output-on-failure -j$(TEST_JOBS)

build-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DMINTID_WERROR=ON \
	  -DMINTID_SANITIZE=address,undefined -DMINTID_FUZZ=ON -DMINTID_BENCH=OFF -DMINTID_TEST_WORKERS=1
	cmake --build $(ASAN) -j$(JOBS)

check-asan: build-asan
	cd $(ASAN) && ctest --output-on-failure -j$(TEST_JOBS) -LE sanitized_long

# The fault scenarios check-asan leaves out (tests/fault/CMakeLists.txt),
# under AddressSanitizer + UndefinedBehaviorSanitizer; part of `make soak`.
check-sanitized-faults: build-asan
	cd $(ASAN) && ctest --output-on-failure -j$(TEST_JOBS) -L sanitized_long

# The tests labelled "threads": the library's thread test and the server
# tests, so that mintidd's event loop, lease thread and state writer run
# under ThreadSanitizer (see tests/CMakeLists.txt); under a minute on two cores.
check-tsan: deps
	cmake -S . -B $(TSAN) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINTID_WERROR=ON \
	  -DMINTID_SANITIZE=thread -DMINTID_BENCH=OFF -DMINTID_TEST_WORKERS=1
	@# Only what the tests labelled threads run: the library's, the server.
	cmake --build $(TSAN) -j$(JOBS) --target test_threads test_host test_region host_lock mintidd mintid_cli
	cd $(TSAN) && ctest --output-on-failure -L threads

# The PostgreSQL extension (pg/, PGXS against pg_config), built and installed
# into the server's directories; it compiles the library's sources itself.
pg: deps
	$(MAKE) -C pg
	$(SUDO) $(MAKE) -C pg install

# The extension against a throwaway cluster of its own on a spare loopback
# port (tests/pg/test_pg.py): pg_regress, pgbench, COPY binary, pg_dump and
# pg_restore, a synchronous standby's failover, kill -9 and a restart with
# the clock set back, a changed node or epoch, one host-wide sequence with
# the command (built first); about 70 s. Then the crash step again with its
# mark file removed (--sabotage), which must catch the IDs that go back;
# and PostgreSQL's column of the one table of bad inputs (tests/faces).
check-pg: pg build
	$(SUDO) python3 -W error::ResourceWarning tests/pg/test_pg.py
	$(SUDO) python3 -W error::ResourceWarning tests/pg/test_pg.py --sabotage
	$(SUDO) python3 -W error::ResourceWarning tests/faces/test_one_voice.py --build $(BUILD) --faces pg

# The Debian packages (debian/: libmintid0.4, libmintid-dev, mintid, mintidd,
# postgresql-15-mintid, libsqlite3-mod-mintid, python3-mintid,
# mariadb-plugin-mintid), built with
# dpkg-buildpackage from a copy of the files git tracks, as they are in the
# work tree, in $(BUILD)/deb/src; the .deb files and the .changes land in
# $(BUILD)/deb/, and lintian reports on them. The version of debian/changelog must be include/mintid.h's.
deb: deps
	@v=$$(sed -n 's/^#define MINTID_VERSION_[A-Z]* \([0-9]*\)$$/\1/p' include/mintid.h | paste -sd.); \
	d=$$(dpkg-parsechangelog -l debian/changelog -S Version); \
	[ "$${d%-*}" = "$$v" ] || { echo "debian/changelog is at $$d, include/mintid.h at $$v: add a changelog entry"; exit 1; }
	rm -rf $(BUILD)/deb
	mkdir -p $(BUILD)/deb/src
	git ls-files -z | tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(BUILD)/deb/src
	cd $(BUILD)/deb/src && dpkg-buildpackage -b -us -uc -j$(JOBS)
	lintian --fail-on error --info $(BUILD)/deb/*.changes

# Installs the packages of `make deb` on this machine, uses them (the
# command, the server as its unit starts it, the extension in a throwaway
# cluster), purges them and checks what is left (tests/deb/test_deb.py).
check-deb:
	$(SUDO) python3 tests/deb/test_deb.py $(BUILD)/deb

bench: deps build
	cmake --build $(BUILD) --target bench_gen bench_uuidv7_lib bench_host bench_sqlite mintid_python mintid_node_package mintid_mariadb -j$(JOBS)
	$(BUILD)/bench/bench_gen
	bench/cli_throughput.sh $(BUILD)/mintid
	$(BUILD)/bench/bench_uuidv7_lib
	$(BUILD)/bench/bench_host
	bench/bench_uuidv7.sh $(BUILD)/mintid
	bench/bench_server.sh $(BUILD)/mintidd
	python3 bench/bench_fairness.py $(BUILD)/mintidd
	$(BUILD)/bench/bench_sqlite --module $(BUILD)/sqlite/mintid
	PYTHONPATH=$(BUILD)/python python3 bench/bench_python.py
	node bench/bench_node.mjs $(BUILD)/node/package
	bench/bench_mariadb.sh $(BUILD)/mariadb/mintid.so

# The fault scenarios at length (tests/fault/README.md): more kill -9 rounds
# and longer load under every fault than in `make check`.
soak: build check-sanitized-faults
	@status=0; \
	echo "== tests/test_cli.sh, 200 parallel runs of every format"; \
	MINTID_PARALLEL_RUNS=200 bash tests/test_cli.sh $(BUILD)/mintid || status=1; \
	for t in tests/fault/test_*.py; do \
	  echo "== $$t --long"; \
	  python3 -W error::ResourceWarning $$t --mintidd $(BUILD)/mintidd --mintid $(BUILD)/mintid --long || status=1; \
	done; exit $$status

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i include/*.h src/*.[ch] src/formats/*.c cli/*.[ch] server/*.[ch] pg/*.[ch] tests/*.[ch] python/mintid/*.c $(wildcard fuzz/*.c bench/*.c sqlite/*.c tests/sqlite/*.c mariadb/*.c node/src/*.c)

clean:
	rm -rf $(BUILD) $(ASAN) $(TSAN)
	$(MAKE) -C pg clean
