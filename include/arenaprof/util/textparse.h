/* SPDX-License-Identifier: Apache-2.0 */
/*
 * textparse: the line and number helpers of the cgroup and psi parsers (internal).
 *
 * A buffer (need not be NUL-terminated, may hold any bytes) is walked line by line with
 * memchr; the last line may lack its '\n'. Numbers are parsed within a token's bounds and
 * overflow-checked. An error names the file and the line: "NAME:LINE: message", errno
 * EINVAL, and quotes at most 40 bytes of the offending text with unprintable bytes as '?'.
 */
#ifndef ARENAPROF_TEXTPARSE_H
#define ARENAPROF_TEXTPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ap_tp {
	const char *p, *end;
	const char *name;	/* the file, for messages */
	char *err;		/* AP_ERR_LEN bytes, may be NULL */
	unsigned long line;	/* of the last line returned */
};

#define AP_TP_QUOTE_LEN 44

void ap_tp_init(struct ap_tp *t, const char *buf, size_t len, const char *name, char *err);
/* The next line without its '\n' and trailing '\r'; false at the end. */
bool ap_tp_next(struct ap_tp *t, const char **s, size_t *n);
/* "NAME:LINE: message" in err, errno EINVAL; returns -1. */
int ap_tp_bad(struct ap_tp *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ap_tp_quote(char buf[AP_TP_QUOTE_LEN], const char *s, size_t n);
void ap_tp_trim(const char **s, size_t *n);
/* The next token separated by spaces or tabs: false when none is left. */
bool ap_tp_token(const char **s, size_t *n, const char **tok, size_t *tn);
bool ap_tp_eq(const char *s, size_t n, const char *want);

enum { AP_TP_OK = 0, AP_TP_NAN = -1, AP_TP_RANGE = -2 };
/* A whole token of decimal digits: AP_TP_OK, AP_TP_NAN or AP_TP_RANGE. */
int ap_tp_u64(const char *s, size_t n, uint64_t *v);

/*
 * Reads a whole file (at most cap bytes) into a malloc'd, NUL-terminated *buf. -1 with
 * errno set (EFBIG over the cap); nothing is allocated then.
 */
int ap_read_file(const char *path, size_t cap, char **buf, size_t *len);
/* The same from offset 0 of an open file (pread: the fd's position is not used). */
int ap_read_fd(int fd, size_t cap, char **buf, size_t *len);

#endif
