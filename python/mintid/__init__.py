# SPDX-License-Identifier: MIT
"""Unique, time-ordered identifiers in several formats, from libmintid.

    >>> import mintid
    >>> mintid.gen('uuidv7')                      # doctest: +SKIP
    '019ac2c4-5d7e-7b3a-9c41-3f0e8a6d2b17'

gen() and Generator mint from the host-wide generator by default: every
process of the host continues one strictly increasing sequence per format,
node id and epoch. See docs/python.md.
"""
from ._mintid import (
    ArgumentError,
    ArgumentTypeError,
    ClockError,
    Error,
    Exhausted,
    Forked,
    Generator,
    HostError,
    InvalidID,
    Timeout,
    UnknownFormat,
    __version__,
    convert,
    formats,
    gen,
    inspect,
    range,
)

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "ClockError",
    "Error",
    "Exhausted",
    "Forked",
    "Generator",
    "HostError",
    "InvalidID",
    "Timeout",
    "UnknownFormat",
    "__version__",
    "convert",
    "formats",
    "gen",
    "inspect",
    "range",
]
