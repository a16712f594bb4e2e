// SPDX-License-Identifier: MIT
// Types of mintid/compat (lib/compat.js): the shapes of uuid, ulid and @sapphire/snowflake.

/** A UUIDv7 string from the host-wide sequence, as uuid's v7(). */
export function v7(): string;
/** Its 16 bytes written into buf at offset (default 0); returns buf. */
export function v7<T extends Uint8Array>(options: undefined | null, buf: T, offset?: number): T;
/** Whether a string is a UUID (versions 1 to 8 with the RFC variant, nil or max), as uuid's validate(). */
export function validate(uuid: unknown): boolean;
/** A UUID's version, as uuid's version(); TypeError('Invalid UUID') for what is not one. */
export function version(uuid: string): number;

/** A ULID, as ulid's ulid(): from the host-wide sequence, or one of seedTime's millisecond. */
export function ulid(seedTime?: number): string;
/** What monotonicFactory() returns. */
export type ULIDFactory = (seedTime?: number) => string;
/** A function that mints increasing ULIDs, as ulid's monotonicFactory(); a PRNG given is not used. */
export function monotonicFactory(prng?: () => number): ULIDFactory;
/** The Unix ms of a ULID, as ulid's decodeTime(). */
export function decodeTime(id: string): number;
/** Whether a string is a ULID the library reads. */
export function isValid(id: string): boolean;

export interface SnowflakeGenerateOptions {
  /** Unix ms (default: now); with increment, the ID of those fields rather than the host-wide sequence's next. */
  timestamp?: number | bigint | Date;
  increment?: number | bigint;
  /** The upper 5 bits of the node id (default the instance's, 0). */
  workerId?: number | bigint;
  /** The lower 5 bits of the node id (default the instance's, 1). */
  processId?: number | bigint;
}
export interface DeconstructedSnowflake {
  id: bigint;
  /** Unix ms. */
  timestamp: bigint;
  workerId: bigint;
  processId: bigint;
  increment: bigint;
  epoch: bigint;
}
/** A Twitter-layout Snowflake of an epoch, as @sapphire/snowflake's. */
export class Snowflake {
  constructor(epoch: number | bigint | Date);
  get epoch(): bigint;
  get processId(): bigint;
  set processId(value: number | bigint);
  get workerId(): bigint;
  set workerId(value: number | bigint);
  /** The next ID. */
  generate(options?: SnowflakeGenerateOptions): bigint;
  deconstruct(id: string | bigint): DeconstructedSnowflake;
  /** An ID's time, Unix ms. */
  timestampFrom(id: string | bigint): number;
  static compare(a: string | bigint, b: string | bigint): -1 | 0 | 1;
}
/** Discord's epoch (2015-01-01). */
export const DiscordSnowflake: Snowflake;
/** Twitter's epoch (2010-11-04T01:42:54.657Z). */
export const TwitterSnowflake: Snowflake;
