/* SPDX-License-Identifier: MIT */
/*
 * env.c - the environment, read in one place: where the host-wide state
 * lives (MINTID_HOST_DIR) and the id space (MINTID_ID_SPACE); the node id
 * (MINTID_NODE) is read with the look-ups, in voice.c. The command,
 * Python, SQLite and mintidd's settings of the same names all take them as
 * read here, so two homes never split one sequence over how they read a
 * variable. And what follows from a change
 * of an ID space's parameters (an epoch moved), for every home that
 * records one.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void shown(const char *value, char *buf, size_t cap) { mintid_escape(value, strlen(value), buf, cap); }

int mintid_env_host_dir(char *buf, size_t cap, char *why, size_t why_cap) {
    const char *v = getenv("MINTID_HOST_DIR");
    if (v == NULL || v[0] == '\0')
        v = MINTID_HOST_DIR_DEFAULT;
    char esc[MINTID_ESCAPED_MAX];
    if (v[0] != '/') {
        shown(v, esc, sizeof esc);
        return mintid__say(why, why_cap, MINTID_EINVAL,
                           "MINTID_HOST_DIR '%s' is not an absolute path: processes in other working directories "
                           "would mint apart",
                           esc);
    }
    if (strlen(v) >= cap || strlen(v) >= PATH_MAX) {
        shown(v, esc, sizeof esc);
        return mintid__say(why, why_cap, MINTID_EINVAL, "MINTID_HOST_DIR '%s' is too long", esc);
    }
    memcpy(buf, v, strlen(v) + 1);
    return MINTID_OK;
}

bool mintid__id_space_valid(const char *space) {
    size_t n = strlen(space);
    if (n == 0 || n > MINTID_ID_SPACE_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = space[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

int mintid_env_id_space(char *buf, size_t cap, char *why, size_t why_cap) {
    const char *v = getenv("MINTID_ID_SPACE");
    if (v == NULL || v[0] == '\0')
        v = MINTID_ID_SPACE_DEFAULT;
    if (!mintid__id_space_valid(v)) {
        char esc[MINTID_ESCAPED_MAX];
        shown(v, esc, sizeof esc);
        return mintid__say(why, why_cap, MINTID_EINVAL,
                           "MINTID_ID_SPACE '%s': an id space is 1..%d letters, digits, '.', '_' and '-'", esc,
                           MINTID_ID_SPACE_MAX);
    }
    if (strlen(v) >= cap)
        return mintid__say(why, why_cap, MINTID_EINVAL, "MINTID_ID_SPACE: buffer too small");
    memcpy(buf, v, strlen(v) + 1);
    return MINTID_OK;
}

int64_t mintid_epoch_change_floor(const mintid_format *fmt, int64_t old_epoch_ms, int64_t new_epoch_ms,
                                  int64_t mark_ms) {
    int64_t unit = fmt->ts_unit_ms;
    int64_t moved = mintid__floor_div(new_epoch_ms, unit) - mintid__floor_div(old_epoch_ms, unit);
    if (moved <= 0)
        return INT64_MIN;
    /* The old IDs' fields reach floor(mark) - floor(old); a new ID's field
     * at time t is floor(t) - floor(new), which must pass it. */
    int64_t last_unit = mintid__floor_div(mark_ms, unit) + moved;
    if (last_unit > INT64_MAX / unit - 1)
        return INT64_MAX;
    return (last_unit + 1) * unit - 1;
}
