/* SPDX-License-Identifier: MIT */
/* mint.c - mints one nanoflake with node id 7 and prints it. */
#include <mintid.h>
#include <stdio.h>

int main(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_config cfg;
    mintid_config_init(&cfg, fmt); /* the format's defaults */
    cfg.node = 7;                  /* generator id, 0..1023 */
    mintid_gen *gen = NULL;
    int rc = mintid_gen_new(fmt, &cfg, &gen);
    mintid_id id;
    char text[MINTID_TEXT_MAX];
    if (rc == MINTID_OK && (rc = mintid_gen_next(gen, &id)) == MINTID_OK &&
        (rc = mintid_encode(fmt, MINTID_FORM_TEXT, &id, text, sizeof text)) >= 0)
        printf("%s\n", text);
    else
        fprintf(stderr, "mint: %s\n", mintid_strerror(rc));
    mintid_gen_free(gen);
    return rc >= 0 ? 0 : 1;
}
