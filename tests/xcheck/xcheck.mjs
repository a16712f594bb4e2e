#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// xcheck.mjs - cross-checks mintid's standard formats against the reference
// implementations on npm, at the exact versions pinned in package-lock.json
// (the versions named in the "Test vectors" sections of the format pages,
// docs/formats/*.md).
//
//   1. mintid -> reference: mintid mints IDs of each format; the reference
//      parses every one and must report the same fields as `mintid inspect`,
//      and the reference's ordering must agree with mintid's (each ID greater
//      than the one before, sorted texts in generation order).
//   2. reference -> mintid: the reference mints IDs (and a few edge values);
//      `mintid inspect --format F` must report the fields the reference says.
//
// sonyflake is skipped: npm has no faithful implementation (see section 5 of
// the spec). Where a check disagrees, the spec decides who is at fault; it
// names the references' known quirks.
//
// Usage: node tests/xcheck/xcheck.mjs [PATH/TO/mintid]
//   The binary comes from the argument, else $MINTID, else ../../build/mintid
//   relative to this script. XCHECK_N (default 1000) sets the IDs per check.
// Needs tests/xcheck/node_modules: `make deps` installs it (npm ci).
// Exit status: 0 all agree, 1 a mismatch (printed), 2 cannot run.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomInt } from 'node:crypto';

const here = dirname(fileURLToPath(import.meta.url));
const MINTID = resolve(process.argv[2] || process.env.MINTID || join(here, '../../build/mintid'));
const N = Number(process.env.XCHECK_N || 1000);

// ---- setup ----------------------------------------------------------------

function cannotRun(msg) {
  console.error(`xcheck: ${msg}`);
  process.exit(2);
}

const PINNED = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies;
if (!existsSync(join(here, 'node_modules'))) {
  cannotRun('tests/xcheck/node_modules is missing: run `make deps` ' +
            '(it runs `npm ci --prefix tests/xcheck`)');
}
for (const [name, version] of Object.entries(PINNED)) {
  const pj = join(here, 'node_modules', name, 'package.json');
  const got = existsSync(pj) ? JSON.parse(readFileSync(pj, 'utf8')).version : 'missing';
  if (got !== version) {
    cannotRun(`node_modules has ${name} ${got}, package-lock.json pins ${version}: run \`make deps\``);
  }
}
if (!existsSync(MINTID)) cannotRun(`no mintid binary at ${MINTID} (give its path as the argument or in $MINTID)`);

// uuid 14 draws from the global Web Crypto object, a global only since Node 19.
if (!globalThis.crypto) globalThis.crypto = (await import('node:crypto')).webcrypto;
const uuid = await import('uuid');
const ULID = await import('ulid');
const { Scru128Id, Scru128Generator } = await import('scru128');
const KSUID = createRequire(import.meta.url)('ksuid');
const { TypeID, typeid } = await import('typeid-js');
const { Snowflake, TwitterSnowflake, DiscordSnowflake } = await import('@sapphire/snowflake');

const TWITTER_EPOCH = 1288834974657;
const DISCORD_EPOCH = 1420070400000;

// ---- reporting --------------------------------------------------------------

const results = [];          // { name, ok }
let current = null;
const SHOW = 12;             // mismatches printed per check

function begin(name) {
  current = { name, mismatches: 0, count: 0, notes: [] };
}
function mismatch(msg) {
  if (!current) {  // outside a check: a failure of its own
    console.log(`FAIL ${msg}`);
    results.push({ name: msg, ok: false });
    return;
  }
  current.mismatches++;
  if (current.mismatches <= SHOW) console.log(`  MISMATCH [${current.name}] ${msg}`);
}
function end() {
  const c = current;
  if (c.count === 0) mismatch('no IDs were checked');
  if (c.mismatches > SHOW) console.log(`  ... and ${c.mismatches - SHOW} more mismatches in [${c.name}]`);
  const ok = c.mismatches === 0;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.count} IDs${ok ? '' : `, ${c.mismatches} mismatches`}` +
              (c.notes.length ? ` (${c.notes.join('; ')})` : ''));
  results.push({ name: c.name, ok });
  current = null;
}
function note(msg) { console.log(`note: ${msg}`); }

const show = (v) => (typeof v === 'bigint' ? `${v}n` : JSON.stringify(v));

// ---- mintid -----------------------------------------------------------------

function mintid(args, input) {
  const r = spawnSync(MINTID, args, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) cannotRun(`cannot run ${MINTID}: ${r.error.message}`);
  return r;
}

function gen(format, n, extra = []) {
  const r = mintid(['gen', format, '-n', String(n), ...extra]);
  if (r.status !== 0) {
    mismatch(`mintid gen ${format} ${extra.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
    return [];
  }
  const ids = r.stdout.split('\n').filter((l) => l !== '');
  if (ids.length !== n) mismatch(`mintid gen ${format} -n ${n} printed ${ids.length} lines`);
  return ids;
}

// Runs `mintid inspect --format F` on the IDs (on standard input) and returns
// one parsed object per ID, or null for an ID mintid rejected (reported).
function inspect(format, ids, extra = []) {
  const args = ['inspect', '--format', format, ...extra];
  const r = mintid(args, ids.map((s) => s + '\n').join(''));
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  if (r.status === 0 && lines.length === ids.length) return lines.map((l) => JSON.parse(l));
  // Something was rejected: ask about each ID on its own to say which.
  return ids.map((id) => {
    const one = mintid([...args, '--', id]);
    if (one.status !== 0) {
      mismatch(`mintid ${args.join(' ')} rejects ${show(id)} (exit ${one.status}: ${one.stderr.trim()})`);
      return null;
    }
    return JSON.parse(one.stdout);
  });
}

// Probes whether this mintid accepts a command line (for options that may
// not have landed yet).
function accepts(args) {
  return mintid(args).status === 0;
}

// ---- helpers ----------------------------------------------------------------

const hexOf = (bytes) => Buffer.from(bytes).toString('hex');
const bigOfHex = (hex) => BigInt('0x' + (hex || '0'));
const uuidText = (hex) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
const ms48 = (hex) => Number(bigOfHex(hex.slice(0, 12)));

// RFC 3339 UTC with milliseconds; years past 9999 with a sign and five
// digits (the spec's ISO 8601 expanded form), where JavaScript writes six.
function isoTime(ms) {
  if (ms === null) return null;
  return new Date(ms).toISOString().replace(/^([+-])0(\d{5}-)/, '$1$2');
}

const COMMON = ['format', 'text', 'hex', 'unix_ms', 'time'];
const FIELDS = {
  uuidv7: [...COMMON, 'version', 'rand_a', 'variant', 'rand_b'],
  ulid: [...COMMON, 'randomness'],
  scru128: [...COMMON, 'counter_hi', 'counter_lo', 'entropy'],
  snowflake: [...COMMON, 'int', 'node', 'datacenter', 'worker', 'sequence'],
  ksuid: [...COMMON, 'timestamp', 'payload'],
  typeid: [...COMMON, 'prefix', 'uuid', 'version', 'variant'],
};

// Compares mintid's inspect object with the fields the reference gives.
// Expected values carry the JSON type mintid must use: strings for the wide
// integers, numbers otherwise, null where there is no time.
function compare(format, input, got, want) {
  current.count++;
  if (got === null) return;  // rejected; already reported
  const keys = Object.keys(got).sort().join(',');
  const wantKeys = [...FIELDS[format]].sort().join(',');
  if (keys !== wantKeys) mismatch(`${show(input)}: fields are {${keys}}, expected {${wantKeys}}`);
  want = { format, time: isoTime(want.unix_ms), ...want };
  for (const [k, v] of Object.entries(want)) {
    if (got[k] !== v) mismatch(`${show(input)}: ${k} = ${show(got[k])}, reference says ${show(v)}`);
  }
}

// mintid's IDs, in generation order, must be strictly increasing by the
// reference's comparison, and sorting the texts must not move them (for the
// formats whose text sorts as the ID does).
function checkOrder(ids, cmp, { textSorts = true } = {}) {
  for (let i = 1; i < ids.length; i++) {
    if (!(cmp(ids[i - 1], ids[i]) < 0)) {
      mismatch(`order: reference says ${show(ids[i - 1])} is not before ${show(ids[i])} (positions ${i - 1}, ${i})`);
    }
  }
  if (textSorts) {
    const sorted = [...ids].sort();
    const at = sorted.findIndex((s, i) => s !== ids[i]);
    if (at >= 0) mismatch(`order: sorted texts differ from generation order at position ${at}: ${show(sorted[at])} vs ${show(ids[at])}`);
  }
  const bySorted = [...ids].sort(cmp);
  const at = bySorted.findIndex((s, i) => s !== ids[i]);
  if (at >= 0) mismatch(`order: the reference's sort differs from generation order at position ${at}`);
}

// The reference's fields must agree with themselves (a parse that loses
// information would hide a difference).
function guard(what, fn) {
  try {
    return fn();
  } catch (e) {
    mismatch(`${what}: reference throws ${e.name}: ${e.message}`);
    return undefined;
  }
}

// ---- expected fields, as each reference reports them ---------------------------

function refUuidv7(text) {
  return guard(`uuid.parse(${show(text)})`, () => {
    if (!uuid.validate(text)) mismatch(`uuid.validate(${show(text)}) is false`);
    else if (uuid.version(text) !== 7) mismatch(`uuid.version(${show(text)}) = ${uuid.version(text)}`);
    const b = uuid.parse(text);
    const hex = hexOf(b);
    return {
      text: uuid.stringify(b),
      hex,
      unix_ms: ms48(hex),
      version: b[6] >> 4,
      rand_a: ((b[6] & 0x0f) << 8) | b[7],
      variant: b[8] >> 6,
      rand_b: String(bigOfHex(hex.slice(16)) & ((1n << 62n) - 1n)),
    };
  });
}

function refUlid(text) {
  return guard(`ulid decode ${show(text)}`, () => {
    if (!ULID.isValid(text)) mismatch(`ulid isValid(${show(text)}) is false`);
    const hex = ULID.ulidToUUID(text).replace(/-/g, '').toLowerCase();
    return {
      text: ULID.uuidToULID(ULID.ulidToUUID(text)),
      hex,
      unix_ms: ULID.decodeTime(text),
      randomness: String(bigOfHex(hex.slice(12))),
    };
  });
}

function refScru128(text) {
  return guard(`Scru128Id.fromString(${show(text)})`, () => {
    const id = Scru128Id.fromString(text);
    return {
      text: id.toString(),
      hex: id.toHex().replace(/^0x/, ''),  // toHex() writes a 0x prefix
      unix_ms: id.timestamp,
      counter_hi: id.counterHi,
      counter_lo: id.counterLo,
      entropy: id.entropy,
    };
  });
}

function refSnowflake(sf, text) {
  return guard(`Snowflake.deconstruct(${show(text)})`, () => {
    const d = sf.deconstruct(text);
    return {
      text: d.id.toString(),
      hex: d.id.toString(16).padStart(16, '0'),
      int: d.id.toString(),
      unix_ms: Number(d.timestamp),
      node: Number((d.workerId << 5n) | d.processId),
      datacenter: Number(d.workerId),
      worker: Number(d.processId),
      sequence: Number(d.increment),
    };
  });
}

function refKsuid(text) {
  return guard(`KSUID.parse(${show(text)})`, () => {
    const k = KSUID.parse(text);
    return {
      text: k.string,
      hex: k.raw.toString('hex'),
      unix_ms: k.date.getTime(),
      timestamp: k.timestamp,
      payload: k.payload.toString('hex'),
    };
  });
}

function refTypeid(text) {
  return guard(`TypeID.fromString(${show(text)})`, () => {
    const t = TypeID.fromString(text);
    const b = t.toUUIDBytes();
    const hex = hexOf(b);
    const version = b[6] >> 4;
    const variant = b[8] >> 6;
    // toUUID() throws on UUIDs its uuid dependency calls invalid (spec
    // section 7); the bytes are the reference's answer then.
    let uuidStr;
    try { uuidStr = t.toUUID(); } catch { uuidStr = uuidText(hex); }
    return {
      text: t.toString(),
      hex,
      prefix: t.getType(),
      uuid: uuidStr,
      version,
      variant,
      unix_ms: version === 7 && variant === 2 ? ms48(hex) : null,
    };
  });
}

const cmpBytes = (f) => (a, b) => Buffer.compare(Buffer.from(f(a)), Buffer.from(f(b)));

// ---- 1. mintid -> reference ---------------------------------------------------

function mintidToRef(name, format, ids, ref, cmp, { inspectArgs = [], textSorts = true } = {}) {
  begin(`${name}: mintid -> ${refName(format)}`);
  const got = inspect(format, ids, inspectArgs);
  ids.forEach((id, i) => {
    const want = ref(id);
    if (want !== undefined) {
      compare(format, id, got[i], want);
      if (want.text !== id) mismatch(`${show(id)}: the reference's canonical text is ${show(want.text)}`);
    } else {
      current.count++;
    }
  });
  checkOrder(ids, cmp, { textSorts });
  end();
}

// ---- 2. reference -> mintid ---------------------------------------------------

function refToMintid(name, format, inputs, ref, { inspectArgs = [], cmp = null } = {}) {
  begin(`${name}: ${refName(format)} -> mintid`);
  const got = inspect(format, inputs, inspectArgs);
  inputs.forEach((id, i) => {
    const want = ref(id);
    if (want !== undefined) compare(format, id, got[i], want);
    else current.count++;
  });
  // mintid's binary form must order the IDs as the reference does.
  if (cmp) {
    const order = inputs.map((_, i) => i).filter((i) => got[i]);
    const byRef = [...order].sort((a, b) => cmp(inputs[a], inputs[b]) || a - b);
    const byHex = [...order].sort((a, b) => (got[a].hex < got[b].hex ? -1 : got[a].hex > got[b].hex ? 1 : a - b));
    const at = byRef.findIndex((v, i) => v !== byHex[i]);
    if (at >= 0) mismatch(`order: mintid's hex sorts ${show(inputs[byHex[at]])} where the reference sorts ${show(inputs[byRef[at]])}`);
  }
  end();
}

const REFS = {
  uuidv7: 'uuid', ulid: 'ulid', scru128: 'scru128', snowflake: '@sapphire/snowflake',
  ksuid: 'ksuid', typeid: 'typeid-js',
};
const refName = (format) => `${REFS[format]}@${PINNED[REFS[format]]}`;

// ---- the checks -----------------------------------------------------------------

console.log(`xcheck: ${MINTID}, ${N} IDs per check; references: ` +
            Object.entries(PINNED).map(([n, v]) => `${n}@${v}`).join(', '));

// Options that may not be in every mintid yet.
const discordEpoch = accepts(['gen', 'snowflake', '--epoch', 'discord', '-n', '1']) ? 'discord' : String(DISCORD_EPOCH);
if (discordEpoch !== 'discord') note(`mintid does not take --epoch discord yet; using ${DISCORD_EPOCH}`);
const genPrefix = accepts(['gen', 'typeid', '--prefix', 'user', '-n', '1']);
if (!genPrefix) note('mintid gen typeid has no --prefix yet; minting unprefixed TypeIDs (prefixed ones are checked through inspect)');

// uuidv7
{
  const ids = gen('uuidv7', N);
  mintidToRef('uuidv7', 'uuidv7', ids, refUuidv7, cmpBytes(uuid.parse));

  const inputs = [];
  for (let i = 0; i < N; i++) inputs.push(uuid.v7());
  const zero = new Uint8Array(16), ones = new Uint8Array(16).fill(0xff);
  inputs.push(
    uuid.v7({ msecs: 0, random: zero }),
    uuid.v7({ msecs: 2 ** 48 - 1, random: ones }),
    uuid.v7({ msecs: 1645557742000, random: zero }),
    uuid.v7({ msecs: 1645557742000, random: ones, seq: 0 }),
    '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
  );
  for (let i = 0; i < 200; i++) inputs.push(uuid.v7({ msecs: randomInt(2 ** 48 - 1), random: randomBytes(16) }));
  refToMintid('uuidv7', 'uuidv7', inputs, refUuidv7, { cmp: cmpBytes(uuid.parse) });

  // Other spellings the spec accepts: the canonical text is what the reference prints.
  const spellings = inputs.slice(0, 50).flatMap((u) => [u.toUpperCase(), u.replace(/-/g, ''), `{${u}}`, `urn:uuid:${u}`]);
  refToMintid('uuidv7 spellings', 'uuidv7', spellings, (s) => {
    const canon = s.replace(/^urn:uuid:|[{}]/gi, '').toLowerCase();
    const u = canon.length === 32 ? uuidText(canon) : canon;
    return refUuidv7(u);
  });
}

// ulid
{
  const ids = gen('ulid', N);
  mintidToRef('ulid', 'ulid', ids, refUlid, cmpBytes((s) => Buffer.from(ULID.ulidToUUID(s).replace(/-/g, ''), 'hex')));

  const mono = ULID.monotonicFactory();
  const inputs = [];
  for (let i = 0; i < N; i++) inputs.push(mono());
  inputs.push(ULID.ulid(0), ULID.ulid(2 ** 48 - 1), ULID.MIN_ULID, ULID.MAX_ULID, '01ARYZ6S41TSV4RRFFQ69G5FAV');
  for (let i = 0; i < 200; i++) inputs.push(ULID.ulid(randomInt(2 ** 48 - 1)));
  refToMintid('ulid', 'ulid', inputs, refUlid,
              { cmp: cmpBytes((s) => Buffer.from(ULID.ulidToUUID(s).replace(/-/g, ''), 'hex')) });
  refToMintid('ulid lower case', 'ulid', inputs.slice(0, 100).map((s) => s.toLowerCase()),
              (s) => refUlid(s.toUpperCase()));
}

// scru128
{
  const ids = gen('scru128', N);
  mintidToRef('scru128', 'scru128', ids, refScru128, (a, b) => Scru128Id.fromString(a).compareTo(Scru128Id.fromString(b)));

  const g = new Scru128Generator();
  const inputs = [];
  for (let i = 0; i < N; i++) inputs.push(g.generate().toString());
  inputs.push(
    Scru128Id.fromFields(0, 0, 0, 0).toString(),
    Scru128Id.fromFields(2 ** 48 - 1, 0xffffff, 0xffffff, 0xffffffff).toString(),
    '0372hg16csmsm50l8dikcvukc',
  );
  for (let i = 0; i < 200; i++) {
    inputs.push(Scru128Id.fromFields(randomInt(2 ** 48 - 1), randomInt(2 ** 24), randomInt(2 ** 24), randomBytes(4).readUInt32BE()).toString());
  }
  refToMintid('scru128', 'scru128', inputs, refScru128,
              { cmp: (a, b) => Scru128Id.fromString(a).compareTo(Scru128Id.fromString(b)) });
  refToMintid('scru128 upper case', 'scru128', inputs.slice(0, 100).map((s) => s.toUpperCase()),
              (s) => refScru128(s.toLowerCase()));
}

// snowflake: Twitter's epoch (the default) and Discord's
{
  const cmp = (a, b) => Snowflake.compare(a, b);
  // The named epochs are the references' (spec section 4).
  if (Number(TwitterSnowflake.epoch) !== TWITTER_EPOCH) mismatch(`Sapphire's Twitter epoch is ${TwitterSnowflake.epoch}`);
  if (Number(DiscordSnowflake.epoch) !== DISCORD_EPOCH) mismatch(`Sapphire's Discord epoch is ${DiscordSnowflake.epoch}`);
  // node 325 = datacenter 10, worker 5 (the spec's Sapphire example)
  const tw = gen('snowflake', N, ['--node', '325']);
  mintidToRef('snowflake twitter', 'snowflake', tw, (s) => refSnowflake(TwitterSnowflake, s), cmp, { textSorts: false });
  for (const s of tw.slice(0, 1)) {
    const d = TwitterSnowflake.deconstruct(s);
    if (d.workerId !== 10n || d.processId !== 5n) mismatch(`--node 325 minted ${s}: Sapphire workerId ${d.workerId}, processId ${d.processId}, expected 10 and 5`);
  }
  const dc = gen('snowflake', N, ['--node', '37', '--epoch', discordEpoch]);
  mintidToRef('snowflake discord', 'snowflake', dc, (s) => refSnowflake(DiscordSnowflake, s), cmp,
              { textSorts: false, inspectArgs: ['--epoch', discordEpoch] });

  for (const [label, sf, args] of [['twitter', TwitterSnowflake, []], ['discord', DiscordSnowflake, ['--epoch', discordEpoch]]]) {
    const epoch = Number(sf.epoch);
    const inputs = [];
    const now = Date.now();
    for (let i = 0; i < N; i++) {
      inputs.push(sf.generate({ timestamp: now + Math.floor(i / 7), workerId: BigInt(i % 32), processId: BigInt((i >> 5) % 32) }).toString());
    }
    inputs.push(
      sf.generate({ timestamp: epoch, increment: 0n, workerId: 0n, processId: 0n }).toString(),
      sf.generate({ timestamp: epoch + 2 ** 41 - 1, increment: 4095n, workerId: 31n, processId: 31n }).toString(),
      '175928847299117063',
    );
    for (let i = 0; i < 200; i++) {
      inputs.push(sf.generate({ timestamp: epoch + randomInt(2 ** 41), increment: BigInt(randomInt(4096)),
                               workerId: BigInt(randomInt(32)), processId: BigInt(randomInt(32)) }).toString());
    }
    refToMintid(`snowflake ${label}`, 'snowflake', inputs, (s) => refSnowflake(sf, s), { inspectArgs: args, cmp });
  }
}

// sonyflake
note('sonyflake: skipped, npm has no faithful implementation (npm sonyflake counts ms, not 10 ms units); see section 5 of the spec');

// ksuid
{
  const ids = gen('ksuid', N);
  mintidToRef('ksuid', 'ksuid', ids, refKsuid, (a, b) => KSUID.parse(a).compare(KSUID.parse(b)));

  const MAX_MS = 1e3 * (2 ** 32 - 1) + 14e11;
  const inputs = [];
  for (let i = 0; i < N; i++) inputs.push(KSUID.randomSync().string);
  inputs.push(
    KSUID.fromParts(14e11, Buffer.alloc(16)).string,
    KSUID.fromParts(MAX_MS, Buffer.alloc(16, 0xff)).string,
    KSUID.MIN_STRING_ENCODED, KSUID.MAX_STRING_ENCODED, '0ujtsYcgvSTl8PAuAdqWYSMnLOv',
  );
  for (let i = 0; i < 200; i++) inputs.push(KSUID.randomSync(14e11 + randomInt(MAX_MS - 14e11)).string);
  refToMintid('ksuid', 'ksuid', inputs, refKsuid, { cmp: (a, b) => KSUID.parse(a).compare(KSUID.parse(b)) });
}

// typeid
{
  const cmp = cmpBytes((s) => TypeID.fromString(s).toUUIDBytes());
  const plain = gen('typeid', N);
  mintidToRef('typeid', 'typeid', plain, refTypeid, cmp);
  if (genPrefix) {
    const user = gen('typeid', N, ['--prefix', 'user']);
    mintidToRef('typeid user_', 'typeid', user, refTypeid, cmp);
  }
  // mintid's UUIDv7s as the suffix of prefixed TypeIDs, made by the reference
  const uuids = gen('uuidv7', N);
  const prefixed = uuids.map((u, i) => TypeID.fromUUID(['user', 'my__type', 'a'][i % 3], u).toString());
  refToMintid('typeid prefixed (mintid uuidv7)', 'typeid', prefixed, refTypeid);

  const inputs = [];
  for (let i = 0; i < N; i++) inputs.push(typeid(i % 2 ? 'user' : '').toString());
  const long = 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk';
  inputs.push(
    '00000000000000000000000000', '7zzzzzzzzzzzzzzzzzzzzzzzzz',
    'prefix_0123456789abcdefghjkmnpqrs', 'prefix_01h455vb4pex5vsknk084sn02q',
    'pre_fix_00000000000000000000000000', '01h5fskfsk4fpeqwnsyz5hj55t',
    `my__type_01h5fskfsk4fpeqwnsyz5hj55t`, `${long}_01h5fskfsk4fpeqwnsyz5hj55t`,
    TypeID.fromUUID('user', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f').toString(),
    TypeID.fromUUIDBytes(long, new Uint8Array(16).fill(0xff)).toString(),
  );
  for (let i = 0; i < 200; i++) inputs.push(TypeID.fromUUIDBytes('rand', randomBytes(16)).toString());
  refToMintid('typeid', 'typeid', inputs, refTypeid);
}

// ---- 3. strings the spec rejects ---------------------------------------------------
// mintid must reject every one. The reference is asked too: where it accepts
// one, that is one of its quirks the spec names (quirk: true), or a printed
// note; the spec stands either way.

function rejects(format, cases, refAccepts) {
  begin(`${format} rejects: mintid and ${refName(format)}`);
  const quirks = [];
  for (const { s, quirk = false } of cases) {
    current.count++;
    const r = mintid(['inspect', '--format', format, '--', s]);
    if (r.status === 0) mismatch(`mintid accepts ${show(s)}, which the spec rejects: ${r.stdout.trim()}`);
    else if (r.status !== 1) mismatch(`mintid inspect exits ${r.status} on ${show(s)}, expected 1: ${r.stderr.trim()}`);
    let acc;
    try { acc = refAccepts(s); } catch { acc = false; }
    if (acc && quirk) quirks.push(show(s));
    else if (acc) note(`${refName(format)} accepts ${show(s)} (the spec rejects it; not a listed quirk)`);
    else if (quirk) note(`${refName(format)} now rejects ${show(s)} (the spec lists it as accepted by the reference)`);
  }
  if (quirks.length) current.notes.push(`the reference wrongly accepts ${quirks.length}, as the spec says`);
  end();
}

{
  const A6 = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';
  rejects('uuidv7', [
    { s: '00000000-0000-0000-0000-000000000000' }, { s: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
    { s: '017f22e2-79b0-4cc3-98c4-dc0c0c07398f' }, { s: '017f22e2-79b0-6cc3-98c4-dc0c0c07398f' },
    { s: '017f22e2-79b0-7cc3-18c4-dc0c0c07398f' }, { s: '017f22e2-79b0-7cc3-c8c4-dc0c0c07398f' },
    { s: '017f22e279b0-7cc3-98c4-dc0c0c07398f' }, { s: A6.slice(0, 35) }, { s: A6.slice(0, 35) + 'g' },
    { s: `urn:uuid:${A6.replace(/-/g, '')}` }, { s: `{${A6.replace(/-/g, '')}}` },
    { s: `0x${A6.replace(/-/g, '')}` }, { s: ` ${A6}` }, { s: '' },
  ], (s) => uuid.validate(s) && uuid.version(s) === 7);

  rejects('ulid', [
    // ulid's isValid does not check the overflow; decodeTime does (spec section 2)
    { s: '80000000000000000000000000' }, { s: 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ' },
    { s: '01ARYZ6S41TSV4RRFFQ69G5FAI' }, { s: '01ARYZ6S41TSV4RRFFQ69G5FAL' },
    { s: '01ARYZ6S41TSV4RRFFQ69G5FAO' }, { s: '01ARYZ6S41TSV4RRFFQ69G5FAU' },
    { s: '01ARYZ6S41TSV4RRFFQ69G5FA' }, { s: '01ARYZ6S41TSV4RRFFQ69G5FAVV' },
    { s: '01ARYZ6S41-TSV4RRFFQ69G5FA' }, { s: '' },
  ], (s) => ULID.isValid(s) && ULID.decodeTime(s) >= 0 && !!ULID.ulidToUUID(s));

  rejects('scru128', [
    { s: '0' }, { s: '0'.repeat(26) }, { s: 'f5lxx1zz5pn+rynqglhzmsp33' },
    { s: 'f5lxx1zz5pnorynqglhzmsp34' }, { s: 'z'.repeat(25) }, { s: '0'.repeat(24) },
    { s: '0372hg16csmsm50l8dikcvukc ' }, { s: '' },
  ], (s) => !!Scru128Id.fromString(s));

  // Sapphire's deconstruct goes through BigInt() and takes almost anything.
  rejects('snowflake', [
    { s: '9223372036854775808', quirk: true }, { s: '18446744073709551615', quirk: true },
    { s: '12345678901234567890', quirk: true }, { s: '-1', quirk: true },
    { s: '+175928847299117063', quirk: true }, { s: '0175928847299117063', quirk: true },
    { s: '1.5' }, { s: '0x1f', quirk: true }, { s: ' 1', quirk: true }, { s: '', quirk: true },
  ], (s) => typeof TwitterSnowflake.deconstruct(s).id === 'bigint');

  // npm ksuid maps any character to some digit (spec section 6).
  rejects('ksuid', [
    { s: 'aWgEPTl1tmebfsQzFP4bxwgy80W' }, { s: 'z'.repeat(27) },
    { s: '0ujtsYcgvSTl8PAuAdqWYSMnLO' }, { s: '0ujtsYcgvSTl8PAuAdqWYSMnLOvv' },
    { s: '0ujtsYcgvSTl8PAuAdqWYSMnLO-', quirk: true }, { s: '0ujtsYcgvSTl8PAuAdqWYSMnLO_', quirk: true },
    { s: '' },
  ], (s) => KSUID.parse(s).raw.length === 20);

  const z26 = '00000000000000000000000000';
  rejects('typeid', [
    { s: `PREFIX_${z26}` }, { s: `12345_${z26}` }, { s: `pre.fix_${z26}` }, { s: `préfix_${z26}` },
    { s: `  prefix_${z26}` }, { s: `${'a'.repeat(64)}_${z26}` }, { s: `_${z26}` }, { s: '_' },
    { s: 'prefix_1234567890123456789012345' }, { s: 'prefix_123456789012345678901234567' },
    { s: 'prefix_1234567890123456789012345 ' }, { s: 'prefix_0123456789ABCDEFGHJKMNPQRS' },
    { s: 'prefix_123456789-123456789-123456' }, { s: 'prefix_ooooooiiiiiiuuuuuuulllllll' },
    { s: 'prefix_i23456789ol23456789oi23456' }, { s: 'prefix_123456789-0123456789-0123456' },
    { s: 'prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz' }, { s: `_prefix_${z26}` }, { s: `prefix__${z26}` },
    { s: '' }, { s: 'prefix_' },
    { s: 'user_01fwhe4ydgfk1shh6w1g60eec' }, { s: 'user_01FWHE4YDGFK1SHH6W1G60EECF' },
    { s: 'User_01fwhe4ydgfk1shh6w1g60eecf' }, { s: 'user-01fwhe4ydgfk1shh6w1g60eecf' },
  ], (s) => !!TypeID.fromString(s));
}

// ---- summary -------------------------------------------------------------------

const failed = results.filter((r) => !r.ok);
console.log(`xcheck: ${results.length - failed.length} passed, ${failed.length} failed, 1 skipped (sonyflake)`);
if (failed.length) {
  console.log('xcheck: disagreements in: ' + failed.map((r) => r.name).join('; '));
  console.log('xcheck: the format pages (docs/formats/) decide whether mintid or the reference is at fault');
}
process.exit(failed.length ? 1 : 0);
