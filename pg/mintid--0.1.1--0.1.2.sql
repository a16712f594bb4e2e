-- SPDX-License-Identifier: MIT
-- mintid--0.1.1--0.1.2.sql: 0.1.2 adds mintid_formats(), every format (or
-- one) described as the library describes it. Frozen once released.
\echo Use "ALTER EXTENSION mintid UPDATE TO '0.1.2'" to load this file. \quit

-- every format, or one, described as the library describes it (mintid_describe())
CREATE FUNCTION mintid_formats() RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_formats' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION mintid_formats(format text) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_formats' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mintid_formats() IS 'every format: bit layout, forms, capacity, node id, epochs, the last time an ID can carry under the epoch set';
