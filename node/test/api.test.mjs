// SPDX-License-Identifier: MIT
// mintid's functions, their forms and their errors, through the staged
// package's CommonJS and ESM entry points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pkg, require } from './helpers/env.mjs';

const mintid = require(pkg);
const esm = await import(pathToFileURL(path.join(pkg, 'lib', 'index.mjs')).href);
const { gen, Generator, inspect, convert, min, max, formats } = mintid;

const NAMES = Object.keys(formats());

// Buffers of IDs in minting order: each greater than the one before.
function assertIncreasing(bufs, what) {
  for (let i = 1; i < bufs.length; i++) {
    assert.ok(Buffer.compare(bufs[i - 1], bufs[i]) < 0, `${what}: ID ${i} is not above ID ${i - 1}`);
  }
}

// Calls f and returns what it threw, checking its class, code and that its message contains `sentence`.
function throwsWith(f, cls, code, sentence) {
  let thrown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown, 'nothing was thrown');
  assert.ok(thrown instanceof cls, `${thrown.name}: ${thrown.message} is not a ${cls.name}`);
  assert.ok(thrown instanceof mintid.MintidError);
  assert.equal(thrown.name, cls.name);
  if (code !== undefined) assert.equal(thrown.code, code);
  if (sentence !== undefined) assert.ok(thrown.message.includes(sentence), thrown.message);
  return thrown;
}

test('the table: formats(), and the FormatName union of the types', () => {
  const all = formats();
  assert.deepEqual(NAMES.slice(0, 4), ['uexky', 'scru160', 'ulid-flake', 'ulid-flake-scalable']);
  const dts = fs.readFileSync(path.join(pkg, 'lib', 'index.d.ts'), 'utf8');
  const union = dts.match(/export type FormatName =([^;]*);/)[1].match(/'[^']+'/g).map((s) => s.slice(1, -1));
  assert.deepEqual(union, NAMES, 'index.d.ts FormatName is the library table');
  const safe = NAMES.filter((n) => all[n].forms.includes('number'));
  assert.match(dts, safe.length ? new RegExp(`SafeIntegerFormat = ${safe.map((n) => `'${n}'`).join(' \\| ')};`)
                                : /SafeIntegerFormat = never;/);
  const n = all.nanoflake;
  assert.equal(n.bits, 64);
  assert.equal(n.capacity_per_ms, 4096);
  assert.equal(n.node_max, 1023);
  assert.deepEqual(n.fields.map((f) => [f.name, f.bits]), [['sign', 1], ['timestamp', 41], ['generator', 10],
    ['sequence', 12]]);
  assert.deepEqual(n.forms, ['text', 'int', 'hex', 'padded', 'bigint', 'bytes']);
  assert.deepEqual(all.uuidv7.forms, ['text', 'hex', 'uuid', 'bigint', 'bytes']);
  assert.equal(all.snowflake.epochs.discord, 1420070400000);
  assert.notEqual(formats(), formats(), 'each call gives a fresh object');
});

test('gen: every format, one and a batch, increasing, read back by inspect', () => {
  for (const name of NAMES) {
    const one = gen(name);
    assert.equal(typeof one, 'string');
    assert.equal(inspect(one, name).format, name);
    const ids = gen(name, 50, { form: 'bytes' });
    assert.equal(ids.length, 50);
    assert.ok(ids.every((b) => Buffer.isBuffer(b) && b.length === formats()[name].bits / 8));
    assertIncreasing(ids, name);
    const texts = gen(name, 3);
    assert.equal(texts.length, 3);
    assert.ok(texts.every((t) => typeof t === 'string' && inspect(t, name).text === t));
  }
  assert.deepEqual(gen('ulid', 0), []);
  assert.deepEqual(gen('ulid', 0, { form: 'bytes' }), []);
});

test('gen: forms', () => {
  const big = gen('nanoflake', { form: 'bigint' });
  assert.equal(typeof big, 'bigint');
  assert.equal(typeof gen('uuidv7', { form: 'bigint' }), 'bigint');
  const wide = gen('ksuid', { form: 'bigint' });
  assert.ok(wide >= 0n && wide < 2n ** 160n);
  assert.equal(convert(wide, 'bigint', 'ksuid'), wide);
  const dec = gen('snowflake', { form: 'int' });
  assert.match(dec, /^[1-9][0-9]*$/);
  assert.equal(BigInt(inspect(dec, 'snowflake').int), BigInt(dec));
  assert.match(gen('uuidv7', { form: 'hex' }), /^[0-9a-f]{32}$/);
  assert.match(gen('ulid', { form: 'uuid' }), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(gen('uuidv7', { form: 'uuid' }), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
  assert.match(gen('typeid', { form: 'uuid', prefix: '' }), /^[0-9a-f]{8}-/);
  const bigs = gen('nanoflake', 100, { form: 'bigint' });
  for (let i = 1; i < bigs.length; i++) assert.ok(bigs[i - 1] < bigs[i]);
  // A number only where every ID is a safe integer: no format of today's.
  for (const name of ['nanoflake', 'uexky', 'uuidv7']) {
    throwsWith(() => gen(name, { form: 'number' }), mintid.ArgumentError, 'MINTID_EINVAL',
               `form: ${name}'s IDs go past 2^53-1 (Number.MAX_SAFE_INTEGER)`);
  }
  throwsWith(() => gen('scru128', { form: 'uuid' }), mintid.ArgumentError, 'MINTID_EFORM',
             "form: scru128 has no 'uuid' form; its forms are text, hex; or 'bigint' (its value) or 'bytes'");
});

test('gen: node, epoch and prefix', () => {
  assert.equal(inspect(gen('nanoflake', { node: 7 }), 'nanoflake').generator, 7);
  assert.equal(inspect(gen('nanoflake', { node: 7n }), 'nanoflake').generator, 7);
  const d = inspect(gen('snowflake', { node: 3, epoch: 'discord' }), 'snowflake', { epoch: 'discord' });
  assert.deepEqual([d.node, d.worker], [3, 3]);
  assert.ok(Math.abs(d.unix_ms - Date.now()) < 60000);
  assert.ok(d.time instanceof Date && d.time.getTime() === d.unix_ms);
  for (const epoch of [1420070400000, new Date(1420070400000), '2015-01-01T00:00:00Z', 1420070400000n]) {
    const id = gen('snowflake', { epoch });
    assert.ok(Math.abs(inspect(id, 'snowflake', { epoch: 'discord' }).unix_ms - Date.now()) < 60000);
  }
  const users = gen('typeid', 2, { prefix: 'user' });
  assert.ok(users.every((u) => u.startsWith('user_') && u.length === 31));
  assert.equal(inspect(users[0]).prefix, 'user');
  throwsWith(() => gen('typeid', { prefix: 'User' }), mintid.ArgumentError, 'MINTID_EPREFIX',
             "prefix 'User': a typeid prefix is 1 to 63 of a-z and '_', starting and ending with a letter");
  throwsWith(() => gen('ulid', { prefix: 'user' }), mintid.ArgumentError, 'MINTID_EPREFIX',
             "prefix 'user': ulid has no type prefix");
  throwsWith(() => gen('typeid', { prefix: 'user', form: 'bytes' }), mintid.ArgumentError, 'MINTID_EPREFIX',
             "only typeid's text form carries a prefix, not its bytes form");
});

test('gen: a batch longer than one call into the addon', () => {
  const ids = gen('uuidv7', 70000, { form: 'hex' });
  assert.equal(ids.length, 70000);
  assert.equal(new Set(ids).size, 70000);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i]);
});

test('Generator', () => {
  const g = new Generator('nanoflake', { node: 1, form: 'bigint' });
  const a = g.next();
  const [b, c] = g.nextMany(2);
  let d;
  for (d of g) break;
  assert.ok(a < b && b < c && c < d);
  assert.equal(g.format, 'nanoflake');
  assert.equal(g.node, 1);
  assert.equal(g.epoch, 1288834974657);
  assert.equal(g.shared, true);
  assert.equal(g.form, 'bigint');
  assert.equal(g.prefix, '');
  assert.equal(path.basename(g.path), 'mintid-nanoflake-node1-epoch1288834974657');
  assert.equal(path.dirname(g.path), process.env.MINTID_HOST_DIR);
  const own = new Generator('ulid', { shared: false });
  assert.equal(own.shared, false);
  assert.equal(own.path, null);
  assert.equal(own.node, null);
  const users = new Generator('typeid', { prefix: 'user' });
  assert.equal(users.prefix, 'user');
  assert.ok(users.next().startsWith('user_'));
  assert.deepEqual(users.nextMany(0), []);
  assert.match(require('node:util').inspect(g), /^Generator\('nanoflake', \{ epoch: 1288834974657, node: 1, shared: true, form: 'bigint' \}\)$/);
  // gen() and a Generator of the same format, node and epoch continue one sequence.
  const x = gen('nanoflake', { node: 1, form: 'bigint' });
  assert.ok(x > d && g.next() > x);
});

test('Generator: overflow fail', () => {
  // 256 sonyflakes per 10 ms unit: a batch of 1000 cannot be minted without waiting.
  const g = new Generator('sonyflake', { node: 5, overflow: 'fail', shared: false });
  throwsWith(() => g.nextMany(1000), mintid.ExhaustedError, 'MINTID_EEXHAUSTED', 'sequence');
  const w = new Generator('sonyflake', { node: 5, shared: false });
  assert.equal(w.nextMany(600).length, 600);
});

test('inspect', () => {
  const d = inspect('1c49kkphl4ow', { epoch: 1420070400000 });
  assert.deepEqual({ ...d, time: d.time.toISOString() }, {
    format: 'nanoflake', text: '1c49kkphl4ow', hex: '0271065ac1000000', int: '175928847298985984',
    unix_ms: 1462015105796, time: '2016-04-30T11:18:25.796Z', generator: 0, sequence: 0,
  });
  assert.equal(inspect(175928847298985984n, 'nanoflake', { epoch: '2015-01-01' }).text, '1c49kkphl4ow');
  assert.equal(inspect(Buffer.from('0271065ac1000000', 'hex'), 'nanoflake', { epoch: '2015-01-01' }).text,
               '1c49kkphl4ow');
  assert.equal(inspect(new Uint8Array(Buffer.from('0271065ac1000000', 'hex')), 'nanoflake').hex, '0271065ac1000000');
  assert.equal(inspect('01ARZ3NDEKTSV4RRFFQ69G5FAV').time.toISOString(), '2016-07-30T23:54:10.259Z');
  assert.equal(inspect('0b20f0b8c3ad7e3b', 'uexky', { fromForm: 'hex' }).text, '47sg8LjDrX');
  const t = inspect('user_01h455vb4pex5vsknk084sn02q');
  assert.deepEqual([t.format, t.prefix, t.uuid], ['typeid', 'user', '01890a5d-ac96-774b-bcce-b302099a8057']);
  assert.equal(inspect('01890a5d-ac96-774b-bcce-b302099a8057', 'typeid').text, '01h455vb4pex5vsknk084sn02q');
  assert.equal(inspect(1000, 'snowflake').int, '1000');
  throwsWith(() => inspect('8000000000000', 'ulid-flake'), mintid.InvalidIdError, 'MINTID_EOVERFLOW',
             "ulid-flake: '8000000000000' exceeds 7ZZZZZZZZZZZZ (2^63-1)");
  throwsWith(() => inspect('0000000000000'), mintid.InvalidIdError, 'MINTID_EAMBIGUOUS',
             "'0000000000000' is ambiguous: it could be ulid-flake, ulid-flake-scalable or nanoflake; say which with " +
             'the format option');
  throwsWith(() => inspect(2n ** 64n), mintid.InvalidIdError, 'MINTID_EOVERFLOW',
             'an integer of 65 bits is not an ID: its values are 0 to 2^64-1');
  throwsWith(() => inspect(-1n, 'ulid'), mintid.InvalidIdError, 'MINTID_EOVERFLOW',
             'ulid: -1 is not an ID: its values are 0 to 2^128-1');
  throwsWith(() => inspect(2n ** 200n, 'ulid'), mintid.InvalidIdError, 'MINTID_EOVERFLOW',
             'ulid: an integer of 201 bits is not an ID: its values are 0 to 2^128-1');
  throwsWith(() => inspect(2n ** 300n, 'ulid'), mintid.InvalidIdError, 'MINTID_EOVERFLOW',
             'ulid: a BigInt of more than 256 bits is not an ID: its values are 0 to 2^128-1');
  throwsWith(() => inspect(1.5), mintid.ArgumentTypeError, 'MINTID_EINVAL', 'must be a safe integer');
  throwsWith(() => inspect({}), mintid.ArgumentTypeError, 'MINTID_EINVAL',
             'an ID is a string, a Buffer or Uint8Array, a BigInt or a safe integer');
  throwsWith(() => inspect(new Uint16Array(4)), mintid.ArgumentTypeError);
  throwsWith(() => inspect('x', { fromForm: 'hex' }), mintid.ArgumentError, 'MINTID_EINVAL',
             'fromForm needs the format option');
  throwsWith(() => inspect('x', 'ulid', { format: 'ulid' }), mintid.ArgumentTypeError, undefined, 'given twice');
});

test('convert', () => {
  assert.equal(convert('05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51', 'hex'), '017c083c130732153679e83c4fc65664e6a964a1');
  assert.equal(convert('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'uuid'), '01563e3a-b5d3-d676-4c61-efb99302bd5b');
  assert.equal(convert('1c49kkphl4ow', 'bigint'), 175928847298985984n);
  assert.deepEqual(convert(175928847298985984n, 'bytes', 'nanoflake'), Buffer.from('0271065ac1000000', 'hex'));
  assert.equal(convert('01890a5d-ac96-774b-bcce-b302099a8057', 'text', 'typeid', { prefix: 'user' }),
               'user_01h455vb4pex5vsknk084sn02q');
  assert.equal(convert('user_01h455vb4pex5vsknk084sn02q', 'text', { prefix: 'post' }), 'post_01h455vb4pex5vsknk084sn02q');
  assert.equal(convert('user_01h455vb4pex5vsknk084sn02q', 'uuid'), '01890a5d-ac96-774b-bcce-b302099a8057');
  assert.equal(convert('user_01h455vb4pex5vsknk084sn02q', 'text'), 'user_01h455vb4pex5vsknk084sn02q');
  assert.equal(convert('1c49kkphl4ow', 'int'), '175928847298985984');
  const u = gen('uuidv7');
  assert.equal(convert(convert(u, 'bigint'), 'text', 'uuidv7'), u);
  throwsWith(() => convert('1c49kkphl4ow', 'uuid'), mintid.ArgumentError, 'MINTID_EFORM',
             "to: nanoflake has no 'uuid' form");
  throwsWith(() => convert('1c49kkphl4ow', 'number'), mintid.ArgumentError, 'MINTID_EINVAL',
             "to: nanoflake's IDs go past 2^53-1");
  throwsWith(() => convert('1c49kkphl4ow', 7), mintid.ArgumentTypeError);
});

test('min and max', () => {
  const jan1 = new Date('2026-01-01T00:00:00Z');
  assert.deepEqual([min('nanoflake', jan1), max('nanoflake', jan1)], ['f8syghfcw000', 'f8syghffdwcf']);
  assert.deepEqual([min('uuidv7', jan1), max('uuidv7', Date.UTC(2026, 0, 2))],
                   ['019b76da-a800-7000-8000-000000000000', '019b7c01-0400-7fff-bfff-ffffffffffff']);
  assert.equal(min('typeid', jan1, { prefix: 'user' }), 'user_01kdvdna00e008000000000000');
  assert.equal(min('snowflake', jan1.getTime(), { form: 'bigint', epoch: 'discord' }),
               BigInt(jan1.getTime() - 1420070400000) << 22n);
  const now = gen('ulid');
  assert.ok(min('ulid', Date.now() - 1000) < now && now < max('ulid', Date.now() + 1000));
  throwsWith(() => min('nanoflake', new Date('2000-01-01T00:00:00Z')), mintid.ArgumentError, 'MINTID_EINVAL',
             'min: nanoflake carries times from 2010-11-04T01:42:54.657Z to 2080-07-10T17:30:30.208Z only');
  throwsWith(() => max('nanoflake', '2026-01-01'), mintid.ArgumentTypeError, 'MINTID_EINVAL',
             'time must be a Date or Unix milliseconds');
  throwsWith(() => min('nanoflake', new Date('x')), mintid.ArgumentError, undefined, 'time is an invalid Date');
});

test('errors: the library sentence, class, code and status', () => {
  const e = throwsWith(() => gen('uuid7'), mintid.UnknownFormatError, 'MINTID_EFORMAT',
                       "unknown format 'uuid7'; did you mean 'uuidv7'?");
  assert.equal(e.status, -3);
  assert.ok(e instanceof mintid.ArgumentError && e instanceof Error);
  assert.ok(e.stack.includes('api.test.mjs'));
  throwsWith(() => gen('nanoflake', { node: 1024 }), mintid.ArgumentError, 'MINTID_ERANGE',
             "node 1024 is out of range: nanoflake's node ids are 0..1023");
  throwsWith(() => gen('snowflake', { epoch: 'soon' }), mintid.ArgumentError, 'MINTID_EINVAL',
             "epoch 'soon' is not a time: give Unix milliseconds or RFC 3339 UTC (2015-01-01T00:00:00Z), or one of " +
             'twitter, discord');
  throwsWith(() => gen('snowflake', { epoch: new Date(Date.now() + 86400000) }), mintid.ArgumentError, 'MINTID_EINVAL',
             'in the future');
  throwsWith(() => gen('ulid', { epoch: 0 }), mintid.ArgumentError, 'MINTID_EINVAL',
             'ulid has a fixed epoch (1970-01-01T00:00:00.000Z)');
  throwsWith(() => new Generator('nanoflake', { node: 'host', shared: false }), mintid.ArgumentError, 'MINTID_EINVAL',
             "node 'host' mints in the sequence of the host's mintidd: it needs shared: true");
  // JavaScript's own: types and options.
  throwsWith(() => gen(7), mintid.ArgumentTypeError, 'MINTID_EINVAL', "format must be a format's name (a string)");
  throwsWith(() => gen('ulid', -1), mintid.ArgumentError, undefined, 'n must be 0 to 4294967295, not -1');
  throwsWith(() => gen('ulid', 1.5), mintid.ArgumentTypeError, undefined, 'n must be a whole number, not 1.5');
  throwsWith(() => gen('ulid', { nod: 1 }), mintid.ArgumentTypeError, undefined,
             "gen(): unknown option 'nod'; it takes node, epoch, form, prefix");
  throwsWith(() => gen('nanoflake', { node: '12' }), mintid.ArgumentTypeError, undefined,
             "node must be a whole number, 'host' or 'ordinal[+N]', not a string (\"12\")");
  throwsWith(() => gen('nanoflake', { node: true }), mintid.ArgumentTypeError);
  throwsWith(() => gen('nanoflake', { epoch: {} }), mintid.ArgumentTypeError);
  throwsWith(() => gen('nanoflake', { form: 1 }), mintid.ArgumentTypeError, undefined, 'form must be a string');
  throwsWith(() => new Generator('nanoflake', { overflow: 'never' }), mintid.ArgumentError, undefined,
             "overflow must be 'wait' or 'fail'");
  throwsWith(() => new Generator('nanoflake', { shared: 1 }), mintid.ArgumentTypeError);
  // An unparsable environment is the caller's input, as an argument would be.
  const { spawnSync } = require('node:child_process');
  const p = spawnSync(process.execPath, ['-e', `
    const m = require(${JSON.stringify(pkg)});
    try { m.gen('nanoflake'); } catch (e) { console.log(e.name + ': ' + e.message); }
    try { m.gen('ulid'); } catch (e) { console.log(e.name + ': ' + e.message); }`],
  { env: { ...process.env, MINTID_NODE: '5000', MINTID_HOST_DIR: 'relative' }, encoding: 'utf8' });
  assert.equal(p.stdout, "ArgumentError: MINTID_NODE: node 5000 is out of range: nanoflake's node ids are 0..1023\n" +
    "ArgumentError: MINTID_HOST_DIR 'relative' is not an absolute path: processes in other working directories " +
    'would mint apart\n');
});

test('errors: a host-wide state that cannot be made is a HostError', () => {
  const { spawnSync } = require('node:child_process');
  const p = spawnSync(process.execPath, ['-e', `
    const m = require(${JSON.stringify(pkg)});
    try { m.gen('ulid'); } catch (e) { console.log(e.name, e.code); console.log(e.message); }
    console.log(m.inspect(new m.Generator('ulid', { shared: false }).next()).format);`],
  { env: { ...process.env, MINTID_HOST_DIR: '/nonexistent/mintid' }, encoding: 'utf8' });
  const [cls, message, after] = p.stdout.split('\n');
  assert.equal(cls, 'HostError MINTID_EHOST');
  assert.match(message, /\/nonexistent\/mintid/);
  assert.match(message, /; shared: false mints apart from other processes$/);
  assert.equal(after, 'ulid');
});

test('ESM and CommonJS are one module', () => {
  for (const name of ['gen', 'Generator', 'inspect', 'convert', 'min', 'max', 'formats', 'MintidError',
    'ArgumentError', 'ArgumentTypeError', 'UnknownFormatError', 'InvalidIdError', 'ClockError', 'WaitTimeoutError',
    'ExhaustedError', 'HostError', 'version']) {
    assert.equal(esm[name], mintid[name], name);
  }
  assert.equal(esm.default, mintid);
  const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
  assert.equal(mintid.version, version, "package.json's version is the library's");
  assert.throws(() => esm.gen('nope'), esm.UnknownFormatError);
});
