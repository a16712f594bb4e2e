/* SPDX-License-Identifier: MIT */
/*
 * sonyflake.c - Sony's Sonyflake, v1 layout (docs/formats/sonyflake.md).
 *
 * 63 bits: 39-bit count of 10 ms units since a settable start time, 8-bit
 * sequence, 16-bit machine id (the sequence above the machine, unlike
 * Snowflake). Written as the decimal integer. Like the Go original, a clock
 * behind the last ID is absorbed: the sequence runs on in the last unit.
 */
#include "../internal.h"

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "sign", 0, 1, MINTID_ROLE_CONSTANT, 0, 0) \
    X(a, "elapsed", 1, 39, MINTID_ROLE_TIMESTAMP, MINTID_FIELD_SHOWN, 0) \
    X(a, "sequence", 40, 8, MINTID_ROLE_SEQUENCE, 0, 0) \
    X(a, "machine", 48, 16, MINTID_ROLE_NODE, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__sonyflake = {
    .pub =
        {
            .id = MINTID_SONYFLAKE,
            .name = "sonyflake",
            .title = "Sonyflake: 39-bit count of 10 ms units, 8-bit sequence, 16-bit machine id; decimal",
            .bits = 64,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 1409529600000LL, /* 2014-09-01T00:00:00Z, v1's default start time */
            .epoch_settable = 1,
            .node_bits = 16,
            .capacity_per_ms = 25,
            .capacity_note = "on average: 256 per 10 ms unit",
            .forms =
                MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_INT) | MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = 1,
            .text_max_len = 19,
            .value_max = INT64_MAX,
            .alphabet = MINTID__DECIMAL_DIGITS,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_REUSE,
            .ts_unit_ms = 10,
        },
    .plan = MINTID__PLAN(FIELDS, 64),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 39) - 1,
    .forms = {[MINTID_FORM_TEXT] = MINTID__FORM_INT(1),
              [MINTID_FORM_INT] = MINTID__FORM_INT(0),
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(64, 0)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .seq_width = 8,
    .seq_begin = mintid__seq_begin_zero,
    .seq_step = mintid__seq_step_one,
};
