// SPDX-License-Identifier: MIT
'use strict';
// mintid/compat: the shapes of the packages people already call, over
// mintid's host-wide generators, so that changing an import is the whole
// migration:
//
//   uuid                 v7(), validate(), version()
//   ulid                 ulid(), monotonicFactory(), decodeTime(), isValid()
//   @sapphire/snowflake  Snowflake (generate, deconstruct, timestampFrom,
//                        compare), DiscordSnowflake, TwitterSnowflake
//
// Every ID is minted and read by the library (the same sequence as
// mintid's gen() and every other process of the host), in the layout the
// original package writes and reads; the tests check each against the
// original's own functions, both ways. Where an original takes something
// mintid cannot honour (uuid's options.msecs, a PRNG of ulid's), docs/node.md
// says what happens instead.

const mintid = require('./index.js');
const binding = require('./binding.js');

const { ArgumentError, ArgumentTypeError } = mintid;

const UUIDV7 = binding.formatIndex('uuidv7');
const ULID = binding.formatIndex('ulid');
const SNOWFLAKE = binding.formatIndex('snowflake');

// ---- uuid ---------------------------------------------------------------------------------------

/**
 * A UUIDv7 string, as uuid's v7(); v7(undefined, buf, offset) writes its
 * 16 bytes into buf at offset and returns buf.
 */
function v7(options, buf, offset) {
  if (options !== undefined && options !== null) {
    throw new ArgumentError('v7(): mintid mints from the host-wide sequence; options (msecs, seq, random, rng) ' +
                            'are not taken');
  }
  if (buf === undefined || buf === null) return binding.next(UUIDV7);
  if (!(buf instanceof Uint8Array)) {
    throw new ArgumentTypeError('v7(): buf must be a Uint8Array or a Buffer');
  }
  const at = offset === undefined ? 0 : offset;
  if (!Number.isInteger(at) || at < 0 || at + 16 > buf.length) {
    throw new ArgumentError(`v7(): UUID byte range ${at}:${at + 15} is out of buffer bounds`);
  }
  buf.set(binding.mint(UUIDV7, -1, null, null, 'bytes', null), at);
  return buf;
}

// An RFC 9562 UUID string: a version from 1 to 8 and the RFC's variant, or the nil or the max UUID.
const UUID_SHAPE = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i;

/** Whether a string is a UUID, as uuid's validate() decides it. */
function validate(uuid) {
  return typeof uuid === 'string' && UUID_SHAPE.test(uuid);
}

/** A UUID's version, as uuid's version(); a TypeError for what is not a UUID, as uuid throws. */
function version(uuid) {
  if (!validate(uuid)) throw new TypeError('Invalid UUID');
  return parseInt(uuid.slice(14, 15), 16);
}

// ---- ulid ---------------------------------------------------------------------------------------

// A seed time as ulid takes it: Unix ms.
function seedOf(seedTime) {
  if (typeof seedTime !== 'number' || !Number.isSafeInteger(seedTime)) {
    throw new ArgumentTypeError(`seedTime must be Unix milliseconds (a whole number), not ${String(seedTime)}`);
  }
  return seedTime;
}

/**
 * A ULID, as ulid's ulid(): from the host-wide sequence (each greater than
 * the one before); with seedTime, one of that millisecond with 80 fresh
 * random bits, as ulid makes it.
 */
function ulid(seedTime) {
  if (seedTime === undefined) return binding.next(ULID);
  return binding.first(ULID, seedOf(seedTime), null);
}

/**
 * A function that mints increasing ULIDs, as ulid's monotonicFactory():
 * without seedTime from the host-wide sequence; with it, from a sequence
 * of the factory's own on those times, which continues the last time's
 * when given an earlier one, as ulid's factory does. A PRNG given is not
 * used: the library draws its random bits from its own CSPRNG.
 */
function monotonicFactory(prng) {
  void prng;
  let own = null;
  return function ulidMonotonic(seedTime) {
    if (seedTime === undefined) return binding.next(ULID);
    if (own === null) own = binding.open(ULID, null, null, false, null, false, null, true);
    return binding.genNextAt(own, seedOf(seedTime));
  };
}

/** The Unix ms of a ULID, as ulid's decodeTime(); InvalidIdError with the library's sentence for what is not one. */
function decodeTime(id) {
  return JSON.parse(binding.inspect(id, ULID, null, null)).unix_ms;
}

/** Whether a string is a ULID the library reads (one whose time overflows 48 bits is not). */
function isValid(id) {
  if (typeof id !== 'string') return false;
  try {
    binding.inspect(id, ULID, null, null);
    return true;
  } catch (e) {
    if (e instanceof mintid.InvalidIdError) return false;
    throw e;
  }
}

// ---- @sapphire/snowflake ------------------------------------------------------------------------

// Unix ms of a time given as @sapphire/snowflake takes one: a number, a BigInt or a Date.
function msOf(what, t) {
  if (t instanceof Date) t = t.getTime();
  else if (typeof t === 'bigint') t = Number(t);
  if (typeof t !== 'number' || !Number.isSafeInteger(t)) {
    throw new ArgumentTypeError(`${what} must be Unix milliseconds (a number or BigInt) or a Date, not ${String(t)}`);
  }
  return t;
}

/**
 * A Twitter-layout Snowflake of an epoch, as @sapphire/snowflake's:
 * generate() mints from the host-wide sequence of the snowflake format
 * under this epoch and node id (workerId and processId, 5 bits each, are
 * its upper and lower halves); generate({timestamp, increment}) builds the
 * ID of those fields.
 */
class Snowflake {
  #epoch;
  #processId = 1n;
  #workerId = 0n;
  #increment = 0n;

  constructor(epoch) {
    this.#epoch = msOf('epoch', epoch);
  }

  get epoch() {
    return BigInt(this.#epoch);
  }

  get processId() {
    return this.#processId;
  }

  set processId(value) {
    this.#processId = BigInt(value);
  }

  get workerId() {
    return this.#workerId;
  }

  set workerId(value) {
    this.#workerId = BigInt(value);
  }

  /** The next ID as a BigInt. */
  generate(options = {}) {
    const { increment, timestamp, workerId = this.#workerId, processId = this.#processId } = options;
    const node = ((BigInt(workerId) & 0b11111n) << 5n) | (BigInt(processId) & 0b11111n);
    if (increment === undefined && timestamp === undefined) {
      return binding.mint(SNOWFLAKE, -1, node.toString(), String(this.#epoch), 'bigint', null);
    }
    let inc = increment;
    if (inc === undefined || inc === null) {
      inc = this.#increment++;
      if (this.#increment >= 4095n) this.#increment = 0n;
    }
    const at = timestamp === undefined ? Date.now() : msOf('timestamp', timestamp);
    return binding.build(SNOWFLAKE, at, String(this.#epoch), Number(node), Number(BigInt(inc) & 0xfffn), 'bigint');
  }

  /** An ID's fields as BigInts: id, timestamp (Unix ms), workerId, processId, increment, epoch. */
  deconstruct(id) {
    const d = JSON.parse(binding.inspect(typeof id === 'string' ? id : BigInt(id), SNOWFLAKE, String(this.#epoch),
                                         null));
    return {
      id: BigInt(d.int),
      timestamp: BigInt(d.unix_ms),
      workerId: BigInt(d.datacenter),
      processId: BigInt(d.worker),
      increment: BigInt(d.sequence),
      epoch: BigInt(this.#epoch),
    };
  }

  /** An ID's time, Unix ms. */
  timestampFrom(id) {
    return Number(this.deconstruct(id).timestamp);
  }

  /** -1, 0 or 1 as a is less than, equal to or greater than b (BigInts or decimal strings). */
  static compare(a, b) {
    const x = BigInt(a), y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
}

// The snowflake format's named epochs, as the library's table has them.
const EPOCHS = mintid.formats().snowflake.epochs;
const DiscordSnowflake = new Snowflake(EPOCHS.discord);
const TwitterSnowflake = new Snowflake(EPOCHS.twitter);

module.exports = {
  v7,
  validate,
  version,
  ulid,
  monotonicFactory,
  decodeTime,
  isValid,
  Snowflake,
  DiscordSnowflake,
  TwitterSnowflake,
};
