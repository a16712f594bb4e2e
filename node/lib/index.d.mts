// SPDX-License-Identifier: MIT
// Types of the ESM entry point (lib/index.mjs): the CommonJS module's names, and the module as the default export.
import * as mintid from './index.js';

export * from './index.js';
export default mintid;
