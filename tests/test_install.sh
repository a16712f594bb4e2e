#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_install.sh - the library installs like a real one: README's example
# (examples/mint.c) builds against an installed tree that holds both
# libmintid.so and libmintid.a, as README says, through pkg-config (mintid:
# the shared library, with an rpath; mintid-static: the archive, and the
# program needs no libmintid.so) and CMake's find_package, and the header
# compiles as C++ too.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PREFIX=$tmp/prefix
example=$src/examples/mint.c
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$PREFIX" >/dev/null
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
# shared, with the rpath README gives for a PREFIX of one's own
cc -std=c11 -Wall -Werror "$example" $(pkg-config --cflags --libs mintid) -Wl,-rpath,$PREFIX/lib -o "$tmp/mint_shared"
ldd "$tmp/mint_shared" | grep -q "libmintid\.so.* => $PREFIX/lib/" || fail "mint_shared does not load libmintid.so from PREFIX: $(ldd "$tmp/mint_shared")"
"$tmp/mint_shared" >/dev/null
# static, through mintid-static: nothing of libmintid.so is needed
cc -std=c11 -Wall -Werror "$example" $(pkg-config --cflags --libs mintid-static) -o "$tmp/mint_static"
! ldd "$tmp/mint_static" | grep -q libmintid || fail "mint_static needs libmintid.so: $(ldd "$tmp/mint_static")"
"$tmp/mint_static" >/dev/null
# the header as C++
if command -v c++ >/dev/null; then
    cp "$example" "$tmp/mint.cpp"
    c++ -Wall -Werror "$tmp/mint.cpp" $(pkg-config --cflags --libs mintid-static) -o "$tmp/mint_cxx"
    "$tmp/mint_cxx" >/dev/null
fi
# CMake's find_package, with CMAKE_PREFIX_PATH as README says
for target in mintid mintid_static; do
    mkdir -p "$tmp/$target"
    cp "$example" "$tmp/$target/mint.c"
    cat >"$tmp/$target/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(mintid REQUIRED)
add_executable(mint mint.c)
target_link_libraries(mint PRIVATE mintid::$target)
CM
    cmake -S "$tmp/$target" -B "$tmp/$target/build" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
    cmake --build "$tmp/$target/build" >/dev/null
    "$tmp/$target/build/mint" >/dev/null
done
echo ok
