// SPDX-License-Identifier: MIT
// Types of mintid (lib/index.js, the addon under it). A misspelt format
// name, a form a call cannot give, or an option no call takes fails to
// type-check.
/// <reference types="node" />

/**
 * Every format's name, as the library's table lists them (formats());
 * a test checks this union against the table.
 */
export type FormatName =
  | 'uexky'
  | 'scru160'
  | 'ulid-flake'
  | 'ulid-flake-scalable'
  | 'caloriosa'
  | 'nanoflake'
  | 'uuidv7'
  | 'ulid'
  | 'scru128'
  | 'snowflake'
  | 'sonyflake'
  | 'ksuid'
  | 'typeid';

/**
 * The formats whose every ID is a safe integer (at most 2^53-1), the only
 * ones form: 'number' takes: none of today's, whose IDs all reach past it
 * (use 'bigint', or 'int' for the decimal text).
 */
export type SafeIntegerFormat = never;

/** Forms that give a string: the canonical text, the decimal value of a 64-bit ID, hex, and the formats' own. */
export type TextForm = 'text' | 'int' | 'hex' | 'padded' | 'core' | 'uuid';
/** Every form: a string's, the value as a BigInt or (SafeIntegerFormat only) a number, or the bytes as a Buffer. */
export type Form = TextForm | 'bigint' | 'number' | 'bytes';
/** The forms every format has a value or bytes in, or a string: all but 'number'. */
export type AnyFormatForm = Exclude<Form, 'number'>;
/** The type of an ID in form F (a string when no form is given). */
export type IdOf<F extends Form | undefined> = F extends 'bigint'
  ? bigint
  : F extends 'number'
    ? number
    : F extends 'bytes'
      ? Buffer
      : string;

/** A node id, or the host's mintidd's ('host'), or the host name's StatefulSet ordinal ('ordinal', 'ordinal+N'). */
export type NodeId = number | bigint | 'host' | 'ordinal' | `ordinal+${number}`;
/** An epoch: Unix ms, a Date, or a string (RFC 3339 UTC, Unix ms, or a named epoch such as 'discord'). */
export type Epoch = number | bigint | Date | string;
/** A point in time for min() and max(): a Date or Unix ms. */
export type Time = Date | number;
/** An ID as inspect() and convert() read it: a text, its bytes, or its value (a BigInt, or a safe integer). */
export type AnyId = string | Uint8Array | bigint | number;

export interface GenOptions<F extends Form = Form> {
  /** The node id of formats that have one; default MINTID_NODE's, else 0. */
  node?: NodeId | null;
  /** The epoch of formats whose epoch is settable. */
  epoch?: Epoch | null;
  /** The IDs' form; default 'text'. */
  form?: F;
  /** A typeid's type prefix on its text. */
  prefix?: string | null;
}

/** The next ID of the format from the host-wide generator. */
export function gen(format: FormatName): string;
export function gen<F extends AnyFormatForm = 'text'>(format: FormatName, options: GenOptions<F>): IdOf<F>;
export function gen(format: SafeIntegerFormat, options: GenOptions<'number'>): number;
/** The next n IDs, increasing. */
export function gen(format: FormatName, n: number): string[];
export function gen<F extends AnyFormatForm = 'text'>(format: FormatName, n: number, options: GenOptions<F>): IdOf<F>[];
export function gen(format: SafeIntegerFormat, n: number, options: GenOptions<'number'>): number[];

export interface GeneratorOptions<F extends Form = Form> extends GenOptions<F> {
  /** true (the default): the host-wide sequence; false: the process's own (its thread's, in a worker). */
  shared?: boolean;
  /** 'wait' (the default) for the next millisecond when its sequence is used up, or 'fail' with ExhaustedError. */
  overflow?: 'wait' | 'fail';
}

/** Strictly increasing IDs of one format, each of type T. */
export interface Generator<T = string> extends Iterable<T> {
  /** The next ID, greater than every one before it. */
  next(): T;
  /** The next n IDs, increasing. */
  nextMany(n: number): T[];
  readonly format: FormatName;
  /** The node id, or null for a format without one. */
  readonly node: number | null;
  /** The epoch, Unix ms. */
  readonly epoch: number;
  readonly shared: boolean;
  readonly form: Form;
  /** The type prefix of its IDs' text; '' for none. */
  readonly prefix: string;
  /** The host-wide state's file, or null. */
  readonly path: string | null;
}

export interface GeneratorConstructor {
  new (format: FormatName, options?: GeneratorOptions<TextForm>): Generator<string>;
  new <F extends AnyFormatForm>(format: FormatName, options: GeneratorOptions<F>): Generator<IdOf<F>>;
  new (format: SafeIntegerFormat, options: GeneratorOptions<'number'>): Generator<number>;
  readonly prototype: Generator<unknown>;
}
export const Generator: GeneratorConstructor;

/** An ID taken apart: the fields of `mintid inspect`, with time a Date. */
export interface Inspection {
  format: FormatName;
  /** The canonical text (a typeid's with its prefix). */
  text: string;
  hex: string;
  /** A 64-bit ID's value in decimal. */
  int?: string;
  /** A typeid's type prefix ('' for none) and its UUID. */
  prefix?: string;
  uuid?: string;
  /** Unix ms; null when the ID carries no time (a typeid of another UUID version). */
  unix_ms: number | null;
  /** null when the ID carries no time, or past the years a Date holds. */
  time: Date | null;
  /** The format's own fields: numbers up to 53 bits, strings of digits past that (hex digits for a hex field). */
  [field: string]: string | number | Date | null | undefined;
}

export interface InspectOptions {
  format?: FormatName | null;
  /** The epoch the ID was minted under, for formats whose epoch is settable. */
  epoch?: Epoch | null;
  /** The text's form, where the format does not recognise it by itself. */
  fromForm?: TextForm | null;
}
export function inspect(id: AnyId, format?: FormatName | null, options?: Omit<InspectOptions, 'format'>): Inspection;
export function inspect(id: AnyId, options?: InspectOptions): Inspection;

export interface ConvertOptions {
  format?: FormatName | null;
  fromForm?: TextForm | null;
  /** A typeid's type prefix for the text ('' drops it); default the ID's own. */
  prefix?: string | null;
}
/** The ID in another form. */
export function convert<F extends AnyFormatForm>(
  id: AnyId,
  to: F,
  format?: FormatName | null,
  options?: Omit<ConvertOptions, 'format'>,
): IdOf<F>;
export function convert<F extends AnyFormatForm>(id: AnyId, to: F, options?: ConvertOptions): IdOf<F>;
export function convert(id: AnyId, to: 'number', format: SafeIntegerFormat, options?: Omit<ConvertOptions, 'format'>): number;

export interface BoundOptions<F extends Form = Form> {
  epoch?: Epoch | null;
  form?: F;
  prefix?: string | null;
}
/** The smallest ID that can carry the millisecond of time. */
export function min(format: FormatName, time: Time): string;
export function min<F extends AnyFormatForm = 'text'>(format: FormatName, time: Time, options: BoundOptions<F>): IdOf<F>;
/** The largest ID that can carry the millisecond of time. */
export function max(format: FormatName, time: Time): string;
export function max<F extends AnyFormatForm = 'text'>(format: FormatName, time: Time, options: BoundOptions<F>): IdOf<F>;

/** A format as the library describes it. */
export interface FormatInfo {
  name: FormatName;
  title: string;
  bits: number;
  epoch_ms: number;
  epoch_settable: boolean;
  /** Named epochs, Unix ms. */
  epochs: Record<string, number>;
  /** The length of one timestamp unit, ms. */
  unit_ms: number;
  /** The last Unix ms an ID can carry under the default epoch. */
  end_ms: number;
  end_time: string | null;
  capacity_per_ms: number;
  capacity_note: string;
  node_bits: number;
  node_max: number | null;
  node_optional: boolean;
  prefix_max: number;
  /** What form: takes for this format. */
  forms: Form[];
  fields: { name: string; bits: number; offset: number; role: string }[];
}
/** Every format by name, in the library's order. */
export function formats(): Record<FormatName, FormatInfo>;

/** The library's version ("0.4.0"). */
export const version: string;

/** Every error of mintid: the library's sentence, its status by name (code) and number (status). */
export class MintidError extends Error {
  constructor(message: string, status?: number, code?: string);
  /** The library's status by name, stable across releases: 'MINTID_EFORMAT', 'MINTID_ERANGE', ... */
  code: string;
  /** The library's (negative) status. */
  status: number;
}
/** The caller's input: an argument's value is not one the call takes. */
export class ArgumentError extends MintidError {}
/** An argument's type is not one the call takes. */
export class ArgumentTypeError extends MintidError {}
/** No format has that name. */
export class UnknownFormatError extends ArgumentError {}
/** A string, bytes or integer that is not an ID (of the format given). */
export class InvalidIdError extends ArgumentError {}
/** The clock went back or could not be read. */
export class ClockError extends MintidError {}
/** The wait limit was reached. */
export class WaitTimeoutError extends ClockError {}
/** The millisecond's sequence is used up (overflow: 'fail'). */
export class ExhaustedError extends MintidError {}
/** The host: the host-wide state, the host's mintidd, memory or randomness. */
export class HostError extends MintidError {}
