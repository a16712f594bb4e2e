// SPDX-License-Identifier: MIT
// mintid's types as an ESM program uses them: each declaration states the type a call must have.
import mintid, { gen, Generator, inspect, convert, min, max, formats, MintidError, UnknownFormatError } from 'mintid';
import type { FormatName, Inspection, FormatInfo, Form } from 'mintid';
import { v7, validate, version, ulid, monotonicFactory, decodeTime, Snowflake, DiscordSnowflake } from 'mintid/compat';

const one: string = gen('uuidv7');
const many: string[] = gen('ulid', 10);
const value: bigint = gen('nanoflake', { form: 'bigint', node: 7 });
const values: bigint[] = gen('snowflake', 3, { form: 'bigint', epoch: 'discord' });
const bytes: Buffer = gen('ksuid', { form: 'bytes' });
const hex: string = gen('uuidv7', { form: 'hex' });
const typed: string[] = gen('typeid', 2, { prefix: 'user', node: null, epoch: new Date(0) });
const host: string = gen('nanoflake', { node: 'host' });
const ordinal: string = gen('nanoflake', { node: 'ordinal+4' });

const g: Generator<bigint> = new Generator('nanoflake', { node: 1, form: 'bigint' });
const next: bigint = g.next();
const nextMany: bigint[] = g.nextMany(5);
for (const id of g) {
  const each: bigint = id;
  void each;
  break;
}
const t: Generator = new Generator('ulid', { shared: false, overflow: 'fail' });
const text: string = t.next();
const format: FormatName = t.format;
const path: string | null = t.path;
const b: Generator<Buffer> = new Generator('scru160', { form: 'bytes' });

const d: Inspection = inspect(one);
const when: Date | null = d.time;
const ms: number | null = inspect(bytes, 'ksuid').unix_ms;
const fields = inspect(value, { format: 'nanoflake', epoch: 1288834974657 });
const asBig: bigint = convert('1c49kkphl4ow', 'bigint');
const asText: string = convert(asBig, 'text', 'nanoflake');
const asBytes: Buffer = convert(one, 'bytes', { format: 'uuidv7' });
const lo: string = min('uuidv7', new Date());
const hi: bigint = max('snowflake', Date.now(), { form: 'bigint', epoch: 'discord' });
const all: Record<FormatName, FormatInfo> = formats();
const forms: Form[] = all.nanoflake.forms;

try {
  gen('nanoflake', { node: 1024 });
} catch (e) {
  if (e instanceof MintidError) {
    const code: string = e.code;
    const status: number = e.status;
    void [code, status, e instanceof UnknownFormatError];
  }
}

const u: string = v7();
const into: Uint8Array = v7(undefined, new Uint8Array(16));
const ok: boolean = validate(u) && version(u) === 7;
const factory = monotonicFactory();
const l: string = factory(Date.now());
const lt: number = decodeTime(ulid());
const s: bigint = DiscordSnowflake.generate({ workerId: 1n, processId: 2 });
const parts = new Snowflake(new Date(0)).deconstruct(s);
const ts: bigint = parts.timestamp;

void [one, many, value, values, bytes, hex, typed, host, ordinal, next, nextMany, text, format, path, b, when, ms,
  fields, asText, asBytes, lo, hi, forms, into, ok, l, lt, ts, mintid.version];
