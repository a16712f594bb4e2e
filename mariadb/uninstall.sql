-- SPDX-License-Identifier: MIT
-- Drops the functions install.sql created: before removing mintid.so, or
-- before install.sql again after an upgrade that adds functions.
DROP FUNCTION IF EXISTS mintid;
DROP FUNCTION IF EXISTS mintid_int;
DROP FUNCTION IF EXISTS mintid_bin;
DROP FUNCTION IF EXISTS mintid_min;
DROP FUNCTION IF EXISTS mintid_max;
DROP FUNCTION IF EXISTS mintid_min_int;
DROP FUNCTION IF EXISTS mintid_max_int;
DROP FUNCTION IF EXISTS mintid_min_bin;
DROP FUNCTION IF EXISTS mintid_max_bin;
DROP FUNCTION IF EXISTS mintid_ts;
DROP FUNCTION IF EXISTS mintid_inspect;
DROP FUNCTION IF EXISTS mintid_formats;
