#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_install.sh - the library installs like a real one: a program finds it
# through pkg-config (shared and static) and through CMake's find_package, and
# the header compiles as C++ too.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name mintid.pc)")/..

cat >"$tmp/app.c" <<'C'
#include <mintid.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_gen *gen;
    mintid_id id, back;
    char text[MINTID_TEXT_MAX];
    if (fmt == NULL || mintid_gen_new(fmt, NULL, &gen) != MINTID_OK || mintid_gen_next(gen, &id) != MINTID_OK)
        return 1;
    int n = mintid_encode(fmt, MINTID_FORM_TEXT, &id, text, sizeof text);
    if (n <= 0 || mintid_decode(fmt, MINTID_FORM_TEXT, text, (size_t)n, &back, NULL) != MINTID_OK ||
        memcmp(&id, &back, sizeof id) != 0)
        return 2;
    mintid_gen_free(gen);
    puts(text);
    return 0;
}
C
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shared, through pkg-config
cc -std=c11 -Wall -Werror "$tmp/app.c" $(pkg-config --cflags --libs mintid) -o "$tmp/app_shared"
LD_LIBRARY_PATH=$libdir "$tmp/app_shared" >/dev/null
# static, through pkg-config --static
cc -std=c11 -Wall -Werror "$tmp/app.c" $(pkg-config --cflags mintid) "$libdir/libmintid.a" \
    $(pkg-config --static --libs mintid | sed 's/-lmintid//') -o "$tmp/app_static"
"$tmp/app_static" >/dev/null
# the header as C++
if command -v c++ >/dev/null; then
    cp "$tmp/app.c" "$tmp/app.cpp"
    c++ -Wall -Werror "$tmp/app.cpp" $(pkg-config --cflags mintid) "$libdir/libmintid.a" \
        $(pkg-config --static --libs mintid | sed 's/-lmintid//') -o "$tmp/app_cxx"
    "$tmp/app_cxx" >/dev/null
fi
# CMake's find_package
mkdir -p "$tmp/proj"
cp "$tmp/app.c" "$tmp/proj/app.c"
cat >"$tmp/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(mintid REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE mintid::mintid_static)
CM
cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/proj/build" >/dev/null
"$tmp/proj/build/app" >/dev/null
echo ok
