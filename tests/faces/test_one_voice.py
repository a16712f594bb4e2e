#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One table of bad inputs, fed to every face of mintid.

Each row is one mistake a person makes (a misspelt format, a node id out of
range, an epoch that is no time, a bad type prefix, an ID with a wrong
character or length, an ID whose format cannot be told). The library says
what is wrong (tests/faces/voice_probe prints its class and sentence); each
face (a column: face_<name>.py beside this file) must refuse the input with
that sentence, word for word inside its own message, and with the code it
maps the sentence's class to (an exit status, an HTTP status, a RESP error,
a SQLSTATE, an exception class).

A face that has no way to take a kind of input says so with None, and only
for kinds it does not list in TAKES ("format", "node", "epoch", "prefix",
"id", and "guess" for an ID whose format is not named). A new face joins the table with one
module: NAME, TAKES, CODES, setup(ctx), teardown() and refuse(case).

    test_one_voice.py --build BUILD [--faces cli,http,resp,sqlite,python]
"""
import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent

CASES = [
    {"name": "unknown format", "kind": "format", "format": "uuid"},
    {"name": "misspelt format", "kind": "format", "format": "UUIDv7"},
    {"name": "node out of range", "kind": "node", "format": "nanoflake", "node": 1024},
    {"name": "bad epoch", "kind": "epoch", "format": "snowflake", "epoch": "soon"},
    {"name": "bad prefix", "kind": "prefix", "format": "typeid", "prefix": "User"},
    {"name": "wrong character", "kind": "id", "format": "ulid", "id": "01ARZ3NDEKTSV4RRFFQ69G5FAI"},
    {"name": "wrong length", "kind": "id", "format": "ulid", "id": "01ARZ3NDEKTSV4RRFFQ69G5FA"},
    {"name": "ambiguous", "kind": "id", "format": None, "id": "12345"},
]

ALL_FACES = ["cli", "http", "resp", "sqlite", "python", "node", "pg"]


def probe(build, case):
    """What the library says about the case: (class, sentence)."""
    kind = case["kind"]
    if kind == "format":
        args = ["format", case["format"]]
    elif kind == "node":
        args = ["node", case["format"], str(case["node"])]
    elif kind == "epoch":
        args = ["epoch", case["format"], case["epoch"]]
    elif kind == "prefix":
        args = ["prefix", case["format"], case["prefix"]]
    else:
        args = ["id", case["format"] or "-", case["id"]]
    out = subprocess.run([str(build / "tests" / "faces" / "voice_probe")] + args, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return out[0], out[1]


def takes_kind(case):
    """The kind a face lists in TAKES: "guess" for an ID without its format (some faces cannot guess)."""
    return "guess" if case["kind"] == "id" and case["format"] is None else case["kind"]


def expected_code(face, cls, case):
    """CODES maps a class to a code, or to {kind: code, "*": code} where a face answers a kind its own way
    (a kind as TAKES names it)."""
    code = face.CODES[cls]
    if isinstance(code, dict):
        return code.get(takes_kind(case), code["*"])
    return code


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, type=Path)
    ap.add_argument("--faces", default=",".join(f for f in ALL_FACES if f != "pg"))
    args = ap.parse_args()
    build = args.build.resolve()
    sys.path.insert(0, str(HERE))
    failures = []
    rows = {c["name"]: {} for c in CASES}
    said = {c["name"]: probe(build, c) for c in CASES}
    with tempfile.TemporaryDirectory(prefix="mintid-voice-") as tmp:
        for name in args.faces.split(","):
            face = importlib.import_module("face_" + name)
            ctx = types.SimpleNamespace(build=build, src=HERE.parent.parent, tmp=Path(tmp) / name,
                                        env=dict(os.environ, MINTID_HOST_DIR=str(Path(tmp) / name / "host")))
            (ctx.tmp / "host").mkdir(parents=True)
            ctx.env.pop("MINTID_NODE", None)
            face.setup(ctx)
            try:
                for case in CASES:
                    cls, sentence = said[case["name"]]
                    got = face.refuse(case)
                    if got is None:
                        if takes_kind(case) in face.TAKES:
                            failures.append(f"{name}: {case['name']}: the face takes {case['kind']} but gave nothing")
                        rows[case["name"]][name] = "n/a"
                        continue
                    message, code = got
                    want = expected_code(face, cls, case)
                    ok = sentence in message and code == want
                    rows[case["name"]][name] = "ok" if ok else "FAIL"
                    if sentence not in message:
                        failures.append(f"{name}: {case['name']}: the message\n    {message!r}\n  lacks the "
                                        f"library's sentence\n    {sentence!r}")
                    if code != want:
                        failures.append(f"{name}: {case['name']}: code {code!r}, expected {want!r} for class {cls}")
            finally:
                face.teardown()
    faces = args.faces.split(",")
    width = max(len(c["name"]) for c in CASES)
    print(f"{'':{width}}  " + "  ".join(f"{f:>6}" for f in faces))
    for c in CASES:
        print(f"{c['name']:{width}}  " + "  ".join(f"{rows[c['name']].get(f, '-'):>6}" for f in faces))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
