#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_run_deps.py - `make run` installs what building and running mintidd
needs and nothing more; `make check` installs what the tests need.

Read from the Makefile itself, without running any of its recipes:

  - the Debian packages `make -n run` installs: none of them, and none of the
    packages they depend on (as installed on this machine, the alternative
    apt would take), ships a systemd service or socket that installing
    enables and starts (a unit with an [Install] section). So `make run`
    starts no server but mintidd: not nginx on port 80, not prometheus on
    9090, not redis-server, etcd or PostgreSQL;
  - `make -n run` has no npm step, so `make run` works without the npm
    registry;
  - make's own database: `make check` reaches the target deps (every
    package), `make run` does not (it reaches deps-run);
  - `make -n deps` installs every package of every list the Makefile
    has (the variables named *PACKAGES), and runs `npm ci` for every
    package-lock.json under tests/.

The packages must be installed here to be examined (make check installs
them); one that is not fails the test, saying so.

Usage: test_run_deps.py SOURCE_DIR
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

failures = []


def log(msg):
    print(f"test_run_deps: {msg}", flush=True)


def check(cond, what):
    log(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def make(src, build, *args):
    """make in SOURCE_DIR with BUILD in a scratch directory; the flags of a
    make this test may run under (MAKEFLAGS) are not passed on."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    env["LC_ALL"] = "C"
    return run(["make", "--no-print-directory", "-C", src, f"BUILD={build}"] + list(args), env=env)


def dry_run(src, build, target):
    """What `make -n TARGET` would do. (Recipes of other targets would run a
    sub-make's lines for real, so this is used only for targets whose
    recipes call no $(MAKE).)"""
    p = make(src, build, "-n", target)
    check(p.returncode == 0, f"make -n {target} {p.stderr.strip()}")
    return p.stdout if p.returncode == 0 else ""


PACKAGE_NAME = re.compile(r"^[a-z0-9][a-z0-9+.-]+$")


def packages_of(dry):
    """The Debian packages of the `for p in ...; do` loops that install
    what is missing; a shell substitution in the list, such as npm's, is left
    out."""
    names = []
    for words in re.findall(r"for p in ([^;]*); do", dry):
        words = re.sub(r"\$\([^)]*\)", " ", words)
        names += [w for w in words.split() if PACKAGE_NAME.match(w)]
    return names


def database(src, build):
    """make's database (make -p), read without building anything: each
    target's prerequisites, and each variable whose name ends in PACKAGES."""
    p = make(src, build, "-p", "-q", "-f", "Makefile", "Makefile")
    prereqs, lists = {}, {}
    not_a_target = False
    for line in p.stdout.splitlines():
        if line.startswith("# Not a target:"):
            not_a_target = True
            continue
        m = re.match(r"^(\w*PACKAGES) :?= (.*)$", line)
        if m:
            lists[m.group(1)] = m.group(2).split()
            continue
        m = re.match(r"^([\w./-]+):(?![:=])(.*)$", line)
        if m and not not_a_target:
            prereqs.setdefault(m.group(1), []).extend(m.group(2).split())
        not_a_target = False
    return prereqs, lists


def reachable(prereqs, target):
    seen, todo = set(), [target]
    while todo:
        t = todo.pop()
        if t not in seen:
            seen.add(t)
            todo.extend(prereqs.get(t, []))
    return seen


def installed_packages():
    """Every installed package: what it depends on (each group of
    alternatives a list) and the virtual packages it provides."""
    fmt = "${db:Status-Abbrev}\t${Package}\t${Provides}\t${Pre-Depends}\t${Depends}\n"
    out = run(["dpkg-query", "-W", f"-f={fmt}"]).stdout
    depends, providers = {}, {}

    def groups(field):
        return [[re.split(r"[\s(:]", alt.strip())[0] for alt in group.split("|")]
                for group in field.split(",") if group.strip()]

    for line in out.splitlines():
        status, name, provides, predepends, deps = line.split("\t")
        if not status.startswith("ii"):
            continue
        depends.setdefault(name, []).extend(groups(predepends) + groups(deps))
        for group in groups(provides):
            for virtual in group:
                providers.setdefault(virtual, set()).add(name)
    return depends, providers


def closure(roots, depends, providers):
    """The installed packages ROOTS pull in, each with the chain that pulls
    it in: of a group of alternatives, the first one installed (apt takes
    the first it can); a virtual package, every installed provider."""
    def resolve(name):
        return ({name} if name in depends else set()) | providers.get(name, set())

    chain = {}
    todo = [(r, [r]) for r in roots if r in depends]
    while todo:
        name, path = todo.pop()
        if name in chain:
            continue
        chain[name] = path
        for group in depends[name]:
            for alt in group:
                found = resolve(alt)
                if found:
                    todo.extend((f, path + [f]) for f in sorted(found))
                    break
    return chain


UNIT = re.compile(r"^(/usr)?/lib/systemd/system/[^/]+\.(service|socket)$")


def started_units(packages):
    """The service and socket units of PACKAGES that installing them enables
    and starts (debhelper's deb-systemd-helper enables a unit with an
    [Install] section), each with the package that ships it."""
    units = {}
    for path in run(["dpkg-query", "-L"] + sorted(packages)).stdout.splitlines():
        if UNIT.match(path) and os.path.isfile(path):
            with open(path, errors="replace") as f:
                if re.search(r"^\[Install\]", f.read(), re.M):
                    owner = run(["dpkg-query", "-S", path]).stdout.split(":")[0]
                    units.setdefault(owner, []).append(path)
    return units


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    src = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="mintid-run-deps-") as build:
        run_dry = dry_run(src, build, "run")
        test_dry = dry_run(src, build, "deps")
        prereqs, lists = database(src, build)

    run_packages = packages_of(run_dry)
    check(bool(run_packages) and "exec " in run_dry,
          f"make -n run installs packages and ends in mintidd ({' '.join(run_packages)})")

    npm = [line.strip() for line in run_dry.splitlines() if re.search(r"\bnpm\b", line)]
    check(not npm, f"make run has no npm step ({npm})")

    depends, providers = installed_packages()
    missing = [p for p in run_packages if p not in depends]
    check(not missing, f"the packages of make run are installed here, to be examined (make deps): {missing}")
    chain = closure(run_packages, depends, providers)
    starting = {" -> ".join(chain.get(owner, [owner])): units for owner, units in started_units(chain).items()}
    check(not starting, f"no package make run installs ({len(chain)} with their dependencies) starts a service "
          f"on install {starting}")

    check("deps" in reachable(prereqs, "check"), "make check reaches deps")
    check("deps" not in reachable(prereqs, "run"), "make run does not reach deps")

    listed = {p for names in lists.values() for p in names}
    not_in_check = sorted(listed - set(packages_of(test_dry)))
    check(bool(lists) and not not_in_check,
          f"make deps installs every package of {' '.join(sorted(lists))} (not: {not_in_check})")
    locks = sorted(os.path.relpath(os.path.dirname(p), src)
                   for p in glob.glob(os.path.join(src, "tests", "**", "package-lock.json"), recursive=True)
                   if "node_modules" not in p)
    no_ci = [d for d in locks if not re.search(rf"npm ci --prefix {re.escape(d)}\b", test_dry)]
    check(bool(locks) and not no_ci, f"make deps runs npm ci for {' '.join(locks)} (not: {no_ci})")

    if failures:
        log(f"{len(failures)} check(s) failed")
        sys.exit(1)
    log("all checks passed")


if __name__ == "__main__":
    main()
