#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent reference decoder for mintid's six seed ID formats.

This module was written from the resolved specification of these formats
alone (FORMATS.md, kept outside this repository when it was written; the
format pages docs/formats/*.md now carry everything it said), without
reading any of the C sources, so that it can serve as an independent
cross-check of the C implementation.
It uses only the Python standard library and runs on Python 3.11.

Format names: ``uexky``, ``scru160``, ``ulid-flake``, ``ulid-flake-scalable``,
``caloriosa`` and ``nanoflake``.

For every format it can

* decode the canonical text form strictly (``decode_text``), rejecting
  everything the specification says a decoder must reject;
* decode the ``--as int`` and ``--as hex`` forms printed by ``mintid gen``
  (``decode_int``, ``decode_hex``);
* encode a value back into each form, which is how "canonical" is checked:
  a string is canonical when encoding its decoded value gives it back;
* split a value into its fields (``fields``);
* build the JSON object that ``mintid inspect`` is expected to print for an
  ID (``inspect_dict``).

Used as a script it prints that JSON object for each ID given::

    python3 refdecode.py FORMAT [--epoch MS] ID [ID ...]

Conventions follow the specification: bit 63 is the most significant bit of a
64-bit value, times are Unix milliseconds (UTC), and every multi-digit form
is written most significant digit first.
"""

from __future__ import annotations

import argparse
import calendar
import json
import sys

__all__ = [
    "DecodeError",
    "FORMAT_NAMES",
    "DEFAULT_NANOFLAKE_EPOCH_MS",
    "get_format",
    "decode_text",
    "decode_int",
    "decode_hex",
    "decode_inspect_input",
    "encode_text",
    "encode_int",
    "encode_hex",
    "fields",
    "inspect_dict",
    "rfc3339_ms",
]


class DecodeError(ValueError):
    """Raised when a string (or integer) is not a valid ID of a format."""


# ---------------------------------------------------------------------------
# Shared helpers: epochs, time formatting and positional digit codecs.


def _utc_midnight_ms(year: int, month: int, day: int) -> int:
    """Return the Unix milliseconds of midnight UTC on the given date.

    The format epochs are computed from the calendar dates that the specification
    states, instead of being typed in as long numbers, so that a typo in a
    magic constant cannot silently agree with the same typo in the C code.
    """
    return calendar.timegm((year, month, day, 0, 0, 0, 0, 0, 0)) * 1000


# Epochs of the formats, straight from the specification.
UEXKY_EPOCH_MS = _utc_midnight_ms(2018, 3, 1)       # 2018-03-01T00:00:00.000Z
SCRU160_EPOCH_MS = 0                                # plain Unix milliseconds
ULID_FLAKE_EPOCH_MS = _utc_midnight_ms(2024, 1, 1)  # 2024-01-01T00:00:00.000Z
CALORIOSA_EPOCH_MS = _utc_midnight_ms(2017, 1, 1)   # 2017-01-01T00:00:00.000Z
# Nanoflake has a user-chosen epoch; mintid's documented default is Twitter's.
DEFAULT_NANOFLAKE_EPOCH_MS = 1288834974657


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """Convert days since 1970-01-01 into a proleptic Gregorian (y, m, d).

    This is Howard Hinnant's "civil_from_days" algorithm.  It is used instead
    of ``datetime`` because ``datetime`` stops at year 9999, while a SCRU160
    timestamp (48 bits of Unix ms) or a nanoflake with a late epoch can go
    beyond that.  Python's floor division makes it correct for negative days
    as well.
    """
    days += 719468                      # shift the epoch to 0000-03-01
    era = days // 146097                # 400-year eras
    doe = days - era * 146097           # day of era, 0..146096
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153           # month, counted from March
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (1 if month <= 2 else 0)
    return year, month, day


def rfc3339_ms(unix_ms: int) -> str:
    """Format Unix milliseconds as RFC 3339 UTC with exactly 3 fraction digits.

    Example: ``2026-11-22T01:02:03.456Z``.  Years outside 0000..9999 cannot
    be written in RFC 3339; for them the year is printed with as many digits
    as it needs (and a leading ``-`` for years before 0).  That case does not
    arise for freshly generated IDs, which is all the cross-check compares.
    """
    days, rem = divmod(unix_ms, 86_400_000)
    hour, rem = divmod(rem, 3_600_000)
    minute, rem = divmod(rem, 60_000)
    second, milli = divmod(rem, 1000)
    year, month, day = _civil_from_days(days)
    year_text = f"{year:04d}" if year >= 0 else f"-{-year:04d}"
    return (f"{year_text}-{month:02d}-{day:02d}"
            f"T{hour:02d}:{minute:02d}:{second:02d}.{milli:03d}Z")


def _digit_table(alphabet: str, fold_case: bool) -> dict[str, int]:
    """Map each character of an alphabet to its digit value.

    When ``fold_case`` is true both ASCII cases of every letter are entered.
    Case folding is done here, on the (ASCII) alphabet, and never on the
    input with ``str.upper()``: ``str.upper()`` would turn some non-ASCII
    characters into ASCII letters (for example ``'\u017f'.upper() == 'S'``)
    and so would wrongly accept them.
    """
    assert alphabet.isascii() and len(set(alphabet)) == len(alphabet)
    table: dict[str, int] = {}
    for value, char in enumerate(alphabet):
        table[char] = value
        if fold_case:
            table[char.lower()] = value
            table[char.upper()] = value
    # Case folding must not make two alphabet characters collide.
    assert len(set(table.values())) == len(alphabet)
    return table


def _decode_digits(text: str, table: dict[str, int], base: int,
                   what: str) -> int:
    """Read ``text`` as a big-endian number in ``base`` using ``table``.

    Every character is looked up individually; anything not in the table
    (including whitespace, signs, underscores and non-ASCII look-alikes,
    which Python's own ``int()`` would accept) is an error.
    """
    value = 0
    for position, char in enumerate(text):
        digit = table.get(char)
        if digit is None:
            raise DecodeError(
                f"{what}: invalid character {char!r} at position {position}")
        value = value * base + digit
    return value


def _encode_digits(value: int, alphabet: str, min_length: int = 1) -> str:
    """Write a non-negative integer in the base given by ``alphabet``.

    The result has no leading zero digits except to reach ``min_length``.
    """
    if value < 0:
        raise ValueError("cannot encode a negative value")
    base = len(alphabet)
    digits = []
    while value:
        value, digit = divmod(value, base)
        digits.append(alphabet[digit])
    text = "".join(reversed(digits))
    return text.rjust(min_length, alphabet[0])


def _require_str(text: object, what: str) -> str:
    """Reject non-string input early with a DecodeError."""
    if not isinstance(text, str):
        raise DecodeError(f"{what}: expected a string, got {type(text).__name__}")
    return text


_DECIMAL_TABLE = _digit_table("0123456789", fold_case=False)
_HEX_TABLE = _digit_table("0123456789abcdef", fold_case=True)


# ---------------------------------------------------------------------------
# The formats.  Each class knows its bit layout and its text form; the base
# class supplies the forms common to all (decimal, hex) and builds the
# inspect JSON.


class IdFormat:
    """Base class for one ID format.

    Subclasses set the class attributes and implement ``decode_text``,
    ``encode_text`` and ``fields``.
    """

    name: str = ""
    bits: int = 64                  # width of the value: 64 or 160
    default_epoch_ms: int = 0       # added to the timestamp field
    epoch_configurable: bool = False
    # Upper bound (exclusive) of values the integer/hex decoders accept.
    value_limit: int = 1 << 64
    # Own fields that inspect prints as decimal strings instead of numbers.
    string_fields: frozenset[str] = frozenset()

    @property
    def hex_digits(self) -> int:
        """Number of hex digits of the fixed-width hex form."""
        return self.bits // 4

    # -- the canonical text form (format specific) --------------------------

    def decode_text(self, text: str) -> int:
        """Strictly decode the text form; raise DecodeError if invalid."""
        raise NotImplementedError

    def encode_text(self, value: int) -> str:
        """Encode a value in the canonical text form."""
        raise NotImplementedError

    def fields(self, value: int) -> dict[str, int]:
        """Split a value into ``timestamp`` plus the format's own fields.

        The own fields are returned under the names inspect uses for them.
        """
        raise NotImplementedError

    # -- checks -------------------------------------------------------------

    def check_value(self, value: int) -> int:
        """Check that an integer is in the range of this format's values."""
        if not isinstance(value, int) or isinstance(value, bool):
            raise DecodeError(f"{self.name}: value must be an integer")
        if not 0 <= value < self.value_limit:
            raise DecodeError(
                f"{self.name}: value {value} out of range 0..{self.value_limit - 1}")
        return value

    def check_generated(self, value: int) -> None:
        """Stricter check: could mintid have generated this value?

        The base rule is just the value range; formats with reserved bits
        or reserved values add to it.
        """
        self.check_value(value)

    def is_canonical_text(self, text: str) -> bool:
        """True when ``text`` decodes and is exactly its canonical encoding."""
        try:
            return self.encode_text(self.decode_text(text)) == text
        except DecodeError:
            return False

    # -- the decimal and hex forms (printed by `mintid gen --as int|hex`) --

    def decode_int(self, text: str) -> int:
        """Decode the unsigned decimal form (``--as int``, 64-bit formats).

        Only ASCII digits are accepted: no sign, no spaces, no underscores.
        Leading zeros are tolerated here; use ``encode_int`` to test that a
        string is the canonical form.
        """
        text = _require_str(text, self.name)
        if self.bits != 64:
            raise DecodeError(f"{self.name}: has no integer form")
        if not 1 <= len(text) <= 20:
            raise DecodeError(f"{self.name}: decimal form must have 1..20 digits")
        value = _decode_digits(text, _DECIMAL_TABLE, 10, self.name)
        return self.check_value(value)

    def encode_int(self, value: int) -> str:
        """Encode the canonical unsigned decimal form (64-bit formats)."""
        if self.bits != 64:
            raise ValueError(f"{self.name}: has no integer form")
        return str(self.check_value(value))

    def decode_hex(self, text: str) -> int:
        """Decode the fixed-width hex form, ignoring case.

        The width is 16 digits for the 64-bit formats and 40 for SCRU160.
        """
        text = _require_str(text, self.name)
        if len(text) != self.hex_digits:
            raise DecodeError(
                f"{self.name}: hex form must be exactly {self.hex_digits} digits, "
                f"got {len(text)}")
        value = _decode_digits(text, _HEX_TABLE, 16, self.name)
        return self.check_value(value)

    def encode_hex(self, value: int) -> str:
        """Encode the canonical hex form: lower case, zero padded."""
        return format(self.check_value(value), f"0{self.hex_digits}x")

    # -- inspect ----------------------------------------------------------

    def decode_inspect_input(self, text: str) -> int:
        """Decode a string as ``mintid inspect --format NAME`` reads it.

        For most formats that is the text form only; SCRU160 overrides this
        to accept its 40-digit hex form as well.
        """
        return self.decode_text(text)

    def resolve_epoch(self, epoch_ms: int | None) -> int:
        """Return the epoch to use, refusing an epoch for fixed-epoch formats."""
        if epoch_ms is None:
            return self.default_epoch_ms
        if not self.epoch_configurable:
            raise ValueError(f"{self.name}: the epoch is fixed and cannot be set")
        return epoch_ms

    def inspect_dict_for_value(self, value: int,
                               epoch_ms: int | None = None) -> dict:
        """Build the JSON object inspect should print for a value.

        Keys: ``format``, ``text`` (canonical), ``hex``, ``int`` (64-bit
        formats only, as a decimal string), ``unix_ms`` (epoch + timestamp),
        ``time`` (RFC 3339) and the format's own fields; the fields named in
        ``string_fields`` are decimal strings, all others JSON numbers.
        """
        self.check_value(value)
        parts = self.fields(value)
        unix_ms = self.resolve_epoch(epoch_ms) + parts.pop("timestamp")
        result: dict = {
            "format": self.name,
            "text": self.encode_text(value),
            "hex": self.encode_hex(value),
        }
        if self.bits == 64:
            result["int"] = str(value)
        result["unix_ms"] = unix_ms
        result["time"] = rfc3339_ms(unix_ms)
        for key, field_value in parts.items():
            result[key] = str(field_value) if key in self.string_fields else field_value
        return result

    def inspect_dict(self, text: str, epoch_ms: int | None = None) -> dict:
        """Build the expected inspect JSON object from an ID string."""
        return self.inspect_dict_for_value(self.decode_inspect_input(text), epoch_ms)


class Uexky(IdFormat):
    """uexky: 4 zero bits | 42-bit timestamp | 9-bit sequence | 9-bit random.

    Text: base64-like digits (value 0 = ``A``), unpadded, then the last two
    characters moved to the front.  mintid's canonical form is unpadded but
    at least 4 characters long (the decoder's minimum length).
    """

    name = "uexky"
    default_epoch_ms = UEXKY_EPOCH_MS
    value_limit = 1 << 60
    ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    _TABLE = _digit_table(ALPHABET, fold_case=False)   # case-sensitive
    MIN_LENGTH = 4
    MAX_LENGTH = 10

    @staticmethod
    def rotate_for_display(digits: str) -> str:
        """Move the last two characters of the base64 digits to the front."""
        return digits[-2:] + digits[:-2]

    @staticmethod
    def unrotate_display(text: str) -> str:
        """Undo ``rotate_for_display``: move the first two characters back."""
        return text[2:] + text[:2]

    def decode_text(self, text: str) -> int:
        text = _require_str(text, self.name)
        if not self.MIN_LENGTH <= len(text) <= self.MAX_LENGTH:
            raise DecodeError(
                f"{self.name}: length must be {self.MIN_LENGTH}..{self.MAX_LENGTH}, "
                f"got {len(text)}")
        digits = self.unrotate_display(text)
        value = _decode_digits(digits, self._TABLE, 64, self.name)
        # 10 digits hold exactly 60 bits, so this cannot trigger; it is kept
        # because the specification states the rule explicitly.
        return self.check_value(value)

    def encode_text(self, value: int) -> str:
        digits = _encode_digits(self.check_value(value), self.ALPHABET,
                                min_length=self.MIN_LENGTH)
        return self.rotate_for_display(digits)

    def fields(self, value: int) -> dict[str, int]:
        return {
            "timestamp": (value >> 18) & ((1 << 42) - 1),   # bits 59..18
            "sequence": (value >> 9) & 0x1FF,               # bits 17..9
            "random": value & 0x1FF,                        # bits 8..0
        }


class Scru160(IdFormat):
    """SCRU160: 48-bit Unix-ms timestamp | 16-bit counter | random16 | random80.

    Text: exactly 32 base32hex characters (upper case); the alternative hex
    form is exactly 40 hex digits (lower case).  Decoders ignore case.
    """

    name = "scru160"
    bits = 160
    default_epoch_ms = SCRU160_EPOCH_MS
    value_limit = 1 << 160
    string_fields = frozenset({"random80"})
    ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUV"
    _TABLE = _digit_table(ALPHABET, fold_case=True)
    LENGTH = 32

    def decode_text(self, text: str) -> int:
        text = _require_str(text, self.name)
        if len(text) != self.LENGTH:
            raise DecodeError(
                f"{self.name}: base32hex form must be exactly {self.LENGTH} "
                f"characters, got {len(text)}")
        # 32 characters x 5 bits = 160 bits exactly, so no overflow is possible.
        return _decode_digits(text, self._TABLE, 32, self.name)

    def encode_text(self, value: int) -> str:
        return _encode_digits(self.check_value(value), self.ALPHABET,
                              min_length=self.LENGTH)

    def decode_inspect_input(self, text: str) -> int:
        """Accept both text forms: 32-char base32hex or 40-char hex."""
        text = _require_str(text, self.name)
        if len(text) == self.hex_digits:
            return self.decode_hex(text)
        return self.decode_text(text)

    def check_generated(self, value: int) -> None:
        """Timestamps 0 and 2^48-1 are reserved and never generated."""
        self.check_value(value)
        timestamp = self.fields(value)["timestamp"]
        if timestamp in (0, (1 << 48) - 1):
            raise DecodeError(f"{self.name}: reserved timestamp {timestamp}")

    def fields(self, value: int) -> dict[str, int]:
        return {
            "timestamp": value >> 112,                  # bytes 0..5
            "counter": (value >> 96) & 0xFFFF,          # bytes 6..7
            "random16": (value >> 80) & 0xFFFF,         # bytes 8..9
            "random80": value & ((1 << 80) - 1),        # bytes 10..19
        }


class UlidFlake(IdFormat):
    """Ulid-Flake stand-alone: 0 | 43-bit timestamp | 20-bit randomness.

    Text: exactly 13 Crockford base32 characters, upper case on output and
    case-insensitive on input, with no Crockford aliases (I, L, O, U are
    errors).  Values above 2^63-1 are overflow errors.
    """

    name = "ulid-flake"
    default_epoch_ms = ULID_FLAKE_EPOCH_MS
    value_limit = 1 << 63
    ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    _TABLE = _digit_table(ALPHABET, fold_case=True)
    LENGTH = 13

    def decode_text(self, text: str) -> int:
        text = _require_str(text, self.name)
        if len(text) != self.LENGTH:
            raise DecodeError(
                f"{self.name}: must be exactly {self.LENGTH} characters, got {len(text)}")
        # 13 x 5 = 65 bits can be written, but only 63 are allowed.
        value = _decode_digits(text, self._TABLE, 32, self.name)
        if value >= self.value_limit:
            raise DecodeError(f"{self.name}: overflow, value {value} > 2^63-1")
        return value

    def encode_text(self, value: int) -> str:
        return _encode_digits(self.check_value(value), self.ALPHABET,
                              min_length=self.LENGTH)

    def fields(self, value: int) -> dict[str, int]:
        return {
            "timestamp": value >> 20,           # bits 62..20
            "randomness": value & 0xFFFFF,      # bits 19..0
        }


class UlidFlakeScalable(UlidFlake):
    """Ulid-Flake scalable: 0 | 43-bit timestamp | 15-bit randomness | 5-bit id.

    Same text form as the stand-alone version; only the low 20 bits are
    split differently.
    """

    name = "ulid-flake-scalable"

    def fields(self, value: int) -> dict[str, int]:
        return {
            "timestamp": value >> 20,               # bits 62..20
            "randomness": (value >> 5) & 0x7FFF,    # bits 19..5
            "scalability": value & 0x1F,            # bits 4..0
        }


class Caloriosa(IdFormat):
    """Caloriosa device name: prefix 1 | 41-bit timestamp | 12-bit random | 10-bit increment.

    Text: base62 with the alphabet ``0-9a-zA-Z``, no padding, case-sensitive.
    The decoder accepts 1..11 characters and values below 2^64; being a valid
    device name (11 characters, prefix bit set) is a separate, stricter check.
    """

    name = "caloriosa"
    default_epoch_ms = CALORIOSA_EPOCH_MS
    value_limit = 1 << 64
    ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    _TABLE = _digit_table(ALPHABET, fold_case=False)   # case-sensitive
    MAX_LENGTH = 11

    def decode_text(self, text: str) -> int:
        text = _require_str(text, self.name)
        if not 1 <= len(text) <= self.MAX_LENGTH:
            raise DecodeError(
                f"{self.name}: length must be 1..{self.MAX_LENGTH}, got {len(text)}")
        value = _decode_digits(text, self._TABLE, 62, self.name)
        if value >= self.value_limit:
            raise DecodeError(f"{self.name}: value {value} does not fit in 64 bits")
        return value

    def encode_text(self, value: int) -> str:
        return _encode_digits(self.check_value(value), self.ALPHABET)

    def is_valid_device_name(self, text: str) -> bool:
        """The stricter check: 11 characters and the prefix bit set.

        (The timestamp is 41 bits wide, so "timestamp < 2^41" always holds.)
        """
        try:
            value = self.decode_text(text)
        except DecodeError:
            return False
        return len(text) == self.MAX_LENGTH and value >> 63 == 1

    def check_generated(self, value: int) -> None:
        """Every generated device name has the prefix bit 63 set."""
        self.check_value(value)
        if value >> 63 != 1:
            raise DecodeError(f"{self.name}: prefix bit 63 is not set")

    def fields(self, value: int) -> dict[str, int]:
        return {
            "timestamp": (value >> 22) & ((1 << 41) - 1),   # bits 62..22
            "random": (value >> 10) & 0xFFF,                # bits 21..10
            "increment": value & 0x3FF,                     # bits 9..0
        }


class Nanoflake(IdFormat):
    """Nanoflake: 0 | 41-bit timestamp | 10-bit generator id | 12-bit sequence.

    Text: base36, lower case, unpadded on output (Java ``Long.toString(v,
    36)``); the decoder ignores case and accepts 1..13 characters (so the
    zero-padded 13-character form decodes too).  The sign bit must be 0.
    The epoch is chosen by the user.
    """

    name = "nanoflake"
    default_epoch_ms = DEFAULT_NANOFLAKE_EPOCH_MS
    epoch_configurable = True
    value_limit = 1 << 63
    ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
    _TABLE = _digit_table(ALPHABET, fold_case=True)
    MAX_LENGTH = 13

    def decode_text(self, text: str) -> int:
        text = _require_str(text, self.name)
        if not 1 <= len(text) <= self.MAX_LENGTH:
            raise DecodeError(
                f"{self.name}: length must be 1..{self.MAX_LENGTH}, got {len(text)}")
        value = _decode_digits(text, self._TABLE, 36, self.name)
        if value >= self.value_limit:
            raise DecodeError(f"{self.name}: value {value} has the sign bit set")
        return value

    def encode_text(self, value: int) -> str:
        return _encode_digits(self.check_value(value), self.ALPHABET)

    def fields(self, value: int) -> dict[str, int]:
        return {
            "timestamp": value >> 22,               # bits 62..22
            "generator": (value >> 12) & 0x3FF,     # bits 21..12
            "sequence": value & 0xFFF,              # bits 11..0
        }


_FORMATS: dict[str, IdFormat] = {
    fmt.name: fmt
    for fmt in (Uexky(), Scru160(), UlidFlake(), UlidFlakeScalable(),
                Caloriosa(), Nanoflake())
}

FORMAT_NAMES: tuple[str, ...] = tuple(_FORMATS)


# ---------------------------------------------------------------------------
# Module-level convenience functions, taking the format by name.


def get_format(name: str) -> IdFormat:
    """Return the format object for a format name (KeyError if unknown)."""
    try:
        return _FORMATS[name]
    except KeyError:
        raise KeyError(f"unknown format {name!r}; known: {', '.join(FORMAT_NAMES)}") from None


def decode_text(name: str, text: str) -> int:
    """Strictly decode the text form of format ``name`` into its integer value."""
    return get_format(name).decode_text(text)


def decode_int(name: str, text: str) -> int:
    """Decode the unsigned decimal form of a 64-bit format."""
    return get_format(name).decode_int(text)


def decode_hex(name: str, text: str) -> int:
    """Decode the fixed-width hex form (16 digits, or 40 for SCRU160)."""
    return get_format(name).decode_hex(text)


def decode_inspect_input(name: str, text: str) -> int:
    """Decode a string the way ``mintid inspect --format NAME`` should."""
    return get_format(name).decode_inspect_input(text)


def encode_text(name: str, value: int) -> str:
    """Encode a value in the canonical text form of format ``name``."""
    return get_format(name).encode_text(value)


def encode_int(name: str, value: int) -> str:
    """Encode the canonical decimal form of a 64-bit format."""
    return get_format(name).encode_int(value)


def encode_hex(name: str, value: int) -> str:
    """Encode the canonical lower-case hex form."""
    return get_format(name).encode_hex(value)


def fields(name: str, value: int) -> dict[str, int]:
    """Split a value of format ``name`` into ``timestamp`` and its own fields."""
    fmt = get_format(name)
    return fmt.fields(fmt.check_value(value))


def inspect_dict(name: str, text: str, epoch_ms: int | None = None) -> dict:
    """The JSON object ``mintid inspect`` should print for ID ``text``."""
    return get_format(name).inspect_dict(text, epoch_ms)


# ---------------------------------------------------------------------------
# Command-line use: print the expected inspect JSON for IDs.


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Decode mintid IDs independently and print the JSON "
                    "object `mintid inspect` is expected to print.")
    parser.add_argument("format", choices=FORMAT_NAMES)
    parser.add_argument("ids", nargs="+", metavar="ID")
    parser.add_argument("--epoch", type=int, default=None,
                        help="nanoflake epoch in Unix ms "
                             f"(default {DEFAULT_NANOFLAKE_EPOCH_MS})")
    args = parser.parse_args(argv)
    status = 0
    for text in args.ids:
        try:
            print(json.dumps(inspect_dict(args.format, text, args.epoch)))
        except (DecodeError, ValueError) as exc:
            print(f"refdecode: {text!r}: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
