-- SPDX-License-Identifier: MIT
-- mintid--0.1.0--0.1.1.sql: the upgrade path's first step. 0.1.1 changes
-- nothing in SQL yet; it exists so that ALTER EXTENSION mintid UPDATE is
-- exercised from the first release on. Later versions add their changes here
-- and in a new mintid--0.1.1--X.sql.
\echo Use "ALTER EXTENSION mintid UPDATE TO '0.1.1'" to load this file. \quit
