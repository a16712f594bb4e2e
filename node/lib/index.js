// SPDX-License-Identifier: MIT
'use strict';
// mintid: unique, time-ordered identifiers in every format of libmintid's
// table, from the addon over the library (node/src/mintid_node.c in mintid's
// source).
//
// gen() and Generator mint from the host-wide generator by default: every
// process and worker thread of the host continues one strictly increasing
// sequence per format, node id and epoch (the mintid command, Python,
// SQLite and a mintidd on the host share it too). This file gives the
// functions their JavaScript shape and checks the types of their
// arguments; the addon reads every name, node id, epoch, form and ID with
// the library's look-ups and throws its sentences. See docs/node.md.

const binding = require('./binding.js');
const errors = require('./errors.js');

const { ArgumentError, ArgumentTypeError } = errors;

const info = binding.init(errors.ORDER);
const INDEX = new Map(info.formats.map((f, i) => [f.name, i]));
const BYTES = info.formats.map((f) => f.bytes);

// IDs per call into the addon in a long batch: its texts come back as one
// string, and V8 caps a string's length (about 2^29 characters).
const BATCH = 65536;
// The longest array: a batch's n.
const COUNT_MAX = 2 ** 32 - 1;

// ---- arguments ---------------------------------------------------------------------------------

function shown(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `a string (${JSON.stringify(v)})`;
  if (typeof v === 'object') return v.constructor && v.constructor.name ? `a ${v.constructor.name}` : 'an object';
  if (typeof v === 'bigint') return `${v}n`;
  return typeof v === 'number' ? String(v) : `a ${typeof v}`;
}

// The index of a format's name in the library's table; the library's sentence for one that is no format's.
function formatIndex(format) {
  const i = INDEX.get(format);
  return i !== undefined ? i : binding.formatIndex(format);
}

// The options object of a call: undefined is none; a key the call does not take is a mistake worth saying.
function optionsOf(fn, options, allowed) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new ArgumentTypeError(`${fn}(): options must be an object, not ${shown(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new ArgumentTypeError(`${fn}(): unknown option '${key}'; it takes ${allowed.join(', ')}`);
    }
  }
  return options;
}

function countArg(n) {
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new ArgumentTypeError(`n must be a whole number, not ${shown(n)}`);
  }
  if (n < 0 || n > COUNT_MAX) throw new ArgumentError(`n must be 0 to ${COUNT_MAX}, not ${n}`);
  return n;
}

// node: a number, 'host' or 'ordinal[+N]', as the library reads them; a number is given as its digits.
function nodeArg(node) {
  if (node === undefined || node === null) return null;
  if (typeof node === 'number' && Number.isInteger(node)) return BigInt(node).toString();
  if (typeof node === 'bigint') return node.toString();
  if (typeof node === 'string' && !/^[-+0-9]/.test(node)) return node;
  throw new ArgumentTypeError(`node must be a whole number, 'host' or 'ordinal[+N]', not ${shown(node)}`);
}

// A Date's Unix ms (a number); the library reads a number's digits and a string itself.
function epochArg(epoch) {
  if (epoch === undefined || epoch === null) return null;
  if (epoch instanceof Date) {
    const ms = epoch.getTime();
    if (Number.isNaN(ms)) throw new ArgumentError('epoch is an invalid Date');
    return ms;
  }
  if (typeof epoch === 'number' && Number.isInteger(epoch)) return BigInt(epoch).toString();
  if (typeof epoch === 'bigint') return epoch.toString();
  if (typeof epoch === 'string') return epoch;
  throw new ArgumentTypeError(`epoch must be Unix milliseconds, a Date or a string, not ${shown(epoch)}`);
}

function nameArg(what, v) {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ArgumentTypeError(`${what} must be a string, not ${shown(v)}`);
  return v;
}

// A point in time for min() and max(): a Date or Unix ms.
function timeArg(time) {
  if (time instanceof Date) {
    const ms = time.getTime();
    if (Number.isNaN(ms)) throw new ArgumentError('time is an invalid Date');
    return ms;
  }
  if (typeof time === 'number' && Number.isSafeInteger(time)) return time;
  throw new ArgumentTypeError(`time must be a Date or Unix milliseconds (a whole number), not ${shown(time)}`);
}

// An ID as the addon reads it: a string, bytes, a BigInt, or a number that is a safe integer.
function idArg(id) {
  if (typeof id === 'number' && !Number.isSafeInteger(id)) {
    throw new ArgumentTypeError(`an ID given as a number must be a safe integer, not ${id}; ` +
                                'give a larger one as a string or a BigInt');
  }
  return id;
}

// ---- batches -------------------------------------------------------------------------------------

// A batch the addon gave: texts joined by '\n', bytes one after another, or an array of values.
function unpack(got, n, width) {
  if (typeof got === 'string') return n === 0 ? [] : got.split('\n');
  if (Buffer.isBuffer(got)) {
    const ids = new Array(n);
    for (let k = 0; k < n; k++) ids[k] = got.subarray(k * width, (k + 1) * width);
    return ids;
  }
  return got;
}

// n IDs from mintN(k), k IDs at a time.
function batch(n, width, mintN) {
  if (n <= BATCH) return unpack(mintN(n), n, width);
  const ids = [];
  for (let done = 0; done < n; done += BATCH) {
    const k = Math.min(BATCH, n - done);
    for (const id of unpack(mintN(k), k, width)) ids.push(id);
  }
  return ids;
}

// ---- the functions -------------------------------------------------------------------------------

const GEN_OPTIONS = ['node', 'epoch', 'form', 'prefix'];

/**
 * The next ID of `format` from the host-wide generator, or an array of
 * the next n: gen(format), gen(format, n), gen(format, options),
 * gen(format, n, options).
 */
function gen(format, n, options) {
  const i = formatIndex(format);
  if (n === undefined && options === undefined) return binding.next(i);
  if (options === undefined && typeof n === 'object' && n !== null) {
    options = n;
    n = undefined;
  }
  const count = n === undefined || n === null ? -1 : countArg(n);
  const o = optionsOf('gen', options, GEN_OPTIONS);
  const node = nodeArg(o.node), epoch = epochArg(o.epoch);
  const form = nameArg('form', o.form), prefix = nameArg('prefix', o.prefix);
  if (count < 0) return binding.mint(i, -1, node, epoch, form, prefix);
  return batch(count, BYTES[i], (k) => binding.mint(i, k, node, epoch, form, prefix));
}

const GENERATOR_OPTIONS = ['node', 'epoch', 'shared', 'form', 'overflow', 'prefix'];

/**
 * Strictly increasing IDs of one format; shared (the default) continues
 * the host-wide sequence, shared: false is a sequence of the process's
 * own (its thread's, in a worker).
 */
class Generator {
  #handle;
  #width;
  #info;

  constructor(format, options) {
    const i = formatIndex(format);
    const o = optionsOf('Generator', options, GENERATOR_OPTIONS);
    if (o.shared !== undefined && typeof o.shared !== 'boolean') {
      throw new ArgumentTypeError(`shared must be true or false, not ${shown(o.shared)}`);
    }
    if (o.overflow !== undefined && o.overflow !== 'wait' && o.overflow !== 'fail') {
      const Err = typeof o.overflow === 'string' ? ArgumentError : ArgumentTypeError;
      throw new Err(`overflow must be 'wait' or 'fail', not ${shown(o.overflow)}`);
    }
    this.#handle = binding.open(i, nodeArg(o.node), epochArg(o.epoch), o.shared !== false, nameArg('form', o.form),
                                o.overflow === 'fail', nameArg('prefix', o.prefix), false);
    this.#width = BYTES[i];
  }

  /** The next ID, greater than every one before it. */
  next() {
    return binding.genNext(this.#handle);
  }

  /** The next n IDs, increasing. */
  nextMany(n) {
    const count = countArg(n);
    return batch(count, this.#width, (k) => binding.genNextMany(this.#handle, k));
  }

  * [Symbol.iterator]() {
    for (;;) yield binding.genNext(this.#handle);
  }

  #about() {
    if (this.#info === undefined) this.#info = binding.genInfo(this.#handle);
    return this.#info;
  }

  get format() { return this.#about().format; }
  get node() { return this.#about().node; }
  get epoch() { return this.#about().epoch; }
  get shared() { return this.#about().shared; }
  get form() { return this.#about().form; }
  get prefix() { return this.#about().prefix; }
  get path() { return this.#about().path; }

  get [Symbol.toStringTag]() {
    return 'Generator';
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    const g = this.#about();
    const node = g.node === null ? '' : `, node: ${g.node}`;
    const prefix = g.prefix === '' ? '' : `, prefix: '${g.prefix}'`;
    return `Generator('${g.format}', { epoch: ${g.epoch}${node}, shared: ${g.shared}, form: '${g.form}'${prefix} })`;
  }
}

// Unix ms as a Date, or null past the years a Date holds (±8.64e15 ms).
function dateOf(ms) {
  return ms === null || Math.abs(ms) > 8.64e15 ? null : new Date(ms);
}

const INSPECT_OPTIONS = ['format', 'epoch', 'fromForm'];

// The format of inspect(id, format, options) and convert(id, to, format, options), by argument or option.
function formatOf(fn, format, options, allowed) {
  if (options === undefined && typeof format === 'object' && format !== null) {
    options = format;
    format = undefined;
  }
  const o = optionsOf(fn, options, allowed);
  if (format !== undefined && format !== null && o.format !== undefined && o.format !== null) {
    throw new ArgumentTypeError(`${fn}(): the format is given twice, as an argument and as an option`);
  }
  const name = format !== undefined && format !== null ? format : o.format;
  return [name === undefined || name === null ? -1 : formatIndex(name), o];
}

/**
 * An ID taken apart: the fields `mintid inspect` prints, with `time` a
 * Date. The format is guessed when not given.
 */
function inspect(id, format, options) {
  const [i, o] = formatOf('inspect', format, options, INSPECT_OPTIONS);
  const d = JSON.parse(binding.inspect(idArg(id), i, epochArg(o.epoch), nameArg('fromForm', o.fromForm)));
  d.time = dateOf(d.unix_ms);
  return d;
}

const CONVERT_OPTIONS = ['format', 'fromForm', 'prefix'];

/** The ID in another form: a text form, 'bigint', 'number' or 'bytes'. */
function convert(id, to, format, options) {
  if (typeof to !== 'string') throw new ArgumentTypeError(`to must be a form's name (a string), not ${shown(to)}`);
  const [i, o] = formatOf('convert', format, options, CONVERT_OPTIONS);
  return binding.convert(idArg(id), to, i, nameArg('fromForm', o.fromForm), nameArg('prefix', o.prefix));
}

const BOUND_OPTIONS = ['epoch', 'form', 'prefix'];

function bound(which, fn, format, time, options) {
  const i = formatIndex(format);
  const o = optionsOf(fn, options, BOUND_OPTIONS);
  return binding.bound(which, i, timeArg(time), epochArg(o.epoch), nameArg('form', o.form),
                       nameArg('prefix', o.prefix));
}

/** The smallest ID that can carry the millisecond `time`: every ID minted at or after it is at least this. */
function min(format, time, options) {
  return bound(0, 'min', format, time, options);
}

/** The largest ID that can carry the millisecond `time`: every ID minted at or before it is at most this. */
function max(format, time, options) {
  return bound(1, 'max', format, time, options);
}

/** Every format by name, in the library's order, as the library describes it; `forms` are what form: takes. */
function formats() {
  const all = {};
  info.formats.forEach((f, i) => {
    const d = JSON.parse(binding.describe(i));
    d.forms = f.forms.slice();
    all[f.name] = d;
  });
  return all;
}

module.exports = {
  gen,
  Generator,
  inspect,
  convert,
  min,
  max,
  formats,
  version: info.version,
  MintidError: errors.MintidError,
  ArgumentError: errors.ArgumentError,
  ArgumentTypeError: errors.ArgumentTypeError,
  UnknownFormatError: errors.UnknownFormatError,
  InvalidIdError: errors.InvalidIdError,
  ClockError: errors.ClockError,
  WaitTimeoutError: errors.WaitTimeoutError,
  ExhaustedError: errors.ExhaustedError,
  HostError: errors.HostError,
};

