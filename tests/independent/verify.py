#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cross-check the mintid command against the independent reference decoder.

Like refdecode.py, this was written from the resolved specification of the
seed formats (FORMATS.md, kept outside this repository at the time; the
format pages docs/formats/*.md now carry everything it said), not from the
C sources.  "The specification" below is that text.

Usage::

    python3 verify.py --mintid /path/to/mintid     # self-test, then mintid
    python3 verify.py --self-test-only             # only part (a)

Parts, in the order they run:

a. Self-test of refdecode.py against every test vector and every "must
   reject" string of the seed formats (tests/data/vectors.json, which must
   hold every vector of their pages in docs/formats), plus a few statements
   the specification makes about the layouts, such as lifetimes and text
   lengths.
b. ``mintid gen``: every generated ID (text, ``--as int``, ``--as hex``)
   must decode, be canonical, be unique, carry a timestamp within 10
   seconds of the current time, and strictly increase by integer value
   where the specification guarantees that (see STRICTLY_ORDERED for why
   uexky and caloriosa are not held to it unless --strict-order is
   given).  Adjacent IDs are also checked against each format's generation
   rules (counter +1, sequence reset, Ulid-Flake +n steps, ...).
c. ``mintid inspect --format F``: every key of every JSON object must equal
   what refdecode.py computes from the ID text, with no extra keys.  Other-
   case spellings, which the specification says decoders accept, are fed too.
d. ``mintid inspect`` without ``--format``: the guessed format must be
   right; a Ulid-Flake text is ambiguous and must be refused with status 1.
e. Invalid input: status 1, nothing on stdout for the invalid ID, and the
   JSON of a valid ID given alongside an invalid one is still printed.
   Every must-reject string of part (a) is also given to inspect.

The script exits 0 when everything agrees and 1 otherwise, after listing
the first mismatches.  It uses only the Python standard library.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field

# refdecode.py lives next to this script; make it importable from anywhere,
# and do not leave a __pycache__ directory behind in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refdecode as ref  # noqa: E402  (the path has to be set first)
from refdecode import DecodeError  # noqa: E402


# ---------------------------------------------------------------------------
# Collecting results.


class Report:
    """Collects check results so that every part can run and report.

    Failures are kept in the order they were found; the summary prints the
    first few of them and a count per section, which keeps the output
    readable when one bug makes thousands of lines mismatch.
    """

    def __init__(self) -> None:
        self.failures: list[tuple[str, str]] = []
        self.passed: dict[str, int] = {}
        self.notes: list[str] = []

    def ok(self, section: str) -> None:
        """Count one passed check in ``section``."""
        self.passed[section] = self.passed.get(section, 0) + 1

    def fail(self, section: str, message: str) -> None:
        """Record one failed check in ``section``."""
        self.failures.append((section, message))

    def check(self, condition: bool, section: str, message: str) -> bool:
        """Record a check; ``message`` describes the failure."""
        if condition:
            self.ok(section)
        else:
            self.fail(section, message)
        return condition

    def note(self, message: str) -> None:
        """Record something worth telling that is not a failure."""
        self.notes.append(message)

    def summary(self, limit: int) -> int:
        """Print the summary and return the process exit status."""
        for message in self.notes:
            print(f"note: {message}")
        sections = sorted(set(self.passed) | {s for s, _ in self.failures})
        for section in sections:
            bad = sum(1 for s, _ in self.failures if s == section)
            print(f"  {section:<28} {self.passed.get(section, 0):>6} passed"
                  f"  {bad:>6} failed")
        if not self.failures:
            print("OK: all checks passed")
            return 0
        print(f"FAILED: {len(self.failures)} check(s) failed; "
              f"the first {min(limit, len(self.failures))}:")
        for section, message in self.failures[:limit]:
            print(f"  [{section}] {message}")
        return 1


# ---------------------------------------------------------------------------
# Part (a): the self-test.  The test vectors, the strings every decoder must
# reject and the lenient spellings it must accept are data, kept beside the
# tests in tests/data/vectors.json; the format pages (docs/formats/*.md)
# carry the same vectors, and selftest_docs_coverage() checks that none of
# theirs is missing here.

DATA_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "data", "vectors.json")


@dataclass
class Vector:
    """One row of a test-vector table.

    Any of ``value``, ``text`` and ``hex`` may be missing; all given forms
    are checked in both directions.  ``fields`` may list only some fields
    (the tables abbreviate random80 with "…").
    """

    fmt: str
    value: int | None = None
    text: str | None = None
    hex: str | None = None
    fields: dict[str, int] = field(default_factory=dict)
    time: str | None = None          # expected RFC 3339 time of the ID
    epoch: int | None = None         # nanoflake epoch for ``time``
    source: str = ""


MAX42, MAX43, MAX41 = (1 << 42) - 1, (1 << 43) - 1, (1 << 41) - 1


def _vector(fmt: str, row: dict, source: str) -> Vector:
    """A Vector from one JSON object of the data file."""
    known = {"format", "int", "text", "hex", "fields", "time", "epoch", "source"}
    unknown = set(row) - known
    if unknown:
        raise ValueError(f"{DATA_PATH}: unknown key(s) {sorted(unknown)} in {row!r}")
    return Vector(fmt, row.get("int"), row.get("text"), row.get("hex"),
                  dict(row.get("fields", {})), row.get("time"), row.get("epoch"),
                  row.get("source", source))


def load_data(path: str = DATA_PATH):
    """Read the vectors, runs, rejects and accepts from the data file."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    vectors = [_vector(row["format"], row, "") for row in data["vectors"]]
    runs = []
    for run in data["monotonic_runs"]:
        ids = [_vector(run["format"], row, run["source"]) for row in run["ids"]]
        vectors += ids
        runs.append((run["format"], [(v.value, v.text) for v in ids]))
    rejects = {name: [(case["text"], case["why"]) for case in cases]
               for name, cases in data["rejects"].items()}
    accepts = [(a["format"], a["text"], a["int"], a["why"]) for a in data["accepts"]]
    rotation = data["uexky_before_rotation"]
    return vectors, runs, rejects, accepts, rotation


VECTORS, RUNS, REJECTS, ACCEPTS, UEXKY_ROTATION = load_data()


def _same(expected: object, actual: object) -> bool:
    """Equality that also requires the same JSON type (1 is not "1" or 1.0)."""
    return type(expected) is type(actual) and expected == actual


def _try(callable_, *args):
    """Call ``callable_``; return (result, None) or (None, error message)."""
    try:
        return callable_(*args), None
    except (DecodeError, ValueError, KeyError) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def selftest_vectors(rep: Report, covered: set[str]) -> None:
    """Check every test vector in every direction the table allows."""
    section = "a: vectors"
    for vec in VECTORS:
        fmt = ref.get_format(vec.fmt)
        label = f"{vec.fmt} {vec.text or vec.hex or vec.value} ({vec.source})"
        value = vec.value
        if value is None and vec.hex is not None:
            value, err = _try(fmt.decode_hex, vec.hex)
            if not rep.check(err is None, section, f"{label}: hex does not decode: {err}"):
                continue
        covered.update(s for s in (vec.text, vec.hex) if s)
        covered.add(str(value))
        covered.update(str(v) for v in vec.fields.values())
        if vec.epoch is not None:
            covered.add(str(vec.epoch))
        # Text form, both directions.
        if vec.text is not None:
            got, err = _try(fmt.decode_text, vec.text)
            rep.check(got == value, section,
                      f"{label}: decode_text gave {got} ({err}), expected {value}")
            got, err = _try(fmt.encode_text, value)
            rep.check(got == vec.text, section,
                      f"{label}: encode_text gave {got!r} ({err}), expected {vec.text!r}")
        # Hex form, both directions.
        if vec.hex is not None:
            got, err = _try(fmt.decode_hex, vec.hex)
            rep.check(got == value, section,
                      f"{label}: decode_hex gave {got} ({err}), expected {value}")
            got, err = _try(fmt.encode_hex, value)
            rep.check(got == vec.hex, section,
                      f"{label}: encode_hex gave {got!r} ({err}), expected {vec.hex!r}")
        # Decimal form of the 64-bit formats, both directions.
        if fmt.bits == 64:
            got, err = _try(fmt.decode_int, str(value))
            rep.check(got == value, section,
                      f"{label}: decode_int gave {got} ({err}), expected {value}")
        # Fields (only the ones the table gives).
        if vec.fields:
            got = fmt.fields(value)
            for key, expected in vec.fields.items():
                rep.check(got.get(key) == expected, section,
                          f"{label}: field {key} = {got.get(key)}, expected {expected}")
        # Time, through the inspect dictionary.
        if vec.time is not None and vec.text is not None:
            got, err = _try(fmt.inspect_dict, vec.text, vec.epoch)
            rep.check(got is not None and got["time"] == vec.time, section,
                      f"{label}: time {got and got['time']} ({err}), expected {vec.time}")


def selftest_special(rep: Report, covered: set[str]) -> None:
    """Vector checks that a single table row cannot express."""
    section = "a: vectors"
    uexky = ref.get_format("uexky")
    # The uexky spec example also gives the base64 digits before rotation.
    rot = UEXKY_ROTATION
    before = ref._encode_digits(rot["int"], uexky.ALPHABET)
    covered.add(rot["digits"])
    rep.check(before == rot["digits"], section,
              f"uexky: base64 before rotation {before!r}, expected {rot['digits']!r}")
    rep.check(uexky.rotate_for_display(before) == rot["text"], section,
              f"uexky: rotating {before!r} does not give {rot['text']!r}")

    # The Ulid-Flake monotonic runs: one millisecond, randomness rising by
    # 1..255 per ID (the default entropy_size of one byte).
    for name, run in RUNS:
        fmt = ref.get_format(name)
        parts = [fmt.fields(fmt.decode_text(t)) for _, t in run]
        rep.check(len({p["timestamp"] for p in parts}) == 1, section,
                  f"{name} run: not all in one millisecond")
        steps = [b["randomness"] - a["randomness"] for a, b in zip(parts, parts[1:])]
        rep.check(all(1 <= s <= 255 for s in steps), section,
                  f"{name} run: randomness steps {steps} not all in 1..255")


def selftest_rejects_and_accepts(rep: Report, covered: set[str]) -> None:
    """Every must-reject string is rejected; lenient-but-valid forms decode."""
    section = "a: rejects"
    for name, cases in REJECTS.items():
        fmt = ref.get_format(name)
        for text, why in cases:
            covered.add(text)
            value, _ = _try(fmt.decode_inspect_input, text)
            rep.check(value is None, section,
                      f"{name}: {text!r} ({why}) was accepted as {value}")
    # The decimal and hex decoders (for `gen --as int|hex`) are strict too:
    # no signs, spaces, separators, prefixes or non-ASCII digits, the exact
    # hex width, and nothing at or above the format's value limit.
    for name in ("uexky", "ulid-flake", "caloriosa", "nanoflake"):
        fmt = ref.get_format(name)
        for text in ("", "-1", "+1", " 1", "1_0", "\uff11", "1" * 21,
                     str(fmt.value_limit)):
            value, _ = _try(fmt.decode_int, text)
            rep.check(value is None, section,
                      f"{name}: decimal {text!r} was accepted as {value}")
        bad_hex = ["", "0" * 15, "0" * 17, "0x" + "0" * 14, "0" * 15 + "g",
                   "0" * 15 + " "]
        if fmt.value_limit < 1 << 64:
            bad_hex.append(format(fmt.value_limit, "016x"))
        for text in bad_hex:
            value, _ = _try(fmt.decode_hex, text)
            rep.check(value is None, section,
                      f"{name}: hex {text!r} was accepted as {value}")
    scru = ref.get_format("scru160")
    for text in ("0" * 39, "0" * 41, "0" * 39 + "g", "0x" + "0" * 38):
        value, _ = _try(scru.decode_hex, text)
        rep.check(value is None, section, f"scru160: hex {text!r} was accepted as {value}")
    section = "a: lenient accepts"
    for name, text, expected, why in ACCEPTS:
        value, err = _try(ref.get_format(name).decode_inspect_input, text)
        rep.check(value == expected, section,
                  f"{name}: {text!r} ({why}) decoded to {value} ({err}), expected {expected}")
        rep.check(not ref.get_format(name).is_canonical_text(text), section,
                  f"{name}: {text!r} ({why}) is wrongly considered canonical")
    # Case-sensitive formats must not fold case.
    value, _ = _try(ref.get_format("caloriosa").decode_text, "B5JIKCVNEND")
    rep.check(value != 9309868322384951297, section,
              "caloriosa: decoding ignored case")
    value, _ = _try(ref.get_format("uexky").decode_text, "XINAs8qbH")
    rep.check(value != 11093174944930914, section, "uexky: decoding ignored case")
    # The stricter caloriosa device-name check.
    cal = ref.get_format("caloriosa")
    rep.check(not cal.is_valid_device_name("katjjMQN"), section,
              "caloriosa: 'katjjMQN' wrongly counted as a valid device name")
    rep.check(cal.is_valid_device_name("b5JikCvNEnD"), section,
              "caloriosa: 'b5JikCvNEnD' not counted as a valid device name")


def selftest_layout_statements(rep: Report) -> None:
    """Statements the specification makes that follow from the layouts."""
    section = "a: layout statements"
    t = ref.rfc3339_ms
    uexky = ref.get_format("uexky")
    rep.check(ref.UEXKY_EPOCH_MS == 1519862400000, section, "uexky epoch")
    rep.check(ref.ULID_FLAKE_EPOCH_MS == 1704067200000, section, "ulid-flake epoch")
    rep.check(ref.CALORIOSA_EPOCH_MS == 1483228800000, section, "caloriosa epoch")
    # uexky text: 9 characters before 2020-05-04T08:44:36.736Z, 10 after.
    # The length is ceil(bitlen / 6) (moving two characters does not change
    # it), and the 10th digit is needed from value 2^54, i.e. timestamp 2^36.
    boundary = 1 << 36
    rep.check(t(ref.UEXKY_EPOCH_MS + boundary) == "2020-05-04T08:44:36.736Z", section,
              "uexky: the 10-character boundary is not 2020-05-04T08:44:36.736Z")
    rep.check(len(uexky.encode_text(((boundary - 1) << 18) | 0x3FFFF)) == 9, section,
              "uexky: last timestamp before the boundary is not 9 characters")
    rep.check(len(uexky.encode_text(boundary << 18)) == 10, section,
              "uexky: first timestamp at the boundary is not 10 characters")
    rep.check(t(ref.UEXKY_EPOCH_MS + MAX42).startswith("2157-07-13"), section,
              "uexky: lifetime does not end 2157-07-13")
    rep.check(t(ref.ULID_FLAKE_EPOCH_MS + MAX43) == "2302-09-27T15:10:22.207Z", section,
              "ulid-flake: lifetime does not end 2302-09-27T15:10:22.207Z")
    rep.check(t(ref.CALORIOSA_EPOCH_MS + MAX41).startswith("2086-09-07"), section,
              "caloriosa: lifetime does not end 2086-09-07")
    # Every valid device name is exactly 11 characters.
    rep.check(62 ** 10 < 1 << 63 and 1 << 64 < 62 ** 11, section,
              "caloriosa: 62^10 < 2^63 <= v < 2^64 < 62^11 does not hold")
    cal = ref.get_format("caloriosa")
    rep.check(len(cal.encode_text(1 << 63)) == 11 and
              len(cal.encode_text((1 << 64) - 1)) == 11, section,
              "caloriosa: device names are not always 11 characters")
    # The fields of the largest values are all-ones, so the field masks
    # cover the layouts without gaps at the top (the vectors cover the rest).
    rep.check(cal.fields((1 << 64) - 1) == dict(timestamp=MAX41, random=4095,
                                                increment=1023), section,
              "caloriosa: fields of 2^64-1 are not all-ones")
    scal = ref.get_format("ulid-flake-scalable")
    rep.check(scal.fields((1 << 63) - 1) == dict(timestamp=MAX43, randomness=0x7FFF,
                                                 scalability=31), section,
              "ulid-flake-scalable: fields of 2^63-1 are not all-ones")
    # Nanoflake: at most 13 base36 characters.
    rep.check(len(ref.encode_text("nanoflake", (1 << 63) - 1)) == 13, section,
              "nanoflake: the largest value is not 13 characters")


def selftest_time_format(rep: Report) -> None:
    """Compare the calendar code with ``datetime`` where both work."""
    section = "a: time format"
    rng = random.Random(20261122)        # fixed seed: reproducible samples
    samples = [0, -1, 1, 951782400000, 253402300799999, -62135596800000]
    samples += [rng.randrange(-62135596800000, 253402300800000) for _ in range(2000)]
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    for ms in samples:
        dt = epoch + datetime.timedelta(milliseconds=ms)
        expected = dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"
        # strftime does not zero-pad years below 1000 on every platform.
        expected = f"{dt.year:04d}" + expected[expected.index("-"):]
        rep.check(ref.rfc3339_ms(ms) == expected, section,
                  f"rfc3339_ms({ms}) = {ref.rfc3339_ms(ms)!r}, expected {expected!r}")
    rep.check(ref.rfc3339_ms(1795309323456) == "2026-11-22T01:02:03.456Z", section,
              "rfc3339_ms of the brief's example is wrong")


def selftest_roundtrip(rep: Report) -> None:
    """Random values survive encode/decode in every form."""
    section = "a: round trip"
    rng = random.Random(1)
    for name in ref.FORMAT_NAMES:
        fmt = ref.get_format(name)
        for _ in range(500):
            value = rng.randrange(fmt.value_limit)
            text = fmt.encode_text(value)
            try:
                ok = (fmt.decode_text(text) == value and fmt.is_canonical_text(text)
                      and fmt.decode_hex(fmt.encode_hex(value)) == value
                      and (fmt.bits != 64
                           or fmt.decode_int(fmt.encode_int(value)) == value))
            except DecodeError:
                ok = False
            rep.check(ok, section, f"{name}: value {value} does not round-trip")
            # The inspect dictionary must show the same canonical forms.
            shown = fmt.inspect_dict_for_value(value)
            rep.check(shown["text"] == text and shown["hex"] == fmt.encode_hex(value),
                      section, f"{name}: inspect forms differ for value {value}")


# The format pages whose test vectors the data file must hold.
DOCS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "docs", "formats")
DOC_PAGES = ("uexky", "scru160", "ulid-flake", "caloriosa", "nanoflake")


def _vector_lines(lines: list[str], whole: bool):
    """The lines of a text that hold test vectors, with their numbers.

    Those are the table rows and every paragraph that says what a decoder
    "must reject"; with ``whole`` false, only the "## Test vectors" section
    is read (a format page has tables of other things too).
    """
    inside = whole
    in_reject = False
    for number, line in enumerate(lines, 1):
        if not whole and line.startswith("## "):
            inside = line.strip() == "## Test vectors"
        if not inside:
            continue
        if "must reject" in line:
            in_reject = True
        elif not line.strip():
            in_reject = False
        if line.startswith("|") or in_reject:
            yield number, line


def _check_coverage(rep: Report, section: str, name: str, lines: list[str],
                    covered: set[str], whole: bool) -> None:
    """Every vector in ``lines`` must be one the self-test used.

    Back-quoted strings count ("`0`×32" style repetitions and tokens with
    spaces, like the letter list `I L O U`, are not strings to decode), and
    so does every integer of 6 or more digits in a table row.
    """
    for number, line in _vector_lines(lines, whole):
        for match in re.finditer(r"`([^`]*)`(×)?", line):
            token, repeated = match.group(1), match.group(2)
            if repeated or " " in token or not token:
                continue
            rep.check(token in covered, section,
                      f"{name} line {number}: `{token}` is not in the self-test")
        if line.startswith("|"):
            plain = re.sub(r"`[^`]*`", " ", line)
            for match in re.finditer(r"(?<![\d…^])\d{6,}", plain):
                rep.check(match.group(0) in covered, section,
                          f"{name} line {number}: {match.group(0)} is not in the self-test")


def selftest_docs_coverage(rep: Report, covered: set[str]) -> None:
    """Every vector on the seed formats' pages is in the data file.

    The pages (docs/formats/*.md) are the formats' reference; this keeps
    them and tests/data/vectors.json in step, so that a vector added to or
    changed on a page without the data file (or the other way round) fails.
    """
    section = "a: docs coverage"
    for page in DOC_PAGES:
        path = os.path.join(DOCS_DIR, page + ".md")
        try:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError as exc:
            rep.fail(section, f"cannot read {path}: {exc}")
            continue
        found = sum(1 for _ in _vector_lines(lines, whole=False))
        rep.check(found > 0, section, f"{path}: no test vectors found")
        _check_coverage(rep, section, f"docs/formats/{page}.md", lines, covered, whole=False)


def selftest_spec_coverage(rep: Report, covered: set[str], spec_path: str | None) -> None:
    """With --spec, every vector of that specification text is checked too."""
    if spec_path is None:
        return
    section = "a: spec coverage"
    try:
        with open(spec_path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        rep.fail(section, f"cannot read {spec_path}: {exc}")
        return
    _check_coverage(rep, section, os.path.basename(spec_path), lines, covered, whole=True)


def self_test(rep: Report, spec_path: str | None) -> None:
    """Part (a)."""
    covered: set[str] = set()
    selftest_vectors(rep, covered)
    selftest_special(rep, covered)
    selftest_rejects_and_accepts(rep, covered)
    selftest_layout_statements(rep)
    selftest_time_format(rep)
    selftest_roundtrip(rep)
    selftest_docs_coverage(rep, covered)
    selftest_spec_coverage(rep, covered, spec_path)


# ---------------------------------------------------------------------------
# Running mintid.


@dataclass
class Result:
    """The outcome of one mintid run."""

    command: str
    status: int | None          # None when the program could not be run
    stdout: str = ""
    stderr: str = ""
    error: str = ""             # why it could not be run, if it could not


def run_mintid(mintid: str, args: list[str], stdin: str | None = None,
               timeout: float = 120.0) -> Result:
    """Run mintid with ``args`` and capture its output as UTF-8 text."""
    command = shlex.join([mintid] + args) + (" < (stdin)" if stdin is not None else "")
    try:
        proc = subprocess.run([mintid] + args, capture_output=True, timeout=timeout,
                              input=None if stdin is None else stdin.encode("utf-8"),
                              stdin=subprocess.DEVNULL if stdin is None else None)
    except (OSError, subprocess.SubprocessError) as exc:
        return Result(command, None, error=f"{type(exc).__name__}: {exc}")
    try:
        stdout = proc.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Result(command, proc.returncode, error=f"stdout is not UTF-8: {exc}")
    return Result(command, proc.returncode, stdout,
                  proc.stderr.decode("utf-8", errors="replace"))


def split_lines(rep: Report, section: str, result: Result) -> list[str]:
    """Split stdout into lines, checking that it is clean line-based output."""
    text = result.stdout
    if text == "":
        return []
    rep.check(text.endswith("\n"), section,
              f"{result.command}: output does not end with a newline")
    rep.check("\r" not in text, section, f"{result.command}: output contains CR")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def ran_ok(rep: Report, section: str, result: Result) -> bool:
    """Check that a run that should succeed exited with status 0."""
    if result.status is None or result.error:
        rep.fail(section, f"{result.command}: could not run: {result.error}")
        return False
    return rep.check(result.status == 0, section,
                     f"{result.command}: exit status {result.status}, stderr: "
                     f"{result.stderr.strip()[:300]!r}")


def now_ms() -> int:
    """The current Unix time in milliseconds."""
    return time.time_ns() // 1_000_000


# ---------------------------------------------------------------------------
# Part (b): generation.


@dataclass
class GenRun:
    """One configuration of `mintid gen` to test."""

    fmt: str
    args: list[str] = field(default_factory=list)
    epoch: int | None = None            # nanoflake epoch given with --epoch
    expect: dict[str, int] = field(default_factory=dict)  # fixed field values

    @property
    def label(self) -> str:
        return " ".join([self.fmt] + self.args)

    @property
    def inspect_args(self) -> list[str]:
        """Options inspect needs to read these IDs back (the same epoch)."""
        return ["--epoch", str(self.epoch)] if self.epoch is not None else []


GEN_RUNS = [
    GenRun("uexky"),
    GenRun("scru160"),
    GenRun("ulid-flake"),
    GenRun("ulid-flake-scalable", ["--node", "31"], expect={"scalability": 31}),
    GenRun("caloriosa"),
    # Without --epoch the documented default epoch 1288834974657 applies.
    GenRun("nanoflake"),
    GenRun("nanoflake", ["--node", "1023", "--epoch", "1420070400000"],
           epoch=1420070400000, expect={"generator": 1023}),
]

TIME_TOLERANCE_MS = 10_000


def parse_generated(fmt: ref.IdFormat, form: str, line: str) -> int:
    """Decode one line of `mintid gen` output and insist it is canonical."""
    if form == "text":
        value = fmt.decode_text(line)
        canonical = fmt.encode_text(value)
    elif form == "int":
        value = fmt.decode_int(line)
        canonical = fmt.encode_int(value)
    else:
        value = fmt.decode_hex(line)
        canonical = fmt.encode_hex(value)
    if line != canonical:
        raise DecodeError(f"not canonical (canonical form is {canonical!r})")
    fmt.check_generated(value)
    return value


# Formats that the specification guarantees to come out of one generator
# strictly increasing by integer value (by the 160-bit value for SCRU160).
#
# uexky and caloriosa are deliberately left out.  In caloriosa the 12 fresh
# random bits per ID sit *above* the increment (bits 21-10 against 9-0), so
# two IDs of one millisecond are ordered by chance.  In uexky the sequence
# "wraps 0..511 continuously" and a millisecond only ends early when the
# sequence comes back to the value it started the millisecond with; a
# millisecond that starts at, say, 300 runs 300..511 and then 0..299, and
# the value drops at the wrap.  A correct generator therefore cannot promise
# strict integer order for these two; verify.py checks instead what the
# specification does promise (timestamps never go back, the counter goes +1
# per ID, and (timestamp, counter) pairs never repeat).  --strict-order asks for
# strict integer order for every format anyway.
STRICTLY_ORDERED = frozenset({"scru160", "ulid-flake", "ulid-flake-scalable", "nanoflake"})


def generation_rule_problem(fmt_name: str, prev: dict[str, int],
                            cur: dict[str, int]) -> str | None:
    """Check one pair of consecutive IDs against the generation rules.

    ``prev`` and ``cur`` are the fields of two IDs printed one after the
    other by one generator.  Returns a description of the broken rule, or
    None.  The first ID of a run is never checked on its own, because the
    state a fresh generator starts from is not specified.
    """
    same_ms = cur["timestamp"] == prev["timestamp"]
    if cur["timestamp"] < prev["timestamp"]:
        # No format lets the timestamp go backwards within one generator
        # (SCRU160 keeps the larger timestamp; the others wait or fail).
        return "timestamp went backwards"
    if fmt_name == "uexky":
        # "The sequence counter wraps 0..511 continuously."
        if cur["sequence"] != (prev["sequence"] + 1) % 512:
            return f"sequence {prev['sequence']} -> {cur['sequence']}, expected +1 mod 512"
    elif fmt_name == "caloriosa":
        # "Increment +1 per ID, wrapping 0..1023."
        if cur["increment"] != (prev["increment"] + 1) % 1024:
            return f"increment {prev['increment']} -> {cur['increment']}, expected +1 mod 1024"
    elif fmt_name == "scru160":
        # Same (or earlier) clock: counter + 1; new millisecond: a fresh
        # 15-bit random counter (the MAY-options are off by default).
        if same_ms and cur["counter"] != prev["counter"] + 1:
            return f"counter {prev['counter']} -> {cur['counter']} in one ms, expected +1"
        if not same_ms and cur["counter"] >= 1 << 15:
            return f"counter {cur['counter']} at a new ms is not a 15-bit value"
    elif fmt_name in ("ulid-flake", "ulid-flake-scalable"):
        # Same millisecond: randomness + n, n in 1..255 (entropy_size 1).
        step = cur["randomness"] - prev["randomness"]
        if same_ms and not 1 <= step <= 255:
            return f"randomness step {step} in one ms, expected 1..255"
    elif fmt_name == "nanoflake":
        # Same millisecond: sequence + 1; new millisecond: sequence 0.
        if same_ms and cur["sequence"] != prev["sequence"] + 1:
            return f"sequence {prev['sequence']} -> {cur['sequence']} in one ms, expected +1"
        if not same_ms and cur["sequence"] != 0:
            return f"sequence {cur['sequence']} at a new ms, expected 0"
    return None


# Formats whose (timestamp, counter) pair must never repeat, with the name
# of the counter field (the specification: "mintid must not repeat" the pair).
PAIR_UNIQUE = {"uexky": "sequence", "caloriosa": "increment"}


def check_generated_ids(rep: Report, run: GenRun, form: str, lines: list[str],
                        count: int, started: int, finished: int,
                        strict_order: bool) -> list[str]:
    """Part (b) checks on one batch of `mintid gen` output.

    Returns the lines that decoded, for the inspect checks.
    """
    section = f"b: gen {run.fmt}"
    fmt = ref.get_format(run.fmt)
    where = f"gen {run.label} --as {form}"
    rep.check(len(lines) == count, section,
              f"{where}: {len(lines)} lines, expected {count}")
    epoch = fmt.resolve_epoch(run.epoch)
    # (line number, value, line, fields) of every line that decoded.
    decoded: list[tuple[int, int, str, dict[str, int]]] = []
    for number, line in enumerate(lines, 1):
        try:
            value = parse_generated(fmt, form, line)
        except DecodeError as exc:
            rep.fail(section, f"{where}: line {number} {line!r}: {exc}")
            continue
        parts = fmt.fields(value)
        for key, expected in run.expect.items():
            rep.check(parts[key] == expected, section,
                      f"{where}: line {number} {line!r}: {key} = {parts[key]}, "
                      f"expected {expected}")
        unix_ms = epoch + parts["timestamp"]
        rep.check(started - TIME_TOLERANCE_MS <= unix_ms <= finished + TIME_TOLERANCE_MS,
                  section,
                  f"{where}: line {number} {line!r}: time {ref.rfc3339_ms(unix_ms)} "
                  f"is not within 10 s of the run "
                  f"({ref.rfc3339_ms(started)}..{ref.rfc3339_ms(finished)})")
        decoded.append((number, value, line, parts))

    # Uniqueness by integer value (the 160-bit value for SCRU160).
    seen: dict[int, int] = {}
    for number, value, line, _ in decoded:
        if value in seen:
            rep.fail(section, f"{where}: line {number} {line!r} repeats line {seen[value]}")
        else:
            seen[value] = number
    rep.check(len(seen) == len(decoded), section, f"{where}: IDs are not unique")

    # uexky and caloriosa: the (timestamp, counter) pair is unique too, so
    # random bits cannot be what keeps two IDs apart.
    counter = PAIR_UNIQUE.get(run.fmt)
    if counter:
        pairs: dict[tuple[int, int], int] = {}
        for number, _, line, parts in decoded:
            key = (parts["timestamp"], parts[counter])
            if key in pairs:
                rep.fail(section, f"{where}: line {number} {line!r} repeats the "
                                  f"(timestamp, {counter}) of line {pairs[key]}")
            else:
                pairs[key] = number
        rep.check(len(pairs) == len(decoded), section,
                  f"{where}: (timestamp, {counter}) pairs are not unique")

    # Strict increase by integer value, where the specification guarantees it.
    if strict_order or run.fmt in STRICTLY_ORDERED:
        increasing = True
        for (n1, v1, l1, _), (n2, v2, l2, _) in zip(decoded, decoded[1:]):
            if not v1 < v2:
                increasing = False
                rep.fail(section, f"{where}: line {n2} {l2!r} is not greater than "
                                  f"line {n1} {l1!r}")
        rep.check(increasing, section, f"{where}: IDs are not strictly increasing")

    # The per-format generation rules, on pairs of adjacent lines.
    section_rules = f"b: gen rules {run.fmt}"
    for (n1, _, l1, p1), (n2, _, l2, p2) in zip(decoded, decoded[1:]):
        if n2 != n1 + 1:
            continue            # a line in between did not decode
        problem = generation_rule_problem(run.fmt, p1, p2)
        rep.check(problem is None, section_rules,
                  f"{where}: lines {n1} {l1!r} -> {n2} {l2!r}: {problem}")
    return [line for _, _, line, _ in decoded]


def part_b(rep: Report, mintid: str, count: int, timeout: float,
           strict_order: bool = False) -> dict[tuple[int, str], list[str]]:
    """Run every generation configuration in every output form.

    Returns the decoded lines keyed by (index into GEN_RUNS, form), for the
    inspect checks of parts c–e.
    """
    batches: dict[tuple[int, str], list[str]] = {}
    for index, run in enumerate(GEN_RUNS):
        fmt = ref.get_format(run.fmt)
        forms = ["text", "hex"] + (["int"] if fmt.bits == 64 else [])
        for form in forms:
            args = ["gen", run.fmt, "-n", str(count)]
            if form != "text":
                args += ["--as", form]
            args += run.args
            started = now_ms()
            result = run_mintid(mintid, args, timeout=timeout)
            finished = now_ms()
            section = f"b: gen {run.fmt}"
            if not ran_ok(rep, section, result):
                continue
            lines = split_lines(rep, section, result)
            batches[(index, form)] = check_generated_ids(
                rep, run, form, lines, count, started, finished, strict_order)
    return batches


# ---------------------------------------------------------------------------
# Parts (c) and (d): inspect.


def parse_json_object(line: str) -> dict:
    """Parse one JSON object strictly: no duplicate keys, no NaN/Infinity."""

    def no_duplicates(pairs):
        keys = [key for key, _ in pairs]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            raise ValueError(f"duplicate key(s) {duplicates}")
        return dict(pairs)

    def no_constants(name):
        raise ValueError(f"non-standard JSON constant {name}")

    obj = json.loads(line, object_pairs_hook=no_duplicates, parse_constant=no_constants)
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    return obj


def compare_json(expected: dict, actual: dict) -> list[str]:
    """List the differences between expected and actual inspect objects.

    Values must match in JSON type as well (``"5"`` is not ``5``), and keys
    that are not expected are differences too.
    """
    problems = []
    for key, want in expected.items():
        if key not in actual:
            problems.append(f"missing key {key!r} (expected {want!r})")
        elif not _same(want, actual[key]):
            problems.append(f"{key!r}: got {actual[key]!r}, expected {want!r}")
    for key in actual:
        if key not in expected:
            problems.append(f"unexpected extra key {key!r} = {actual[key]!r}")
    return problems


def check_inspect(rep: Report, section: str, mintid: str, fmt_name: str,
                  inputs: list[str], epoch: int | None, timeout: float,
                  give_format: bool = True, extra_args: list[str] | None = None) -> None:
    """Feed ``inputs`` to inspect on stdin and compare every JSON object.

    ``fmt_name`` is the format the IDs really have; with ``give_format``
    false it is not passed, so mintid has to guess it.
    """
    if not inputs:
        rep.fail(section, f"no {fmt_name} IDs to inspect (generation failed)")
        return
    args = ["inspect"] + (["--format", fmt_name] if give_format else []) + (extra_args or [])
    result = run_mintid(mintid, args, stdin="".join(i + "\n" for i in inputs),
                        timeout=timeout)
    # A bad exit status is reported, but whatever was printed is still
    # compared: the per-line differences usually say more about the cause.
    if not ran_ok(rep, section, result) and result.status is None:
        return
    lines = split_lines(rep, section, result)
    rep.check(len(lines) == len(inputs), section,
              f"{result.command}: {len(lines)} output lines for {len(inputs)} IDs")
    for number, (given, line) in enumerate(zip(inputs, lines), 1):
        expected = ref.inspect_dict(fmt_name, given, epoch)
        try:
            actual = parse_json_object(line)
        except ValueError as exc:
            rep.fail(section, f"{result.command}: line {number} for {given!r} is not "
                              f"a JSON object ({exc}): {line[:200]!r}")
            continue
        if not give_format:
            rep.check(actual.get("format") == fmt_name, section,
                      f"{result.command}: {given!r} guessed as {actual.get('format')!r}, "
                      f"expected {fmt_name!r}")
        problems = compare_json(expected, actual)
        rep.check(not problems, section,
                  f"{result.command}: line {number} for {given!r}: " + "; ".join(problems))


def case_variants(fmt_name: str, ids: list[str]) -> list[str]:
    """Other-case spellings the specification says decoders must accept."""
    if fmt_name in ("scru160", "ulid-flake", "ulid-flake-scalable"):
        return [i.lower() for i in ids]
    if fmt_name == "nanoflake":
        return [i.upper() for i in ids]
    return []


def part_c(rep: Report, mintid: str, batches, timeout: float) -> None:
    """Inspect every generated ID with --format and compare every key."""
    for index, run in enumerate(GEN_RUNS):
        section = f"c: inspect {run.fmt}"
        ids = batches.get((index, "text"), [])
        check_inspect(rep, section, mintid, run.fmt, ids, run.epoch, timeout,
                      extra_args=run.inspect_args)
        if run.fmt == "scru160":
            # SCRU160's hex form is one of its two text forms.
            check_inspect(rep, section, mintid, run.fmt, batches.get((index, "hex"), []),
                          run.epoch, timeout, extra_args=run.inspect_args)
        # Decoding is case-insensitive for these formats (the specification); the
        # JSON must still show the canonical text.  A sample is enough.
        variants = case_variants(run.fmt, ids[:200])
        if run.fmt == "scru160":
            variants += [h.upper() for h in batches.get((index, "hex"), [])[:200]]
        if variants:
            check_inspect(rep, f"c: inspect {run.fmt} (case)", mintid, run.fmt,
                          variants, run.epoch, timeout, extra_args=run.inspect_args)


def part_d(rep: Report, mintid: str, batches, timeout: float) -> None:
    """Inspect without --format: guessing, and the Ulid-Flake ambiguity."""
    for index, run in enumerate(GEN_RUNS):
        # Guessing is checked for the formats with a distinctive text form;
        # the nanoflake IDs are those made with the default epoch, so that
        # the unix_ms of the guessed result can be compared as well.
        if run.fmt in ("uexky", "scru160", "caloriosa") or (
                run.fmt == "nanoflake" and run.epoch is None):
            section = f"d: guess {run.fmt}"
            check_inspect(rep, section, mintid, run.fmt, batches.get((index, "text"), []),
                          run.epoch, timeout, give_format=False)
            if run.fmt == "scru160":
                check_inspect(rep, section, mintid, run.fmt,
                              batches.get((index, "hex"), []), run.epoch, timeout,
                              give_format=False)
    # A Ulid-Flake text cannot say whether it is stand-alone or scalable.
    section = "d: ulid ambiguity"
    for index, run in enumerate(GEN_RUNS):
        if not run.fmt.startswith("ulid-flake"):
            continue
        ids = batches.get((index, "text"), [])
        if not ids:
            rep.fail(section, f"no {run.fmt} IDs to test (generation failed)")
            continue
        result = run_mintid(mintid, ["inspect", ids[0]], timeout=timeout)
        rep.check(result.status == 1, section,
                  f"{result.command}: exit status {result.status} {result.error}, "
                  f"expected 1 (ambiguous ulid-flake / ulid-flake-scalable)")
        rep.check(result.stderr.strip() != "", section,
                  f"{result.command}: no message on stderr for the ambiguous ID")
        rep.check(result.stdout == "", section,
                  f"{result.command}: printed {result.stdout[:200]!r} for an ambiguous ID")


# ---------------------------------------------------------------------------
# Part (e): invalid input.


def expect_rejected(rep: Report, section: str, mintid: str, args: list[str],
                    timeout: float) -> None:
    """The command must exit with status 1 and print nothing on stdout."""
    result = run_mintid(mintid, args, timeout=timeout)
    rep.check(result.status == 1, section,
              f"{result.command}: exit status {result.status} {result.error}, expected 1")
    rep.check(result.stdout == "", section,
              f"{result.command}: printed {result.stdout[:200]!r}, expected nothing")


def part_e(rep: Report, mintid: str, batches, timeout: float) -> None:
    """Invalid IDs: status 1, and valid IDs given alongside still print."""
    section = "e: invalid"
    expect_rejected(rep, section, mintid,
                    ["inspect", "--format", "ulid-flake", "8000000000000"], timeout)
    # A valid and an invalid ID together, in both orders.
    index = next(i for i, r in enumerate(GEN_RUNS) if r.fmt == "ulid-flake")
    ids = batches.get((index, "text"), [])
    if not ids:
        rep.fail(section, "no ulid-flake IDs for the mixed test (generation failed)")
    else:
        valid = ids[0]
        expected = ref.inspect_dict("ulid-flake", valid)
        for order in ([valid, "8000000000000"], ["8000000000000", valid]):
            result = run_mintid(mintid, ["inspect", "--format", "ulid-flake"] + order,
                                timeout=timeout)
            rep.check(result.status == 1, section,
                      f"{result.command}: exit status {result.status} {result.error}, "
                      f"expected 1")
            lines = split_lines(rep, section, result)
            if not rep.check(len(lines) == 1, section,
                             f"{result.command}: {len(lines)} output lines, expected "
                             f"exactly the valid ID's JSON"):
                continue
            try:
                problems = compare_json(expected, parse_json_object(lines[0]))
            except ValueError as exc:
                problems = [f"not a JSON object ({exc})"]
            rep.check(not problems, section,
                      f"{result.command}: valid ID's JSON: " + "; ".join(problems))
    # Every must-reject string of part (a), given on the command line.
    # (None of them begins with '-', so none can be taken for an option.)
    section = "e: must reject"
    for name, cases in REJECTS.items():
        for text, _why in cases:
            expect_rejected(rep, section, mintid, ["inspect", "--format", name, text],
                            timeout)


# ---------------------------------------------------------------------------
# Driver.


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Cross-check mintid against the independent reference decoder.")
    parser.add_argument("--mintid", help="path to the mintid program")
    parser.add_argument("--self-test-only", action="store_true",
                        help="only check refdecode.py against the test vectors (part a)")
    parser.add_argument("--spec", default=None,
                        help="a specification text with test-vector tables: check that "
                             "the self-test holds every vector of it too (the format "
                             "pages in docs/formats are always checked)")
    parser.add_argument("-n", "--count", type=int, default=3000,
                        help="IDs per `mintid gen` run (default 3000)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds allowed per mintid run (default 120)")
    parser.add_argument("--strict-order", action="store_true",
                        help="require strictly increasing integer values for uexky "
                             "and caloriosa too (the specification does not promise it)")
    parser.add_argument("--show", type=int, default=30,
                        help="how many failures to list (default 30)")
    args = parser.parse_args(argv)
    if not args.self_test_only and not args.mintid:
        parser.error("--mintid PATH is required (or use --self-test-only)")

    rep = Report()
    print("a: self-test of refdecode.py against the test vectors")
    self_test(rep, args.spec)
    if rep.failures:
        # Without a trustworthy reference, comparing mintid would mislead.
        print("the reference decoder fails its own self-test; mintid not checked")
        return rep.summary(args.show)
    if not args.self_test_only:
        mintid = args.mintid
        # A bare name is looked up on PATH by subprocess; if a file of that
        # name is in the current directory, the user almost surely meant it.
        if os.sep not in mintid:
            mintid = os.path.join(".", mintid) if os.path.exists(mintid) else mintid
        # Stop at once, with one clear message, if there is nothing to run;
        # otherwise every single check would fail with the same error.
        if shutil.which(mintid) is None:
            print(f"verify.py: cannot run {args.mintid!r}: not found or not executable",
                  file=sys.stderr)
            return 1
        print(f"b: mintid gen ({args.count} IDs per run)")
        batches = part_b(rep, mintid, args.count, args.timeout, args.strict_order)
        print("c: mintid inspect --format")
        part_c(rep, mintid, batches, args.timeout)
        print("d: mintid inspect (guessing)")
        part_d(rep, mintid, batches, args.timeout)
        print("e: mintid inspect (invalid input)")
        part_e(rep, mintid, batches, args.timeout)
    return rep.summary(args.show)


if __name__ == "__main__":
    sys.exit(main())
