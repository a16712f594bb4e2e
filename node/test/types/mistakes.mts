// SPDX-License-Identifier: MIT
// What must not type-check: tsc fails on a line below that does (an unused @ts-expect-error).
import { gen, Generator, inspect, convert, min } from 'mintid';
import { v7, Snowflake } from 'mintid/compat';

// @ts-expect-error: a misspelt format
gen('uuid7');
// @ts-expect-error: a format in another case
gen('ULID', 3);
// @ts-expect-error: no format of today's gives its IDs as numbers
gen('nanoflake', { form: 'number' });
// @ts-expect-error: an option no call takes
gen('ulid', { nod: 1 });
// @ts-expect-error: a form no format has
gen('ulid', { form: 'base64' });
// @ts-expect-error: a BigInt is not a string
const s: string = gen('nanoflake', { form: 'bigint' });
// @ts-expect-error: a batch is an array
const one: string = gen('ulid', 2);
// @ts-expect-error: a Generator of BigInts gives BigInts
const t: string = new Generator('snowflake', { form: 'bigint' }).next();
// @ts-expect-error: shared is a boolean
new Generator('ulid', { shared: 'yes' });
// @ts-expect-error: overflow is 'wait' or 'fail'
new Generator('ulid', { overflow: 'drop' });
// @ts-expect-error: a misspelt format in inspect's options
inspect('x', { format: 'nanoflak' });
// @ts-expect-error: a time is a Date or a number
min('ulid', '2026-01-01');
// @ts-expect-error: convert to an unknown form
convert('x', 'base64');
// @ts-expect-error: v7 takes no options
v7({ msecs: 1 });
// @ts-expect-error: an epoch is a number, a BigInt or a Date
new Snowflake('2015');
void [s, one, t];
