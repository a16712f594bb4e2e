-- SPDX-License-Identifier: MIT
-- mintid--0.1.0--0.1.1.sql: the upgrade path's first step. 0.1.1 changes
-- nothing in SQL; it exists so that ALTER EXTENSION mintid UPDATE is
-- exercised from the first release on. Each later version has its own
-- script from the one before (mintid--0.1.1--X.sql), and this one is frozen.
\echo Use "ALTER EXTENSION mintid UPDATE TO '0.1.1'" to load this file. \quit
