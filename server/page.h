/* SPDX-License-Identifier: MIT */
/*
 * page.h - the HTML page served at GET / (server/page/), embedded at build
 * time by server/page/embed.c.
 */
#ifndef MINTIDD_PAGE_H
#define MINTIDD_PAGE_H

#include <stddef.h>

extern const unsigned char mintidd_page_html[]; /* mintidd_page_html_len bytes, UTF-8 */
extern const size_t mintidd_page_html_len;
/* The Content-Security-Policy that allows the page's inline style and script by hash, and nothing else. */
extern const char mintidd_page_csp[];

#endif
