# SPDX-License-Identifier: MIT
"""The mintid Python module: `pip install --no-build-isolation ./python`, or
`make wheel` for a wheel (docs/python.md).

The library's sources (../src) are compiled into the extension itself, as
the PostgreSQL extension does, position-independent and with hidden
visibility: the module stands alone, needs no libmintid installed first,
and cannot clash with another copy of the library loaded in the same
process (the SQLite extension, say).
"""
import os
import re

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def rel(*parts):
    """A path from this directory, as setuptools wants its sources."""
    return os.path.relpath(os.path.join(ROOT, *parts), HERE)


def library_sources():
    src = os.path.join(ROOT, "src")
    if not os.path.isfile(os.path.join(ROOT, "include", "mintid.h")):
        raise SystemExit("mintid: the library's sources (../src, ../include) are not beside python/: "
                         "build from a checkout of the whole project")
    found = []
    for sub in ("", "formats"):
        for name in sorted(os.listdir(os.path.join(src, sub))):
            if name.endswith(".c"):
                found.append(rel("src", sub, name) if sub else rel("src", name))
    return found


def library_headers():
    return [rel("include", "mintid.h")] + sorted(
        rel("src", name) for name in os.listdir(os.path.join(ROOT, "src")) if name.endswith(".h"))


def version():
    """The version, set once in include/mintid.h."""
    with open(os.path.join(ROOT, "include", "mintid.h"), encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#define MINTID_VERSION_%s (\d+)" % p, text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


os.chdir(HERE)
# The name, description and the rest are in pyproject.toml; the version is made here.
setup(
    version=version(),
    packages=["mintid"],
    # The package's files are these; with pyproject.toml's [project],
    # setuptools would otherwise write mintid.egg-info into python/ on every
    # build to look for more.
    package_data={"mintid": ["py.typed", "*.pyi"]},
    include_package_data=False,
    ext_modules=[
        Extension(
            "mintid._mintid",
            sources=["mintid/_mintid.c"] + library_sources(),
            depends=library_headers(),
            include_dirs=[rel("include"), rel("src")],
            define_macros=[("_GNU_SOURCE", None)],
            extra_compile_args=["-std=c11", "-fvisibility=hidden"],
            libraries=["crypto", "pthread"],
        )
    ],
    zip_safe=False,
)
