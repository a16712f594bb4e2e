// SPDX-License-Identifier: MIT
// Types of mintid/compat's ESM entry point (lib/compat.mjs).
import * as compat from './compat.js';

export * from './compat.js';
export default compat;
