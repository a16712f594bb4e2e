/* SPDX-License-Identifier: MIT */
/*
 * snowflake.c - Twitter Snowflake (docs/formats/snowflake.md).
 *
 * nanoflake's layout (41-bit ms timestamp since a settable epoch, 10-bit
 * node, 12-bit sequence) written as the decimal integer, the form
 * snowflakes are exchanged in. The node is Twitter's datacenter (5 bits)
 * and worker (5 bits); inspect reports the three.
 */
#include "../internal.h"

static const mintid_epoch_name epochs[] = {
    {"twitter", MINTID_NANOFLAKE_DEFAULT_EPOCH},
    {"discord", 1420070400000LL},
    {NULL, 0},
};

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "sign", 0, 1, MINTID_ROLE_CONSTANT, 0, 0) \
    X(a, "timestamp", 1, 41, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "node", 42, 10, MINTID_ROLE_NODE, 0, 0) \
    X(a, "datacenter", 42, 5, MINTID_ROLE_VIEW, 0, 0) \
    X(a, "worker", 47, 5, MINTID_ROLE_VIEW, 0, 0) \
    X(a, "sequence", 52, 12, MINTID_ROLE_SEQUENCE, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__snowflake = {
    .pub =
        {
            .id = MINTID_SNOWFLAKE,
            .name = "snowflake",
            .title = "Snowflake (Twitter): 41-bit ms timestamp, 10-bit node, 12-bit sequence; decimal",
            .bits = 64,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = MINTID_NANOFLAKE_DEFAULT_EPOCH,
            .epoch_settable = 1,
            .epoch_names = epochs,
            .node_bits = 10,
            .capacity_per_ms = 4096,
            .capacity_note = "",
            .forms =
                MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_INT) | MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = 1,
            .text_max_len = 19,
            .value_max = INT64_MAX,
            .alphabet = MINTID__DECIMAL_DIGITS,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_WAIT,
            .ts_unit_ms = 1,
        },
    .plan = MINTID__PLAN(FIELDS, 64),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 41) - 1,
    .forms = {[MINTID_FORM_TEXT] = MINTID__FORM_INT(1),
              [MINTID_FORM_INT] = MINTID__FORM_INT(0),
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(64, 0)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .seq_width = 12,
    .seq_begin = mintid__seq_begin_zero,
    .seq_step = mintid__seq_step_one,
};
