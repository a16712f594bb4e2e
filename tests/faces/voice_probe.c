/* SPDX-License-Identifier: MIT */
/*
 * voice_probe.c - what the library says about one bad input, for
 * test_one_voice.py: the class of the status on the first line, the
 * sentence on the second. Every face must say that sentence.
 *
 *   voice_probe format NAME | node FORMAT N | epoch FORMAT TEXT |
 *               prefix FORMAT PREFIX | id FORMAT|- TEXT
 */
#include "mintid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mintid_format *format_of(const char *name) {
    const mintid_format *fmt = NULL;
    if (strcmp(name, "-") != 0 && mintid_lookup_format(name, strlen(name), &fmt, NULL, 0) != MINTID_OK) {
        fprintf(stderr, "voice_probe: no format '%s'\n", name);
        exit(2);
    }
    return fmt;
}

int main(int argc, char **argv) {
    char why[MINTID_WHY_MAX] = "";
    int rc;
    if (argc == 3 && strcmp(argv[1], "format") == 0) {
        const mintid_format *fmt;
        rc = mintid_lookup_format(argv[2], strlen(argv[2]), &fmt, why, sizeof why);
    } else if (argc == 4 && strcmp(argv[1], "node") == 0) {
        rc = mintid_check_node(format_of(argv[2]), strtoll(argv[3], NULL, 10), why, sizeof why);
    } else if (argc == 4 && strcmp(argv[1], "epoch") == 0) {
        int64_t ms;
        rc = mintid_lookup_epoch(format_of(argv[2]), argv[3], strlen(argv[3]), &ms, why, sizeof why);
    } else if (argc == 4 && strcmp(argv[1], "prefix") == 0) {
        rc = mintid_lookup_prefix(format_of(argv[2]), MINTID_FORM_TEXT, argv[3], strlen(argv[3]), why, sizeof why);
    } else if (argc == 4 && strcmp(argv[1], "id") == 0) {
        mintid_reading r;
        rc = mintid_read_text(format_of(argv[2]), MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, argv[3], strlen(argv[3]), &r,
                              why, sizeof why);
    } else {
        fputs("usage: voice_probe format NAME | node FORMAT N | epoch FORMAT TEXT | prefix FORMAT PREFIX | id "
              "FORMAT|- TEXT\n",
              stderr);
        return 2;
    }
    if (rc == MINTID_OK) {
        fprintf(stderr, "voice_probe: the library accepts this input\n");
        return 1;
    }
    printf("%s\n%s\n", mintid_class_name(mintid_status_class(rc)), why);
    return 0;
}
