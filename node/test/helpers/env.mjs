// SPDX-License-Identifier: MIT
// What every test file starts with: the staged package (build/node/package,
// MINTID_NODE_PACKAGE, which ctest sets), and a host-wide state directory
// of the file's own, so that its sequences start afresh and no other
// test's IDs are counted with its own. Child processes and workers inherit
// both through the environment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

export const pkg = process.env.MINTID_NODE_PACKAGE;
if (!pkg || !fs.existsSync(path.join(pkg, 'package.json'))) {
  throw new Error('MINTID_NODE_PACKAGE must name the staged package (build/node/package): run the tests with ctest');
}
if (!process.env.MINTID_TEST_HOST_DIR) {
  process.env.MINTID_TEST_HOST_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'mintid-node-'));
  process.on('exit', () => fs.rmSync(process.env.MINTID_TEST_HOST_DIR, { recursive: true, force: true }));
}
process.env.MINTID_HOST_DIR = process.env.MINTID_TEST_HOST_DIR;
delete process.env.MINTID_NODE;
delete process.env.MINTID_ID_SPACE;

export const require = createRequire(import.meta.url);
// node/test/, where the test files are.
export const here = path.dirname(path.dirname(new URL(import.meta.url).pathname));
