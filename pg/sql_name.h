/* SPDX-License-Identifier: MIT */
/*
 * sql_name.h - the SQL name of a format, shared by the extension and the
 * program that writes its install script: the format's name with '-' as
 * '_' (ulid-flake-scalable -> ulid_flake_scalable).
 */
#ifndef MINTID_PG_SQL_NAME_H
#define MINTID_PG_SQL_NAME_H

#include "mintid.h"

#include <stdio.h>

static inline void mintid_pg_sql_name(const mintid_format *f, char *out, size_t cap) {
    char *p;
    snprintf(out, cap, "%s", f->name);
    for (p = out; *p; p++)
        if (*p == '-')
            *p = '_';
}

#endif
