// SPDX-License-Identifier: MIT
// mintid/compat against the packages whose shapes it takes, at the
// versions node/package-lock.json pins: every ID mintid makes is accepted
// by the original's own functions and decoded to the same time (and
// fields), and every ID the original makes is accepted and decoded alike
// by mintid's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pkg, require } from './helpers/env.mjs';
import * as uuid from 'uuid';
import * as ULID from 'ulid';
import * as sapphire from '@sapphire/snowflake';

const mintid = require(pkg);
const compat = require(path.join(pkg, 'lib', 'compat.js'));
const compatEsm = await import(pathToFileURL(path.join(pkg, 'lib', 'compat.mjs')).href);

const N = 500;

// The Unix ms of a UUIDv7: its first 48 bits (uuid has no decoder of its own for them).
function v7ms(u) {
  return Number(BigInt('0x' + Buffer.from(uuid.parse(u)).subarray(0, 6).toString('hex')));
}

test('ESM and CommonJS are one module', () => {
  for (const name of Object.keys(compat)) assert.equal(compatEsm[name], compat[name], name);
  assert.equal(compatEsm.default, compat);
});

test('uuid: v7, validate, version', () => {
  const ours = Array.from({ length: N }, () => compat.v7());
  for (const u of ours) {
    assert.ok(uuid.validate(u), u);
    assert.equal(uuid.version(u), 7);
    assert.equal(v7ms(u), mintid.inspect(u, 'uuidv7').unix_ms);
    assert.equal(compat.validate(u), true);
    assert.equal(compat.version(u), 7);
  }
  for (let i = 1; i < N; i++) assert.ok(ours[i - 1] < ours[i]);
  const theirs = Array.from({ length: N }, () => uuid.v7());
  for (const u of theirs) {
    assert.equal(compat.validate(u), true);
    assert.equal(compat.version(u), 7);
    assert.equal(mintid.inspect(u, 'uuidv7').unix_ms, v7ms(u));
    assert.equal(mintid.inspect(u).format, 'uuidv7');
  }
  // validate() and version() agree with uuid's on other versions and on what is no UUID.
  const others = [uuid.v1(), uuid.v4(), uuid.v6(), uuid.NIL, uuid.MAX, uuid.v4().toUpperCase(),
    '01563e3a-b5d3-d676-4c61-efb99302bd5b', '', 'x', `${uuid.v4()} `, `{${uuid.v4()}}`,
    '00000000-0000-0000-0000-000000000001', '6ba7b810-9dad-11d1-80b4-00c04fd430c8', '6ba7b810-9dad-91d1-80b4-00c04fd430c8',
    '6ba7b810-9dad-11d1-c0b4-00c04fd430c8', 17, null, undefined];
  for (const s of others) {
    assert.equal(compat.validate(s), uuid.validate(s), String(s));
    if (uuid.validate(s)) assert.equal(compat.version(s), uuid.version(s), s);
    else assert.throws(() => compat.version(s), TypeError);
  }
  assert.throws(() => uuid.version('x'), TypeError, 'as uuid throws');
  // Bytes into a buffer at an offset, as uuid's v7(undefined, buf, offset).
  const buf = Buffer.alloc(20);
  assert.equal(compat.v7(undefined, buf, 2), buf);
  assert.equal(uuid.version(uuid.stringify(buf, 2)), 7);
  assert.throws(() => compat.v7(undefined, buf, 5), mintid.ArgumentError);
  assert.throws(() => compat.v7({ msecs: 1 }), mintid.ArgumentError);
});

test('ulid: ulid, monotonicFactory, decodeTime, isValid', () => {
  const factory = compat.monotonicFactory();
  const ours = [...Array.from({ length: N }, () => compat.ulid()), ...Array.from({ length: N }, () => factory())];
  for (const id of ours) {
    assert.ok(ULID.isValid(id), id);
    assert.equal(ULID.decodeTime(id), mintid.inspect(id, 'ulid').unix_ms);
    assert.equal(compat.decodeTime(id), ULID.decodeTime(id));
    assert.equal(compat.isValid(id), true);
  }
  for (let i = 1; i < ours.length; i++) assert.ok(ours[i - 1] < ours[i], 'one host-wide sequence');
  const theirFactory = ULID.monotonicFactory();
  const theirs = [...Array.from({ length: N }, () => ULID.ulid()), ...Array.from({ length: N }, () => theirFactory())];
  for (const id of theirs) {
    assert.equal(compat.isValid(id), true, id);
    assert.equal(compat.decodeTime(id), ULID.decodeTime(id));
    assert.equal(mintid.inspect(id).format, 'ulid');
  }
  // A seed time: that millisecond, as ulid's; a factory's continues its last time's sequence when given an earlier one.
  const t = Date.UTC(2024, 4, 1);
  assert.equal(ULID.decodeTime(compat.ulid(t)), t);
  const seeded = compat.monotonicFactory();
  const a = seeded(t), b = seeded(t), c = seeded(t - 5), d = seeded(t + 1);
  assert.ok(a < b && b < c && c < d);
  assert.deepEqual([a, b, c].map(ULID.decodeTime), [t, t, t]);
  assert.equal(ULID.decodeTime(d), t + 1);
  const theirSeeded = ULID.monotonicFactory();
  const [x, y, z] = [theirSeeded(t), theirSeeded(t), theirSeeded(t - 5)];
  assert.ok(x < y && y < z && ULID.decodeTime(z) === t, 'the same as ulid does');
  // What is no ULID: both refuse it.
  for (const bad of ['01ARZ3NDEKTSV4RRFFQ69G5FAI', '01ARZ3NDEKTSV4RRFFQ69G5FA', '']) {
    assert.equal(compat.isValid(bad), ULID.isValid(bad), bad);
    assert.throws(() => compat.decodeTime(bad), mintid.InvalidIdError);
  }
  assert.throws(() => compat.ulid('soon'), mintid.ArgumentTypeError);
});

test('@sapphire/snowflake: generate, deconstruct, timestampFrom, compare', () => {
  for (const [ours, theirs] of [[compat.DiscordSnowflake, sapphire.DiscordSnowflake],
    [compat.TwitterSnowflake, sapphire.TwitterSnowflake],
    [new compat.Snowflake(1577836800000n), new sapphire.Snowflake(1577836800000n)]]) {
    assert.equal(ours.epoch, theirs.epoch);
    // Two node ids, each half of one at its least and its most (each node id is a host-wide state of its
    // own, and a new one holds back its first 100 ms); 1 is also generate()'s default.
    const mine = [];
    for (let i = 0; i < N; i++) mine.push(ours.generate(i % 2 ? { workerId: 31, processId: 30 } : { workerId: 0 }));
    const plain = Array.from({ length: N }, () => ours.generate());
    for (let i = 1; i < N; i++) assert.ok(plain[i - 1] < plain[i], 'one host-wide sequence');
    for (const id of [...mine, ...plain]) {
      const t = theirs.deconstruct(id), o = ours.deconstruct(id);
      assert.deepEqual(o, t, `${id}`);
      assert.equal(ours.timestampFrom(id), theirs.timestampFrom(id));
      assert.ok(Math.abs(Number(t.timestamp) - Date.now()) < 60000);
    }
    assert.deepEqual(mine.slice(0, 2).map((id) => [theirs.deconstruct(id).workerId, theirs.deconstruct(id).processId]),
                     [[0n, 1n], [31n, 30n]]);
    const theirIds = [];
    for (let i = 0; i < N; i++) theirIds.push(theirs.generate({ workerId: BigInt(i % 32), processId: BigInt(i % 5) }));
    theirIds.push(theirs.generate({ timestamp: Date.now() + 1000, increment: 4095n }));
    for (const id of theirIds) {
      assert.deepEqual(ours.deconstruct(id), theirs.deconstruct(id));
      assert.deepEqual(ours.deconstruct(id.toString()), theirs.deconstruct(id));
      assert.equal(mintid.inspect(id, 'snowflake', { epoch: Number(ours.epoch) }).unix_ms,
                   Number(theirs.deconstruct(id).timestamp));
    }
    // The ID of given fields is the one sapphire builds.
    const when = Date.now() - 5000;
    for (const fields of [{ timestamp: when, increment: 5n, workerId: 3n, processId: 9n },
      { timestamp: new Date(when), increment: 4095n, workerId: 31n, processId: 31n },
      { timestamp: BigInt(when), increment: 0n, workerId: 0n, processId: 0n }]) {
      assert.equal(ours.generate(fields), theirs.generate(fields));
    }
  }
  assert.equal(compat.Snowflake.compare(1n, 2n), sapphire.Snowflake.compare(1n, 2n));
  assert.equal(compat.Snowflake.compare('10', '9'), sapphire.Snowflake.compare('10', '9'));
  assert.equal(compat.Snowflake.compare(5n, '5'), sapphire.Snowflake.compare(5n, '5'));
  const s = new compat.Snowflake(new Date(1420070400000));
  s.workerId = 2;
  s.processId = 3n;
  assert.deepEqual([s.workerId, s.processId], [2n, 3n]);
  const d = sapphire.DiscordSnowflake.deconstruct(s.generate());
  assert.deepEqual([d.workerId, d.processId], [2n, 3n]);
});
