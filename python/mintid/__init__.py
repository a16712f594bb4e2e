# SPDX-License-Identifier: MIT
"""Unique, time-ordered identifiers in several formats, from libmintid.

    >>> import mintid
    >>> mintid.gen('uuidv7')                      # doctest: +SKIP
    '019ac2c4-5d7e-7b3a-9c41-3f0e8a6d2b17'
    >>> mintid.gen('uuidv7', form='uuid')         # doctest: +SKIP
    UUID('019ac2c4-5d7e-7b3b-8f52-6a1d0c3e9b48')

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
    "FormatName",
]


def __getattr__(name):
    """FormatName, the formats' names as a typing.Literal (the stub spells
    them out for type checkers), made from the library's table at the first
    use rather than at import, which typing would slow down."""
    if name == "FormatName":
        from typing import Literal

        global FormatName
        FormatName = Literal[tuple(formats())]
        return FormatName
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
