/* SPDX-License-Identifier: MIT */
/*
 * status.c - status codes as text and as classes, from the one list in mintid.h.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

const char *mintid_strerror(int status) {
    switch (status) {
    case MINTID_OK:
        return "success";
#define MINTID_XX_(name, value, cls, text)                                                                             \
    case MINTID_##name:                                                                                                \
        return text;
        MINTID_STATUS_MAP(MINTID_XX_)
#undef MINTID_XX_
    }
    return "unknown status";
}

const char *mintid_status_name(int status) {
    switch (status) {
    case MINTID_OK:
        return "MINTID_OK";
#define MINTID_XX_(name, value, cls, text)                                                                             \
    case MINTID_##name:                                                                                                \
        return "MINTID_" #name;
        MINTID_STATUS_MAP(MINTID_XX_)
#undef MINTID_XX_
    }
    return "MINTID_UNKNOWN";
}

mintid_class mintid_status_class(int status) {
    switch (status) {
    case MINTID_OK:
        return MINTID_CLASS_NONE;
#define MINTID_XX_(name, value, cls, text)                                                                             \
    case MINTID_##name:                                                                                                \
        return MINTID_CLASS_##cls;
        MINTID_STATUS_MAP(MINTID_XX_)
#undef MINTID_XX_
    }
    return MINTID_CLASS_PROGRAM;
}

const char *mintid_class_name(mintid_class cls) {
    switch (cls) {
    case MINTID_CLASS_NONE:
        return "";
    case MINTID_CLASS_INPUT:
        return "input";
    case MINTID_CLASS_CLOCK:
        return "clock";
    case MINTID_CLASS_CAPACITY:
        return "capacity";
    case MINTID_CLASS_ENVIRONMENT:
        return "environment";
    case MINTID_CLASS_PROGRAM:
        return "program";
    }
    return "program";
}

int mintid__say(char *why, size_t cap, int status, const char *fmt, ...) {
    if (why != NULL && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return status;
}
