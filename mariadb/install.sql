-- SPDX-License-Identifier: MIT
-- mintid's functions in MariaDB or MySQL, from mintid.so in the server's
-- plugin directory: run once by a user who may create functions (root),
-- `mariadb < install.sql`. The server keeps them (mysql.func) across
-- restarts. uninstall.sql drops them again.
CREATE FUNCTION mintid RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_int RETURNS INTEGER SONAME 'mintid.so';
CREATE FUNCTION mintid_bin RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_min RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_max RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_min_int RETURNS INTEGER SONAME 'mintid.so';
CREATE FUNCTION mintid_max_int RETURNS INTEGER SONAME 'mintid.so';
CREATE FUNCTION mintid_min_bin RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_max_bin RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_ts RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_inspect RETURNS STRING SONAME 'mintid.so';
CREATE FUNCTION mintid_formats RETURNS STRING SONAME 'mintid.so';
