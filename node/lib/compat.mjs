// SPDX-License-Identifier: MIT
// mintid/compat as ESM: the CommonJS module's exports by name (one module, one addon state).
import compat from './compat.js';

export const {
  v7,
  validate,
  version,
  ulid,
  monotonicFactory,
  decodeTime,
  isValid,
  Snowflake,
  DiscordSnowflake,
  TwitterSnowflake,
} = compat;
export default compat;
