// SPDX-License-Identifier: MIT
// mintid's types as a CommonJS program uses them.
import mintid = require('mintid');
import compat = require('mintid/compat');

const id: string = mintid.gen('ulid');
const ids: bigint[] = mintid.gen('snowflake', 2, { form: 'bigint' });
const g: mintid.Generator<string> = new mintid.Generator('uuidv7');
const name: mintid.FormatName = 'typeid';
const u: string = compat.v7();
void [id, ids, g, name, u];
