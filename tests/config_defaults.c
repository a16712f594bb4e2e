/* SPDX-License-Identifier: MIT */
/*
 * config_defaults.c - whether a config file gives mintidd exactly its
 * defaults: `config_defaults FILE` loads FILE as `mintidd --config FILE`
 * would, and exits 0 if every setting then equals its default, 1 if not,
 * 2 if the file was refused (the loader's message on stderr). Run by
 * test_conf_reference.sh on the packaged config with every setting
 * uncommented.
 */
#include "base/config.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: config_defaults FILE\n");
        return 2;
    }
    static config defaults, loaded;
    config_defaults(&defaults);
    char name[] = "mintidd", option[] = "--config";
    char *args[] = {name, option, argv[1], NULL};
    if (config_load(&loaded, 3, args) != 0)
        return 2;
    /* Both start zeroed and take each setting's value by the same copy, so
     * equal settings are equal bytes. */
    if (memcmp(&defaults, &loaded, sizeof defaults) != 0) {
        fprintf(stderr, "config_defaults: %s gives settings other than the defaults\n", argv[1]);
        return 1;
    }
    return 0;
}
