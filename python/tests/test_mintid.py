# SPDX-License-Identifier: MIT
"""The mintid module: every function, its errors, threads, fork, the GIL
let go while a call waits, and a bounded fuzz pass of the decoders.

Run with the module on the path: PYTHONPATH=build/python python3 -m unittest
discover -s python/tests (ctest -R test_python does).
"""
import datetime
import importlib
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import typing
import unittest
import uuid

# Every host-wide state of these tests in a directory of their own, before
# the module makes its first generator.
HOST_DIR = tempfile.mkdtemp(prefix="mintid-python-test-")
os.environ["MINTID_HOST_DIR"] = HOST_DIR

import mintid  # noqa: E402

UTC = datetime.timezone.utc
FORMATS = [
    "uexky", "scru160", "ulid-flake", "ulid-flake-scalable", "caloriosa", "nanoflake", "uuidv7", "ulid",
    "scru128", "snowflake", "sonyflake", "ksuid", "typeid",
]


def tearDownModule():
    shutil.rmtree(HOST_DIR, ignore_errors=True)


def as_bytes(fmt, ids):
    return [mintid.convert(i, "bytes", fmt) for i in ids]


class TestGen(unittest.TestCase):
    def test_every_format(self):
        info = mintid.formats()
        for fmt in FORMATS:
            with self.subTest(fmt=fmt):
                one = mintid.gen(fmt)
                self.assertIsInstance(one, str)
                self.assertEqual(mintid.inspect(one, fmt)["format"], fmt)
                many = mintid.gen(fmt, 50)
                self.assertEqual(len(many), 50)
                raw = as_bytes(fmt, [one] + many)
                self.assertEqual(raw, sorted(raw))
                self.assertEqual(len(set(raw)), 51)
                value = mintid.gen(fmt, form="int")
                self.assertIsInstance(value, int)
                self.assertLess(value.bit_length(), info[fmt]["bits"] + 1)
                b = mintid.gen(fmt, form="bytes")
                self.assertIsInstance(b, bytes)
                self.assertEqual(len(b), info[fmt]["bits"] // 8)
                self.assertEqual(mintid.inspect(b, fmt)["format"], fmt)
                self.assertEqual(mintid.inspect(value, fmt)["format"], fmt)

    def test_forms_and_keywords(self):
        self.assertEqual(len(mintid.gen("uuidv7")), 36)
        self.assertEqual(len(mintid.gen("scru160", form="hex")), 40)
        self.assertEqual(len(mintid.gen("nanoflake", form="padded")), 13)
        self.assertEqual(mintid.gen("ulid", 0), [])
        self.assertEqual(len(mintid.gen("ulid", n=3)), 3)
        self.assertEqual(len(mintid.gen("ulid", None)), 26)
        ids = mintid.gen("nanoflake", 3, node=7, epoch="2015-01-01", form="int")
        for i in ids:
            d = mintid.inspect(i, "nanoflake", epoch=1420070400000)
            self.assertEqual(d["generator"], 7)
            self.assertLess(abs(d["time"] - datetime.datetime.now(UTC)), datetime.timedelta(days=1))
        self.assertEqual(mintid.inspect(mintid.gen("snowflake", epoch="discord"), "snowflake", epoch="discord")["time"]
                         .year, datetime.datetime.now(UTC).year)
        epoch = datetime.datetime(2020, 1, 1, tzinfo=UTC)
        d = mintid.inspect(mintid.gen("sonyflake", node=3, epoch=epoch), "sonyflake", epoch=epoch)
        self.assertEqual(d["machine"], 3)

    def test_argument_errors(self):
        cases = [
            (TypeError, lambda: mintid.gen(7)),
            (TypeError, lambda: mintid.gen()),
            (TypeError, lambda: mintid.gen("ulid", 1, 2)),
            (TypeError, lambda: mintid.gen("ulid", "3")),
            (TypeError, lambda: mintid.gen("ulid", True)),
            (TypeError, lambda: mintid.gen("ulid", 3, n=3)),
            (TypeError, lambda: mintid.gen("ulid", count=3)),
            (TypeError, lambda: mintid.gen("nanoflake", node="7")),
            (TypeError, lambda: mintid.gen("nanoflake", node=True)),
            (TypeError, lambda: mintid.gen("nanoflake", epoch=1.5)),
            (TypeError, lambda: mintid.gen("ulid", form=1)),
            (ValueError, lambda: mintid.gen("ulid", -1)),
            (ValueError, lambda: mintid.gen("nanoflake", node=1024)),
            (ValueError, lambda: mintid.gen("nanoflake", node=-1)),
            (ValueError, lambda: mintid.gen("nanoflake", node=2**70)),
            (ValueError, lambda: mintid.gen("uuidv7", node=1)),
            (ValueError, lambda: mintid.gen("uuidv7", epoch=0)),
            (ValueError, lambda: mintid.gen("nanoflake", epoch="yesterday")),
            (ValueError, lambda: mintid.gen("nanoflake", epoch=-5)),
            (ValueError, lambda: mintid.gen("nanoflake", epoch=datetime.datetime(2015, 1, 1))),
            (ValueError, lambda: mintid.gen("nanoflake", epoch=datetime.datetime(2999, 1, 1, tzinfo=UTC))),
            (ValueError, lambda: mintid.gen("ulid", form="padded")),
            (ValueError, lambda: mintid.gen("ulid", form="decimal")),
        ]
        for exc, call in cases:
            with self.assertRaises(exc):
                call()
        # format= by name, as the stub says; a keyword or form with a NUL in it is not the name before the NUL.
        self.assertEqual(len(mintid.gen(format="ulid")), 26)
        self.assertEqual(len(mintid.gen(format="ulid", n=2)), 2)
        for exc, call in [
            (TypeError, lambda: mintid.gen("ulid", format="ulid")),
            (TypeError, lambda: mintid.gen(n=2)),
            (TypeError, lambda: mintid.gen("ulid", **{"n\0x": 2})),
            (ValueError, lambda: mintid.gen("ulid", form="hex\0")),
            (ValueError, lambda: mintid.convert(mintid.gen("ulid"), "hex\0")),
            (ValueError, lambda: mintid.convert(mintid.gen("ulid"), "hex", "ulid", from_form="text\0x")),
            (ValueError, lambda: mintid.Generator("ulid", overflow="fail\0")),
        ]:
            with self.assertRaises(exc):
                call()
        # The name a person meant, as the library says it on every face.
        for name in ("uuid7", "uuid", "UUIDv7"):
            with self.assertRaises(mintid.UnknownFormat) as cm:
                mintid.gen(name)
            self.assertIsInstance(cm.exception, ValueError)
            self.assertIsInstance(cm.exception, mintid.ArgumentError)
            self.assertEqual(str(cm.exception), "unknown format '%s'; did you mean 'uuidv7'?" % name)
            self.assertEqual(cm.exception.status, -3)
        # A node id out of range is the caller's input: an ArgumentError, so a mintid.Error and a ValueError.
        with self.assertRaises(mintid.ArgumentError) as cm:
            mintid.gen("nanoflake", node=1024)
        self.assertIsInstance(cm.exception, mintid.Error)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertEqual(str(cm.exception), "node 1024 is out of range: nanoflake's node ids are 0..1023")
        self.assertEqual(cm.exception.status, -9)
        with self.assertRaisesRegex(mintid.ArgumentError, "^uuidv7 has no node id$"):
            mintid.gen("uuidv7", node=1)
        with self.assertRaisesRegex(mintid.ArgumentError, "^uuidv7 has a fixed epoch"):
            mintid.gen("uuidv7", epoch=0)
        with self.assertRaisesRegex(mintid.ArgumentError, "^epoch 'soon' is not a time: give Unix milliseconds"):
            mintid.gen("snowflake", epoch="soon")
        with self.assertRaisesRegex(mintid.ArgumentError, "^node '-1' is not a node id: give 0..1023, or host$"):
            mintid.gen("nanoflake", node=-1)
        with self.assertRaisesRegex(ValueError, "is naive"):
            mintid.gen("nanoflake", epoch=datetime.datetime(2015, 1, 1))
        with self.assertRaisesRegex(ValueError, "in the future"):
            mintid.gen("nanoflake", epoch=datetime.datetime(2999, 1, 1, tzinfo=UTC))

    @unittest.skipUnless(shutil.which("unshare") and os.getuid() == 0, "a UTS namespace needs root")
    def test_node_ordinal(self):
        """node='ordinal+N' is read by the library, as MINTID_NODE is: a
        StatefulSet pod's node id from its host name."""
        code = (
            "import socket, sys, mintid\n"
            "socket.sethostname(sys.argv[1])\n"
            "try:\n"
            "    i = mintid.gen('nanoflake', node='ordinal+2')\n"
            "    print(mintid.inspect(i, 'nanoflake')['generator'])\n"
            "except mintid.ArgumentError as e:\n"
            "    print(e)\n"
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

        def run(host):
            return subprocess.run(["unshare", "--uts", sys.executable, "-c", code, host], env=env,
                                  capture_output=True, text=True, check=True).stdout.strip()

        self.assertEqual(run("ids-3"), "5")
        self.assertIn("the host name 'ids' does not end in '-' and a number", run("ids"))
        with self.assertRaisesRegex(mintid.ArgumentError, "give ordinal, or ordinal[+]N"):
            mintid.gen("nanoflake", node="ordinal+x")


class TestGenerator(unittest.TestCase):
    def test_next_many_iteration(self):
        g = mintid.Generator("nanoflake", node=5, epoch=1288834974657)
        self.assertEqual((g.format, g.node, g.epoch, g.shared), ("nanoflake", 5, 1288834974657, True))
        self.assertTrue(g.path.startswith(HOST_DIR))
        self.assertIn("node=5", repr(g))
        ids = [g.next()] + g.next_many(1000) + [next(g)]
        for i, value in zip(range(3), g):
            ids.append(value)
        values = [mintid.convert(i, "int", "nanoflake") for i in ids]
        self.assertEqual(values, sorted(set(values)))
        self.assertEqual(mintid.Generator("ulid", form="int").next_many(2)[0].bit_length() <= 128, True)
        local = mintid.Generator("uuidv7", shared=False, form="bytes")
        self.assertIsNone(local.path)
        self.assertIsNone(local.node)
        self.assertEqual(len(local.next()), 16)

    def test_shares_the_host_sequence_with_gen(self):
        g = mintid.Generator("nanoflake")
        a = g.next()
        b = mintid.gen("nanoflake")
        c = g.next()
        values = [mintid.convert(i, "int", "nanoflake") for i in (a, b, c)]
        self.assertEqual(values, sorted(set(values)))

    def test_errors(self):
        with self.assertRaises(TypeError):
            mintid.Generator()
        with self.assertRaises(TypeError):
            mintid.Generator("ulid").next_many("3")
        with self.assertRaises(ValueError):
            mintid.Generator("ulid").next_many(-3)
        with self.assertRaises(ValueError):
            mintid.Generator("ulid", overflow="drop")
        with self.assertRaises(mintid.UnknownFormat):
            mintid.Generator("nope")
        # A sequence used up with overflow='fail': sonyflake mints 256 per 10 ms unit.
        g = mintid.Generator("sonyflake", shared=False, overflow="fail")
        with self.assertRaises(mintid.Exhausted) as cm:
            g.next_many(5000)
        self.assertEqual(str(cm.exception), "sonyflake: sequence exhausted for this millisecond")
        self.assertEqual(cm.exception.status, -11)
        # A host-wide state where there can be none.
        os.environ["MINTID_HOST_DIR"] = os.path.join(HOST_DIR, "missing")
        try:
            with self.assertRaisesRegex(mintid.HostError, "missing: .*No such file or directory"):
                mintid.Generator("ulid")
            self.assertEqual(len(mintid.Generator("ulid", shared=False).next()), 26)
        finally:
            os.environ["MINTID_HOST_DIR"] = HOST_DIR

    def test_exception_classes(self):
        # One class per class of the library's statuses, finer ones below it: every error is a mintid.Error.
        for cls, base in [
            (mintid.ArgumentError, mintid.Error), (mintid.ArgumentError, ValueError),
            (mintid.InvalidID, mintid.ArgumentError), (mintid.UnknownFormat, mintid.ArgumentError),
            (mintid.ArgumentTypeError, mintid.Error), (mintid.ArgumentTypeError, TypeError),
            (mintid.ClockError, mintid.Error), (mintid.Timeout, mintid.ClockError),
            (mintid.Exhausted, mintid.Error), (mintid.HostError, mintid.Error), (mintid.Forked, mintid.Error),
        ]:
            self.assertTrue(issubclass(cls, base), (cls, base))
        for cls in (mintid.ClockError, mintid.Exhausted, mintid.HostError, mintid.Forked):
            self.assertFalse(issubclass(cls, ValueError), cls)
        # The environment's words in the library's sentence.
        os.environ["MINTID_NODE"] = "5000"
        try:
            with self.assertRaisesRegex(mintid.Error, "^MINTID_NODE: node 5000 is out of range"):
                mintid.Generator("nanoflake", shared=False)
        finally:
            del os.environ["MINTID_NODE"]


class TestInspect(unittest.TestCase):
    def test_vector(self):
        want = {
            "format": "nanoflake", "text": "1c49kkphl4ow", "hex": "0271065ac1000000", "int": 175928847298985984,
            "unix_ms": 1462015105796, "time": datetime.datetime(2016, 4, 30, 11, 18, 25, 796000, tzinfo=UTC),
            "generator": 0, "sequence": 0,
        }
        self.assertEqual(mintid.inspect("175928847298985984", "nanoflake", epoch=1420070400000), want)
        self.assertEqual(mintid.inspect(175928847298985984, "nanoflake", epoch="2015-01-01"), want)
        self.assertEqual(mintid.inspect("1c49kkphl4ow", epoch=1420070400000), want)
        self.assertEqual(mintid.inspect(bytes.fromhex("0271065ac1000000"), "nanoflake", epoch=1420070400000), want)
        self.assertEqual(list(mintid.inspect("1c49kkphl4ow", epoch=1420070400000)), list(want))

    def test_wide_and_prefixed(self):
        d = mintid.inspect("05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51")
        self.assertEqual(d["format"], "scru160")
        self.assertEqual(d["hex"], "017c083c130732153679e83c4fc65664e6a964a1")
        self.assertIsInstance(d["time"], datetime.datetime)
        self.assertEqual(d["time"].tzinfo, UTC)
        t = mintid.gen("typeid")
        d = mintid.inspect("user_" + t, "typeid")
        self.assertEqual((d["prefix"], d["text"]), ("user", "user_" + t))
        self.assertEqual(mintid.inspect(d["uuid"], "typeid")["prefix"], "")
        ksuid = mintid.inspect(mintid.gen("ksuid"))
        self.assertIsInstance(ksuid["payload"], str)  # a field shown in hex stays hex

    def test_invalid(self):
        cases = [
            ("8000000000000", "ulid-flake", "ulid-flake: '8000000000000' exceeds 7ZZZZZZZZZZZZ (2^63-1)"),
            ("", None, "an empty text is not an ID"),
            ("nope!", None, "'nope!' does not have the shape of any format's ID; give format= to read it as one"),
            ("01ARZ3NDEKTSV4RRFFQ69G5FA", "ulid", None),
            ("a\0b", None, "'a\\x00b' contains a NUL byte"),
            ("é", "ulid", None),
            ("\udcff", None, None),
            (b"\0" * 7, "nanoflake", "nanoflake: 7 bytes are no ID; a nanoflake is 8 bytes"),
            (b"\0" * 16, None, "16 bytes are ambiguous: they could be ulid, scru128 or typeid; say which with format="),
            (b"\0" * 5, None, "5 bytes are no ID of any format: an ID is 8, 16 or 20 bytes"),
            (-1, "nanoflake", None),
            (2**64, "nanoflake", None),
            (-1, "uuidv7", None),
            (2**128, "uuidv7", None),
            (0, "uuidv7", None),  # not version 7
            (10**5000, None, None),  # past int()'s digits for str(), and no ID
            (10**5000, "nanoflake", None),
            (-10**5000, "ulid", None),
            ("0" * 13, None, None),  # ulid-flake or ulid-flake-scalable
        ]
        for value, fmt, message in cases:
            with self.subTest(value=value, fmt=fmt):
                with self.assertRaises(mintid.InvalidID) as cm:
                    mintid.inspect(value, fmt)
                self.assertIsInstance(cm.exception.status, int)
                if message is not None:
                    self.assertEqual(str(cm.exception), message)
        with self.assertRaisesRegex(mintid.InvalidID,
                                    "ambiguous: it could be ulid-flake, ulid-flake-scalable or nanoflake"):
            mintid.inspect("0" * 13)
        with self.assertRaisesRegex(mintid.InvalidID, r"^ulid: .*'I'"):
            mintid.inspect("01ARZ3NDEKTSV4RRFFQ69G5FAI", "ulid")
        for bad in (None, 1.0, True, ["x"]):
            with self.assertRaises(TypeError):
                mintid.inspect(bad)
        with self.assertRaises(TypeError):
            mintid.inspect("x", 5)
        with self.assertRaises(ValueError):
            mintid.inspect("1c49kkphl4ow", "uuidv7", epoch=0)
        with self.assertRaises(ValueError):
            mintid.inspect("1c49kkphl4ow", epoch="yesterday")
        # Unix ms as the command reads them: at most 15 digits (year 33658).
        for epoch in (2**63 - 1, 10**15):
            with self.assertRaisesRegex(ValueError, "is not a time"):
                mintid.inspect("1c49kkphl4ow", "nanoflake", epoch=epoch)
            with self.assertRaisesRegex(ValueError, "is not a time"):
                mintid.range("snowflake", datetime.datetime(2026, 1, 1, tzinfo=UTC), epoch=epoch)

    def test_bytes_guessed(self):
        # Bytes without a format are read as the library guesses them (by their length, a recent time).
        ksuid = mintid.gen("ksuid")
        self.assertEqual(mintid.inspect(mintid.convert(ksuid, "bytes", "ksuid"))["text"], ksuid)
        self.assertEqual(mintid.convert(bytearray(mintid.convert(ksuid, "bytes", "ksuid")), "text"), ksuid)

    def test_epoch_without_format(self):
        # A name one format knows (snowflake's "discord", 2015-01-01), for an ID guessed as another.
        s = mintid.gen("nanoflake", epoch=1420070400000)
        d = mintid.inspect(s, epoch="discord")
        self.assertEqual(d["format"], "nanoflake")
        self.assertEqual(d["unix_ms"], mintid.inspect(s, "nanoflake", epoch=1420070400000)["unix_ms"])


class TestConvertRangeFormats(unittest.TestCase):
    def test_convert(self):
        self.assertEqual(mintid.convert("05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51", "hex"),
                         "017c083c130732153679e83c4fc65664e6a964a1")
        self.assertEqual(mintid.convert("1c49kkphl4ow", "int"), 175928847298985984)
        self.assertEqual(mintid.convert(175928847298985984, "text", "nanoflake"), "1c49kkphl4ow")
        self.assertEqual(mintid.convert("1c49kkphl4ow", "padded", "nanoflake"), "00001c49kkphl4ow"[-13:])
        self.assertEqual(mintid.convert("1c49kkphl4ow", "bytes"), bytes.fromhex("0271065ac1000000"))
        t = mintid.gen("typeid")
        self.assertEqual(mintid.convert("user_" + t, "text", "typeid"), "user_" + t)
        with self.assertRaisesRegex(mintid.ArgumentError,
                                    r"^to: ulid has no 'padded' form; its forms are text, hex, uuid; "
                                    r"or 'int' \(its value\) or 'bytes'$"):
            mintid.convert(mintid.gen("ulid"), "padded")
        with self.assertRaises(TypeError):
            mintid.convert("1c49kkphl4ow", 1)
        # A form the format does not recognise by itself: say which it is.
        with self.assertRaisesRegex(mintid.InvalidID, "wrong length"):
            mintid.convert("0b20f0b8c3ad7e3b", "text", "uexky")
        self.assertEqual(mintid.convert("0b20f0b8c3ad7e3b", "hex", "uexky", from_form="hex"), "0b20f0b8c3ad7e3b")
        with self.assertRaisesRegex(ValueError, "from_form needs format"):
            mintid.convert("0b20f0b8c3ad7e3b", "hex", from_form="hex")
        with self.assertRaisesRegex(ValueError, "^from_form: uexky has no 'uuid' form; its forms are text, int, hex$"):
            mintid.convert("0b20f0b8c3ad7e3b", "hex", "uexky", from_form="uuid")
        with self.assertRaisesRegex(ValueError, "from_form is for an ID given as a text"):
            mintid.convert(5, "hex", "uexky", from_form="hex")

    def test_round_trip_every_form(self):
        for fmt, info in mintid.formats().items():
            value = mintid.gen(fmt, form="int")
            for form in info["forms"]:
                with self.subTest(fmt=fmt, form=form):
                    other = mintid.convert(value, form, fmt)
                    from_form = form if isinstance(other, str) else None
                    self.assertEqual(mintid.convert(other, "int", fmt, from_form=from_form), value)
                    self.assertEqual(mintid.inspect(other, fmt, from_form=from_form)["hex"],
                                     mintid.convert(value, "hex", fmt))

    def test_range(self):
        start = datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
        lo, hi = mintid.range("nanoflake", start)
        self.assertEqual(mintid.inspect(lo, "nanoflake")["time"], start)
        self.assertEqual(mintid.inspect(hi, "nanoflake")["time"], start)
        self.assertLess(mintid.convert(lo, "int"), mintid.convert(hi, "int"))
        end = start + datetime.timedelta(hours=1)
        lo, hi = mintid.range("uuidv7", start, end, form="hex")
        self.assertEqual(mintid.inspect(hi, "uuidv7")["time"], end)
        t = mintid.gen("uuidv7", form="hex")
        now_lo, now_hi = mintid.range("uuidv7", datetime.datetime.now(UTC) - datetime.timedelta(seconds=5),
                                      datetime.datetime.now(UTC) + datetime.timedelta(seconds=5), form="hex")
        self.assertTrue(now_lo <= t <= now_hi)
        lo, hi = mintid.range("snowflake", start, epoch="discord", form="int")
        self.assertEqual(mintid.inspect(lo, "snowflake", epoch="discord")["time"], start)
        cet = datetime.timezone(datetime.timedelta(hours=1))
        self.assertEqual(mintid.range("ulid", start.astimezone(cet)), mintid.range("ulid", start))
        with self.assertRaisesRegex(ValueError, "before start"):
            mintid.range("ulid", end, start)
        with self.assertRaisesRegex(ValueError, "is naive"):
            mintid.range("ulid", datetime.datetime(2026, 1, 1))
        with self.assertRaisesRegex(ValueError, "uexky carries times from 2018-03-01T00:00:00.000Z"):
            mintid.range("uexky", datetime.datetime(2000, 1, 1, tzinfo=UTC))
        with self.assertRaises(TypeError):
            mintid.range("ulid", 1700000000000)

    def test_formats(self):
        info = mintid.formats()
        self.assertEqual(list(info), FORMATS)
        n = info["nanoflake"]
        self.assertEqual(n["layout"], [("sign", 1), ("timestamp", 41), ("generator", 10), ("sequence", 12)])
        self.assertEqual(n["forms"], ["text", "hex", "padded", "int", "bytes"])
        self.assertEqual((n["bits"], n["capacity_per_ms"], n["node_bits"]), (64, 4096, 10))
        self.assertEqual(n["epoch"], datetime.datetime(2010, 11, 4, 1, 42, 54, 657000, tzinfo=UTC))
        self.assertTrue(n["epoch_settable"])
        self.assertEqual(info["snowflake"]["epoch_names"]["discord"], 1420070400000)
        self.assertEqual(mintid.__version__.count("."), 2)


class TestUUID(unittest.TestCase):
    """form='uuid': a uuid.UUID for the formats whose library forms write the ID as a UUID."""

    HAVE = ["uuidv7", "ulid", "typeid"]  # uuidv7's text is the UUID; ulid and typeid have a 'uuid' form

    def test_gen_every_format(self):
        info = mintid.formats()
        self.assertEqual([f for f in FORMATS if "uuid" in info[f]["forms"]], self.HAVE)
        # Vectors: the ULID spec's example and a typeid's suffix, as the library writes their UUIDs.
        self.assertEqual(mintid.convert("01ARZ3NDEKTSV4RRFFQ69G5FAV", "uuid"),
                         uuid.UUID("01563e3a-b5d3-d676-4c61-efb99302bd5b"))
        self.assertEqual(mintid.convert("user_01h455vb4pex5vsknk084sn02q", "uuid"),
                         uuid.UUID("01890a5d-ac96-774b-bcce-b302099a8057"))
        for fmt in FORMATS:
            with self.subTest(fmt=fmt):
                if fmt not in self.HAVE:
                    sentence = "form: %s has no 'uuid' form; its forms are " % fmt
                    for call in (lambda: mintid.gen(fmt, form="uuid"), lambda: mintid.gen(fmt, 2, form="uuid"),
                                 lambda: mintid.Generator(fmt, form="uuid"),
                                 lambda: mintid.range(fmt, datetime.datetime.now(UTC), form="uuid")):
                        with self.assertRaises(mintid.ArgumentError) as cm:
                            call()
                        self.assertTrue(str(cm.exception).startswith(sentence), str(cm.exception))
                        self.assertEqual(cm.exception.status, -4)  # MINTID_EFORM
                    with self.assertRaisesRegex(mintid.ArgumentError, "^to: %s has no 'uuid' form" % fmt):
                        mintid.convert(mintid.gen(fmt), "uuid", fmt)
                    continue
                one = mintid.gen(fmt, form="uuid")
                self.assertIs(type(one), uuid.UUID)
                many = mintid.gen(fmt, 20, form="uuid")
                self.assertTrue(all(type(u) is uuid.UUID for u in many))
                self.assertEqual([one] + many, sorted(set([one] + many)))
                # The library's UUID string of the ID, read back as the same ID.
                self.assertEqual(one.hex, mintid.inspect(one, fmt)["hex"])
                self.assertEqual(mintid.convert(one, "uuid", fmt), one)
                self.assertEqual(mintid.convert(one, "int", fmt), one.int)
                self.assertEqual(mintid.convert(one, "bytes", fmt), one.bytes)
                self.assertEqual(mintid.convert(one.int, "uuid", fmt), one)
                text = mintid.convert(one, "text", fmt)
                self.assertEqual(mintid.convert(text, "uuid", fmt), one)
                if fmt == "uuidv7":
                    self.assertEqual(str(one), text)
                    self.assertEqual(one.version, 7)
                    self.assertEqual(mintid.inspect(one)["format"], "uuidv7")  # guessed, as its text is
                if fmt == "typeid":
                    self.assertEqual(str(one), mintid.inspect(text, fmt)["uuid"])
                    self.assertEqual(one.version, 7)  # a typeid minted here is a UUIDv7 too
                lo, hi = mintid.range(fmt, datetime.datetime(2026, 1, 2, tzinfo=UTC), form="uuid")
                self.assertEqual((lo.hex, hi.hex), tuple(mintid.range(fmt, datetime.datetime(2026, 1, 2, tzinfo=UTC),
                                                                      form="hex")))

    def test_generator(self):
        g = mintid.Generator("typeid", form="uuid")
        ids = [g.next()] + g.next_many(3) + [next(g)]
        self.assertTrue(all(type(u) is uuid.UUID and u.version == 7 for u in ids), ids)
        self.assertEqual(ids, sorted(set(ids)))
        self.assertIn("form='uuid'", repr(g))
        self.assertIs(type(mintid.Generator("uuidv7", shared=False, form="uuid").next()), uuid.UUID)
        # Generic in its IDs' type at run time too, as the stub says.
        self.assertEqual(typing.get_args(mintid.Generator[uuid.UUID]), (uuid.UUID,))
        self.assertIs(typing.get_origin(mintid.Generator[int]), mintid.Generator)

    def test_refused(self):
        self.assertEqual(str(self.refused(lambda: mintid.gen("uuidv7", form="uuid", prefix="user"))),
                         "prefix 'user': uuidv7 has no type prefix")
        self.assertEqual(str(self.refused(lambda: mintid.gen("typeid", form="uuid", prefix="user"))),
                         "prefix 'user': only typeid's text form carries a prefix, not its uuid form")
        # A uuid.UUID is read as a UUID of the format, or guessed as its text is.
        u = uuid.UUID("01890a5d-ac96-774b-bcce-b302099a8057")
        self.assertEqual(str(self.refused(lambda: mintid.inspect(u, "nanoflake"))),
                         "nanoflake has no 'uuid' form; its forms are text, int, hex, padded")
        self.assertEqual(str(self.refused(lambda: mintid.convert(u, "text", "ulid", from_form="uuid"))),
                         "from_form is for an ID given as a text, not as UUID")
        with self.assertRaisesRegex(mintid.InvalidID, "not a valid ID|shape"):
            mintid.inspect(uuid.UUID(int=5))
        with self.assertRaisesRegex(mintid.ArgumentTypeError, "^an ID is a str, bytes, int or uuid.UUID, not float$"):
            mintid.inspect(1.5)
        self.assertEqual(mintid.convert(u, "text", "typeid", prefix="user"), "user_01h455vb4pex5vsknk084sn02q")
        self.assertEqual(mintid.inspect(u)["format"], "uuidv7")

    def refused(self, call):
        with self.assertRaises(mintid.ArgumentError) as cm:
            call()
        return cm.exception

    def test_format_name(self):
        self.assertEqual(typing.get_args(mintid.FormatName), tuple(mintid.formats()))
        self.assertIn("FormatName", mintid.__all__)
        with self.assertRaises(AttributeError):
            mintid.NoSuchName


class TestPrefix(unittest.TestCase):
    """A typeid's type prefix, as the command's --prefix, the server's ?prefix= and SQL's gen_typeid('user')."""

    BAD = "prefix 'User': a typeid prefix is 1 to 63 of a-z and '_', starting and ending with a letter"

    def assertPrefixRefused(self, call, sentence):
        # The prefix is an argument, not an ID that does not read: ArgumentError, never InvalidID.
        with self.assertRaises(mintid.ArgumentError) as cm:
            call()
        self.assertNotIsInstance(cm.exception, mintid.InvalidID)
        self.assertEqual(str(cm.exception), sentence)
        self.assertEqual(cm.exception.status, -19)  # MINTID_EPREFIX

    def test_gen(self):
        one = mintid.gen("typeid", prefix="user")
        self.assertRegex(one, "^user_[0-7][0-9a-hjkmnp-tv-z]{25}$")
        d = mintid.inspect(one)  # guessed, and the prefix read back
        self.assertEqual((d["format"], d["prefix"], d["text"]), ("typeid", "user", one))
        many = mintid.gen("typeid", 3, prefix="user_account")
        self.assertEqual([i.rsplit("_", 1)[0] for i in many], ["user_account"] * 3)
        suffixes = [i.rsplit("_", 1)[1] for i in [one] + many]
        self.assertEqual(suffixes, sorted(set(suffixes)))  # one sequence, whatever the prefix
        self.assertEqual(len(mintid.gen("typeid", n=2, prefix="post")), 2)
        for none in ("", None):
            self.assertEqual(len(mintid.gen("typeid", prefix=none)), 26)
        self.assertEqual(len(mintid.gen("ulid", prefix=None)), 26)  # None is no prefix, for any format

    def test_gen_refused(self):
        self.assertPrefixRefused(lambda: mintid.gen("typeid", prefix="User"), self.BAD)
        self.assertPrefixRefused(lambda: mintid.gen("typeid", 2, prefix="x" * 64),
                                 "prefix '%s': a typeid prefix is 1 to 63 of a-z and '_', starting and ending "
                                 "with a letter" % ("x" * 64))
        self.assertPrefixRefused(lambda: mintid.gen("typeid", prefix="us\0er"),
                                 "prefix 'us\\x00er': a typeid prefix is 1 to 63 of a-z and '_', starting and "
                                 "ending with a letter")
        self.assertPrefixRefused(lambda: mintid.gen("ulid", prefix="user"), "prefix 'user': ulid has no type prefix")
        self.assertPrefixRefused(lambda: mintid.gen("typeid", prefix="user", form="uuid"),
                                 "prefix 'user': only typeid's text form carries a prefix, not its uuid form")
        self.assertPrefixRefused(lambda: mintid.gen("typeid", prefix="user", form="int"),
                                 "prefix 'user': only typeid's text form carries a prefix, not its int form")
        self.assertPrefixRefused(lambda: mintid.gen("typeid", prefix="user", form="bytes"),
                                 "prefix 'user': only typeid's text form carries a prefix, not its bytes form")
        # The library's sentence for a bad prefix comes first, whatever the form.
        self.assertPrefixRefused(lambda: mintid.gen("typeid", prefix="User", form="bytes"), self.BAD)
        for bad in (5, b"user", ["user"]):
            with self.assertRaisesRegex(mintid.ArgumentTypeError, "^prefix must be None or a str, not "):
                mintid.gen("typeid", prefix=bad)
        with self.assertRaises(TypeError):
            mintid.gen("typeid", 1, "user")  # keyword only

    def test_generator(self):
        g = mintid.Generator("typeid", prefix="user")
        self.assertEqual(g.prefix, "user")
        self.assertIn("prefix='user'", repr(g))
        ids = [g.next()] + g.next_many(3) + [next(g)]
        self.assertTrue(all(i.startswith("user_") and len(i) == 31 for i in ids), ids)
        self.assertEqual(ids, sorted(set(ids)))
        self.assertEqual(mintid.Generator("typeid", shared=False, prefix="post").next()[:5], "post_")
        self.assertEqual(mintid.Generator("typeid").prefix, "")
        self.assertNotIn("prefix", repr(mintid.Generator("typeid")))
        self.assertEqual(mintid.Generator("ulid").prefix, "")
        self.assertEqual(len(mintid.Generator("typeid", prefix="").next()), 26)
        self.assertPrefixRefused(lambda: mintid.Generator("typeid", prefix="User"), self.BAD)
        self.assertPrefixRefused(lambda: mintid.Generator("nanoflake", prefix="user"),
                                 "prefix 'user': nanoflake has no type prefix")
        self.assertPrefixRefused(lambda: mintid.Generator("typeid", prefix="user", form="uuid"),
                                 "prefix 'user': only typeid's text form carries a prefix, not its uuid form")
        with self.assertRaises(mintid.ArgumentTypeError):
            mintid.Generator("typeid", prefix=1)

    def test_convert(self):
        t = mintid.gen("typeid")
        uuid = mintid.convert(t, "uuid", "typeid")
        self.assertEqual(mintid.convert(t, "text", "typeid", prefix="user"), "user_" + t)
        self.assertEqual(mintid.convert(uuid, "text", "typeid", prefix="user"), "user_" + t)
        self.assertEqual(mintid.convert("user_" + t, "text", prefix="post"), "post_" + t)  # the format guessed
        self.assertEqual(mintid.convert("user_" + t, "text", "typeid", prefix="post"), "post_" + t)  # replaces it
        self.assertEqual(mintid.convert("user_" + t, "text", prefix=""), t)  # drops it
        self.assertEqual(mintid.convert("user_" + t, "text", prefix=None), "user_" + t)  # keeps it
        self.assertEqual(mintid.convert(mintid.convert(t, "bytes", "typeid"), "text", "typeid", prefix="user"),
                         "user_" + t)
        self.assertEqual(mintid.convert("user_" + t, "uuid"), uuid)
        self.assertPrefixRefused(lambda: mintid.convert(t, "text", "typeid", prefix="User"), self.BAD)
        self.assertPrefixRefused(lambda: mintid.convert(t, "uuid", "typeid", prefix="user"),
                                 "prefix 'user': only typeid's text form carries a prefix, not its uuid form")
        self.assertPrefixRefused(lambda: mintid.convert(t, "bytes", "typeid", prefix="user"),
                                 "prefix 'user': only typeid's text form carries a prefix, not its bytes form")
        self.assertPrefixRefused(lambda: mintid.convert("01ARZ3NDEKTSV4RRFFQ69G5FAV", "text", prefix="user"),
                                 "prefix 'user': ulid has no type prefix")
        # A bare UUID is guessed as a uuidv7, which has none: format= says it is a typeid's.
        self.assertPrefixRefused(lambda: mintid.convert(uuid, "text", prefix="user"),
                                 "prefix 'user': uuidv7 has no type prefix")
        with self.assertRaises(mintid.ArgumentTypeError):
            mintid.convert(t, "text", "typeid", prefix=1)
        # The ID is read first: one that does not read is an InvalidID, whatever the prefix.
        with self.assertRaises(mintid.InvalidID):
            mintid.convert("User_" + t, "text", "typeid", prefix="user")

    def test_range(self):
        start = datetime.datetime(2026, 1, 2, tzinfo=UTC)
        lo, hi = mintid.range("typeid", start, prefix="user")
        self.assertEqual((lo, hi), tuple("user_" + i for i in mintid.range("typeid", start)))
        self.assertEqual(mintid.inspect(lo)["time"], start)
        self.assertPrefixRefused(lambda: mintid.range("ulid", start, prefix="user"),
                                 "prefix 'user': ulid has no type prefix")
        self.assertPrefixRefused(lambda: mintid.range("typeid", start, form="uuid", prefix="user"),
                                 "prefix 'user': only typeid's text form carries a prefix, not its uuid form")


class TestConcurrency(unittest.TestCase):
    def test_gil_released_while_waiting(self):
        # sonyflake mints 256 IDs per 10 ms unit: 1500 IDs wait for at
        # least five units inside one call. With a switch interval longer
        # than the test, this thread never hands the GIL over between
        # bytecodes, so the counting thread (which gives it back at each
        # sleep(0)) moves on only if the call lets the GIL go.
        stop = threading.Event()
        count = [0]

        def spin():
            while not stop.is_set():
                count[0] += 1
                time.sleep(0)

        interval = sys.getswitchinterval()
        sys.setswitchinterval(1000)
        t = threading.Thread(target=spin)
        t.start()
        try:
            for call in (lambda: mintid.Generator("sonyflake", shared=False).next_many(1500),
                         lambda: mintid.gen("sonyflake", 1500),
                         lambda: [mintid.gen("sonyflake") for _ in range(1500)]):
                before = count[0]
                ids = call()
                after = count[0]
                self.assertEqual(len(ids), 1500)
                self.assertGreater(after, before)
        finally:
            stop.set()
            sys.setswitchinterval(interval)
            t.join()

    def test_threads_never_repeat(self):
        shared = mintid.Generator("nanoflake")
        local = mintid.Generator("nanoflake", node=9, shared=False)
        results = {}

        def work(k):
            results[k] = (shared.next_many(3000) + [shared.next() for _ in range(500)],
                          [local.next() for _ in range(2000)],
                          mintid.gen("nanoflake", 2000) + [mintid.gen("nanoflake") for _ in range(500)])

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 4)
        host, own = [], []
        for a, b, c in results.values():
            for ids in (a, b, c):
                values = [mintid.convert(i, "int", "nanoflake") for i in ids]
                self.assertEqual(values, sorted(set(values)))
            host += a + c
            own += b
        self.assertEqual(len(set(host)), 4 * 6000)
        self.assertEqual(len(set(own)), 4 * 2000)

    @unittest.skipUnless(hasattr(os, "fork"), "needs fork")
    def test_fork_never_repeats(self):
        g = mintid.Generator("nanoflake")
        local = mintid.Generator("nanoflake", node=3, shared=False)
        parent_ids = g.next_many(10) + mintid.gen("nanoflake", 10)
        go_r, go_w = os.pipe()
        out_r, out_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                os.close(go_w)
                os.close(out_r)
                os.read(go_r, 1)
                ids = g.next_many(20000) + mintid.gen("nanoflake", 20000)
                try:
                    local.next()
                    forked = "no error"
                except mintid.Forked as e:
                    forked = str(e)
                with os.fdopen(out_w, "w") as f:
                    f.write(forked + "\n" + "\n".join(ids) + "\n")
                status = 0
            finally:
                os._exit(status)
        os.close(go_r)
        os.close(out_w)
        os.write(go_w, b"x")
        parent_ids += mintid.gen("nanoflake", 20000) + g.next_many(20000)
        with os.fdopen(out_r) as f:
            lines = f.read().splitlines()
        _, status = os.waitpid(pid, 0)
        os.close(go_w)
        self.assertEqual(status, 0)
        self.assertIn("generator was inherited across fork()", lines[0])
        child_ids = lines[1:]
        self.assertEqual(len(child_ids), 40000)
        self.assertEqual(len(set(child_ids) | set(parent_ids)), len(child_ids) + len(parent_ids))
        self.assertIsInstance(local.next(), str)  # the parent goes on with its own

    @unittest.skipUnless(hasattr(os, "fork"), "needs fork")
    def test_fork_while_threads_mint(self):
        # Threads draw random bytes for uuidv7 while the main thread forks:
        # a lock a thread held at the fork (libcrypto's) stays held in the
        # child, where no thread will ever let it go. The child must mint
        # all the same, not hang holding the host-wide state's lock.
        stop = threading.Event()
        errors = []

        def work():
            try:
                while not stop.is_set():
                    mintid.gen("uuidv7", 64)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        hung = None
        try:
            for k in range(10):
                pid = os.fork()
                if pid == 0:
                    os._exit(0 if len(set(mintid.gen("uuidv7", 2000))) == 2000 else 1)
                # A hang guard only: a child that mints does so in milliseconds.
                for _ in range(3000):
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        self.assertEqual(status, 0)
                        break
                    time.sleep(0.01)
                else:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    hung = k
                    break
        finally:
            stop.set()
            for t in threads:
                t.join()
        self.assertIsNone(hung, "a child forked while threads minted hung")
        # A thread may wait out its limit where a slow machine (valgrind) holds the state long.
        self.assertEqual([e for e in errors if not isinstance(e, mintid.Timeout)], [])


def _subinterpreters():
    """CPython's API for running code in a sub-interpreter: (create, run_string, destroy), or None."""
    for name in ("_xxsubinterpreters", "_interpreters"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        run = getattr(module, "run_string", None) or getattr(module, "exec", None)
        return module.create, run, module.destroy
    return None


class TestSubinterpreter(unittest.TestCase):
    """Multi-phase initialisation: each interpreter has the module's own
    classes, type and generators, and one that ends frees them while the
    main interpreter goes on."""

    SCRIPT = """if True:
        import json, os
        import mintid
        out = {"error": id(mintid.Error), "generator": id(mintid.Generator)}
        out["ids"] = mintid.gen("nanoflake", 100) + mintid.Generator("nanoflake").next_many(100)
        out["year"] = mintid.inspect(out["ids"][0])["time"].year
        try:
            mintid.gen("nanoflake", node=1024)
        except mintid.ArgumentError as e:
            out["caught"] = str(e)
        try:
            mintid.inspect("0" * 13)
        except mintid.InvalidID as e:
            out["invalid"] = e.status
        with os.fdopen(%d, "w") as f:
            json.dump(out, f)
    """

    def run_in_subinterpreter(self):
        """The script's answer from a new sub-interpreter, destroyed before returning."""
        create, run, destroy = _subinterpreters()
        r, w = os.pipe()
        interp = create()
        try:
            run(interp, self.SCRIPT % w)
        finally:
            destroy(interp)
        with os.fdopen(r) as f:
            return json.load(f)

    @unittest.skipUnless(_subinterpreters(), "this Python has no sub-interpreter API (_xxsubinterpreters)")
    def test_own_state_per_interpreter(self):
        mine = mintid.gen("nanoflake", 100)
        for k in range(2):  # a second one after the first was destroyed, and its state freed
            with self.subTest(interpreter=k):
                got = self.run_in_subinterpreter()
                # Its own exception classes and type, not the main interpreter's.
                self.assertNotEqual(got["error"], id(mintid.Error))
                self.assertNotEqual(got["generator"], id(mintid.Generator))
                self.assertEqual(got["caught"], "node 1024 is out of range: nanoflake's node ids are 0..1023")
                self.assertEqual(got["invalid"], -18)
                self.assertEqual(got["year"], datetime.datetime.now(UTC).year)
                # It minted in the host-wide sequence that the main interpreter continues.
                after = mintid.gen("nanoflake", 100)
                self.assertEqual(len(set(mine) | set(got["ids"]) | set(after)), 400)
                values = [mintid.convert(i, "int", "nanoflake") for i in mine + got["ids"] + after]
                self.assertEqual(values, sorted(values))
                mine = after
        with self.assertRaises(mintid.ArgumentError):
            mintid.gen("nanoflake", node=1024)


class TestFuzz(unittest.TestCase):
    """Random and mutated input into the decoders: an answer, or an error of
    mintid (or TypeError/ValueError); never a crash or another exception."""

    def test_decoders(self):
        rng = random.Random(18)
        info = mintid.formats()
        alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_~\0é\udcff\U0001F600 "
        seeds = [mintid.gen(f) for f in FORMATS] + ["user_" + mintid.gen("typeid")]
        forms = ["text", "hex", "padded", "core", "uuid", "int", "bytes", "nope"]
        answered = 0
        for _ in range(20000):
            kind = rng.randrange(5)
            if kind == 0:
                value = "".join(rng.choice(alphabet) for _ in range(rng.randrange(45)))
            elif kind == 1:
                s = list(rng.choice(seeds))
                for _ in range(rng.randrange(1, 4)):
                    op = rng.randrange(3)
                    at = rng.randrange(len(s) + 1)
                    if op == 0 and s:
                        s[min(at, len(s) - 1)] = rng.choice(alphabet)
                    elif op == 1:
                        s.insert(at, rng.choice(alphabet))
                    elif s:
                        del s[min(at, len(s) - 1)]
                value = "".join(s)
            elif kind == 2:
                value = bytes(rng.randrange(256) for _ in range(rng.choice([0, 7, 8, 9, 16, 20, rng.randrange(24)])))
            elif kind == 3:
                value = rng.choice([rng.getrandbits(rng.randrange(1, 170)), -rng.getrandbits(64), 0, 2**63, 2**64 - 1])
            else:
                value = rng.choice([None, 1.5, [1], b"", bytearray(8), True])
            fmt = rng.choice(FORMATS + [None, None, "nope"])
            try:
                if rng.randrange(2):
                    d = mintid.inspect(value, fmt)
                    self.assertIn(d["format"], info)
                else:
                    out = mintid.convert(value, rng.choice(forms), fmt)
                    self.assertIsInstance(out, (str, int, bytes, uuid.UUID))
                answered += 1
            except (mintid.Error, TypeError, ValueError):
                pass
        self.assertGreater(answered, 100)


def mypy_python():
    """This interpreter if it has mypy, else Debian's of the same version
    with it (make deps installs python3-mypy there), which can import the
    module built here; None if neither has."""
    if importlib.util.find_spec("mypy"):
        return sys.executable
    want = "%d.%d" % sys.version_info[:2]
    for py in ("/usr/bin/python3",):
        if os.path.exists(py):
            run = subprocess.run([py, "-c", "import sys, mypy; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True)
            if run.returncode == 0 and run.stdout.strip() == want:
                return py
    return None


class TestStub(unittest.TestCase):
    # What mypy must say of each marked line of a program using the module
    # (a fragment of its note or error); every other line must type-check.
    USE = [
        ("s: str = mintid.gen('ulid')", None),
        ("reveal_type(mintid.gen('ulid'))", 'Revealed type is "builtins.str"'),
        ("reveal_type(mintid.gen('ulid', 10))", 'Revealed type is "builtins.list[builtins.str]"'),
        ("reveal_type(mintid.gen('ulid', form='int'))", 'Revealed type is "builtins.int"'),
        ("mintid.Generator('ulid').next_many(n=1)", 'error: Unexpected keyword argument "n"'),
        ("reveal_type(mintid.gen('typeid', 3, prefix='user'))", 'Revealed type is "builtins.list[builtins.str]"'),
        ("reveal_type(mintid.Generator('typeid', prefix='user').prefix)", 'Revealed type is "builtins.str"'),
        # Format names are a Literal of the table's: a misspelt one does not type-check.
        ("mintid.gen('nanoflak')", 'error: No overload variant of "gen" matches argument type "str"'),
        ("mintid.Generator('nanoflak', node=1)", 'error: No overload variant of "Generator" matches'),
        ("mintid.range('nanoflak', datetime.datetime.now(datetime.timezone.utc))", 'error: No overload variant'),
        ("mintid.inspect('1c49kkphl4ow', 'nanoflak')", 'error: Argument 2 to "inspect" has incompatible type'),
        ("name: mintid.FormatName = 'nanoflake'", None),
        ("mintid.gen(name, node=1)", None),
        # A Generator's IDs have the type its form= says.
        ("g = mintid.Generator('nanoflake', form='int')", None),
        ("reveal_type(g)", 'Revealed type is "mintid.Generator[builtins.int]"'),
        ("reveal_type(g.next())", 'Revealed type is "builtins.int"'),
        ("reveal_type(g.next_many(2))", 'Revealed type is "builtins.list[builtins.int]"'),
        ("reveal_type(next(g))", 'Revealed type is "builtins.int"'),
        ("t: str = g.next()", 'error: Incompatible types in assignment (expression has type "int", variable has '
                              'type "str")'),
        ("reveal_type(mintid.Generator('ulid').next())", 'Revealed type is "builtins.str"'),
        ("reveal_type(mintid.Generator('ksuid', form='bytes').next())", 'Revealed type is "builtins.bytes"'),
        ("u: mintid.Generator[uuid.UUID] = mintid.Generator('typeid', form='uuid')", None),
        # form='uuid': a uuid.UUID, for the formats that have it.
        ("reveal_type(mintid.gen('uuidv7', form='uuid'))", 'Revealed type is "uuid.UUID"'),
        ("reveal_type(mintid.gen('ulid', 2, form='uuid'))", 'Revealed type is "builtins.list[uuid.UUID]"'),
        ("reveal_type(mintid.convert('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'uuid'))", 'Revealed type is "uuid.UUID"'),
        ("mintid.gen('nanoflake', form='uuid')", 'error: No overload variant of "gen" matches'),
        ("mintid.inspect(mintid.gen('uuidv7', form='uuid'))", None),
    ]

    def test_stub_matches_the_module(self):
        py = mypy_python()
        self.assertIsNotNone(py, "no Python %d.%d here has mypy: make deps installs python3-mypy" %
                             sys.version_info[:2])
        here = os.path.dirname(os.path.abspath(__file__))
        # stubtest: every name of the stub is in the module, and as the stub says.
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        run = subprocess.run([py, "-m", "mypy.stubtest", "mintid", "--allowlist",
                              os.path.join(here, "stubtest_allowlist.txt")], env=env, capture_output=True,
                             text=True, cwd=HOST_DIR)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # What stubtest cannot see in a C function's signature: the types
        # docs/python.md promises, and next_many's n positional only. Every
        # format of the library's table type-checks; a misspelt one does not.
        head = ["import datetime", "import uuid", "import mintid"]
        lines = head + ["mintid.gen(%r)" % name for name in mintid.formats()] + [code for code, _ in self.USE]
        use = os.path.join(HOST_DIR, "use.py")
        with open(use, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        run = subprocess.run([py, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull, use],
                             env=env, capture_output=True, text=True, cwd=HOST_DIR)
        said = {}
        for line in run.stdout.splitlines():
            if line.startswith("use.py:") and ": note: Possible overload" not in line:
                number, text = line[len("use.py:"):].split(": ", 1)
                said.setdefault(int(number), []).append(text)
        offset = len(lines) - len(self.USE)
        for k, (code, want) in enumerate(self.USE):
            got = [t for t in said.pop(offset + k + 1, []) if not t.startswith("note:     def ")]
            with self.subTest(code=code):
                if want is None:
                    self.assertEqual(got, [])
                else:
                    self.assertTrue(any(want in t for t in got), "%s: %s" % (want, got))
        self.assertEqual(said, {}, run.stdout)  # nothing on the other lines: the table's names all type-check

    def test_stub_format_names(self):
        # The stub spells out the table's names, which a type checker cannot
        # ask the module for: they must be the library's, in its order.
        import ast

        stub = os.path.join(os.path.dirname(mintid.__file__), "__init__.pyi")
        with open(stub, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        literals = {}
        for node in tree.body:
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0] if isinstance(
                node, ast.Assign) else None
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Subscript) and \
                    isinstance(node.value.value, ast.Name) and node.value.value.id == "Literal":
                elts = node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) else [node.value.slice]
                literals[target.id] = [e.value for e in elts]
        info = mintid.formats()
        self.assertEqual(literals["FormatName"], list(info))
        self.assertEqual(literals["_UUIDFormat"], [f for f in info if "uuid" in info[f]["forms"]])


class TestDocs(unittest.TestCase):
    """The examples of docs/python.md run as written."""

    def test_examples(self):
        import doctest

        page = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
        with open(page, encoding="utf-8") as f:
            text = f.read()
        blocks, scripts, inside, current = [], [], None, []
        for line in text.splitlines():
            if line in ("```pycon", "```python"):
                inside, current = line[3:], []
            elif line.startswith("```") and inside:
                (blocks if inside == "pycon" else scripts).append("\n".join(current) + "\n")
                inside = None
            elif inside:
                current.append(line)
        self.assertGreater(len(blocks), 5)
        self.assertGreater(len(scripts), 1)
        for k, script in enumerate(scripts):
            exec(compile(script, "docs/python.md script %d" % (k + 1), "exec"), {"__name__": "docs"})
        parser = doctest.DocTestParser()
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        globs = {}
        for k, block in enumerate(blocks):
            test = parser.get_doctest(block, globs, "docs/python.md block %d" % (k + 1), page, 0)
            runner.run(test, out=sys.stderr.write, clear_globs=False)
            globs = test.globs  # a page is one session: later blocks use earlier names
        self.assertEqual(runner.summarize(verbose=False).failed, 0)


if __name__ == "__main__":
    unittest.main()
