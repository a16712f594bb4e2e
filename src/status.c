/* SPDX-License-Identifier: MIT */
/*
 * status.c - status codes as text, from the one list in mintid.h.
 */
#include "mintid.h"

const char *mintid_strerror(int status) {
    switch (status) {
    case MINTID_OK:
        return "success";
#define MINTID_XX_(name, value, text)                                                                                  \
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
#define MINTID_XX_(name, value, text)                                                                                  \
    case MINTID_##name:                                                                                                \
        return "MINTID_" #name;
        MINTID_STATUS_MAP(MINTID_XX_)
#undef MINTID_XX_
    }
    return "MINTID_UNKNOWN";
}
