// SPDX-License-Identifier: MIT
// The ESM entry point: the CommonJS module's exports by name, so that
// `import { gen } from 'mintid'` and `require('mintid')` are one module,
// with one addon state and one set of error classes.
import mintid from './index.js';

export const {
  gen,
  Generator,
  inspect,
  convert,
  min,
  max,
  formats,
  version,
  MintidError,
  ArgumentError,
  ArgumentTypeError,
  UnknownFormatError,
  InvalidIdError,
  ClockError,
  WaitTimeoutError,
  ExhaustedError,
  HostError,
} = mintid;
export default mintid;
