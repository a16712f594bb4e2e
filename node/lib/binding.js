// SPDX-License-Identifier: MIT
'use strict';
// The addon of this platform, from prebuilds/<platform>-<arch>/ beside
// lib/: the package carries it built, so installing it compiles nothing.
// One binary serves every Node.js major (Node-API), and it loads in any
// number of worker threads at once, each with its own state.
const fs = require('node:fs');
const path = require('node:path');

const prebuilds = path.join(__dirname, '..', 'prebuilds');
const platform = `${process.platform}-${process.arch}`;
const file = path.join(prebuilds, platform, 'mintid.napi.node');

function load() {
  if (!fs.existsSync(file)) {
    let have = [];
    try {
      have = fs.readdirSync(prebuilds);
    } catch {
      // no prebuilds at all
    }
    throw new Error(`mintid: no addon for ${platform} in ${prebuilds} (this package has it for ` +
                    `${have.length ? have.join(', ') : 'no platform'}); build it from the source with make node`);
  }
  return require(file);
}

module.exports = load();
