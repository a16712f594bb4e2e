// SPDX-License-Identifier: MIT
'use strict';
// The errors of mintid: one class per class of the library's statuses
// (whose fault it is), with finer ones below the class they belong to, as
// the Python module sorts them. Every one is a MintidError whose message
// is the library's sentence, the same one every face of mintid says for
// the same mistake; `code` is the library's status by name
// ('MINTID_EFORMAT'), stable across releases, and `status` its number.

class MintidError extends Error {
  constructor(message, status = -1, code = 'MINTID_EINVAL') {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// The caller's input: an argument's value is not one the call takes.
class ArgumentError extends MintidError {}
// An argument's type is not one the call takes (JavaScript's own; status -1).
class ArgumentTypeError extends MintidError {}
// No format has that name; the message names the one a person most likely meant.
class UnknownFormatError extends ArgumentError {}
// A string, bytes or integer that is not an ID (of the format given).
class InvalidIdError extends ArgumentError {}
// The clock went back (beyond what the format absorbs) or could not be read.
class ClockError extends MintidError {}
// The wait limit was reached: the clock did not move on, or another process held the host-wide state.
class WaitTimeoutError extends ClockError {}
// The millisecond's sequence is used up (overflow: 'fail').
class ExhaustedError extends MintidError {}
// The host: the host-wide state, the host's mintidd, memory or randomness.
class HostError extends MintidError {}

const classes = {
  MintidError,
  ArgumentError,
  ArgumentTypeError,
  UnknownFormatError,
  InvalidIdError,
  ClockError,
  WaitTimeoutError,
  ExhaustedError,
  HostError,
};
for (const [name, cls] of Object.entries(classes)) {
  Object.defineProperty(cls.prototype, 'name', { value: name, writable: true, configurable: true });
}

// In the order the addon's init() takes them (ERR_* in src/mintid_node.c).
const ORDER = [MintidError, ArgumentError, ArgumentTypeError, UnknownFormatError, InvalidIdError, ClockError,
  WaitTimeoutError, ExhaustedError, HostError];

module.exports = { ...classes, ORDER };
