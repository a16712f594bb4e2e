#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_debian_dir.sh - what debian/ says agrees with the build, without
# building a package: the changelog's version is the project's
# (include/mintid.h), the library package and its symbols file are named
# after the soname, control has every package of control.in, and the
# unit's confinement rates 2.0 or lower
# (systemd-analyze security --offline=true). `make check-deb` does the rest.
# Usage: test_debian_dir.sh SOURCE_DIR VERSION SOVERSION
set -eu
src=$1 version=$2 soversion=$3
status=0
fail() { echo "test_debian_dir: $*" >&2; status=1; }

changelog=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
[ "${changelog%-*}" = "$version" ] ||
    fail "debian/changelog is at $changelog, the project at $version: add a changelog entry"

lib=libmintid$soversion
grep -qx "Package: $lib" "$src/debian/control.in" ||
    fail "debian/control.in has no package $lib for the soname libmintid.so.$soversion"
grep -qx "Package: $lib" "$src/debian/control" ||
    fail "debian/control has no package $lib (pg_buildext updatecontrol makes it from control.in)"
# Every package of control.in is in control (a new one needs updatecontrol).
for pkg in $(sed -n 's/^Package: //p' "$src/debian/control.in"); do
    grep -qx "Package: ${pkg//PGVERSION/[0-9]*}" "$src/debian/control" ||
        fail "debian/control has no package $pkg of control.in: run pg_buildext updatecontrol"
done
[ -f "$src/debian/$lib.symbols" ] || fail "no debian/$lib.symbols"
[ -f "$src/debian/$lib.symbols" ] && { head -1 "$src/debian/$lib.symbols" | grep -qx "libmintid.so.$soversion $lib #MINVER#" ||
    fail "debian/$lib.symbols does not begin 'libmintid.so.$soversion $lib #MINVER#'"; }

if ! command -v systemd-analyze >/dev/null; then
    fail "systemd-analyze is missing (Debian's systemd package; make deps installs it)"
elif ! out=$(systemd-analyze security --offline=true --threshold=20 "$src/debian/mintidd.service" 2>&1); then
    fail "debian/mintidd.service rates above 2.0: $(echo "$out" | tail -1)"
    echo "$out" | grep '✗' >&2
fi
[ $status = 0 ] && echo "test_debian_dir: $changelog, $lib, $(echo "$out" | tail -1 | sed 's/^→ //')"
exit $status
