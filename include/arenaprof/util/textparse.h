/* SPDX-License-Identifier: Apache-2.0 */
/*
 * textparse: the line, field and number helpers of the /proc, cgroup and psi parsers
 * (internal).
 *
 * A buffer (need not be NUL-terminated, may hold any bytes) is walked line by line with
 * memchr; the last line may lack its '\n'. Numbers are parsed within a token's bounds, or
 * at a cursor before an end (the ap_tp_eat_* helpers), and overflow-checked. An error
 * names the file and the line: "NAME:LINE: message", -EINVAL, and quotes at most 40
 * bytes of the offending text with unprintable bytes as '?'.
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
/* The same, but a trailing '\r' stays part of the line (the /proc parsers quote it). */
bool ap_tp_next_raw(struct ap_tp *t, const char **s, size_t *n);
/* "NAME:LINE: message" in err; returns -EINVAL. */
int ap_tp_bad(struct ap_tp *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ap_tp_quote(char buf[AP_TP_QUOTE_LEN], const char *s, size_t n);
void ap_tp_trim(const char **s, size_t *n);
/* The next token separated by spaces or tabs: false when none is left. */
bool ap_tp_token(const char **s, size_t *n, const char **tok, size_t *tn);
bool ap_tp_eq(const char *s, size_t n, const char *want);
/* Nothing but spaces, tabs and '\r'? */
bool ap_tp_blank(const char *s, size_t n);

enum { AP_TP_OK = 0, AP_TP_NAN = -1, AP_TP_RANGE = -2 };
/* A whole token of decimal digits: AP_TP_OK, AP_TP_NAN or AP_TP_RANGE. */
int ap_tp_u64(const char *s, size_t n, uint64_t *v);

/*
 * Cursor parsers: each reads at *p (before e) and advances *p past what it read only on
 * success. ap_tp_eat_dec: one or more decimal digits, AP_TP_OK, AP_TP_NAN (no digit) or
 * AP_TP_RANGE (over UINT64_MAX; *p stays). ap_tp_eat_hex: 1 to max_digits hex digits
 * (either case). ap_tp_eat_sep: one or more spaces or tabs.
 */
int ap_tp_eat_dec(const char **p, const char *e, uint64_t *v);
bool ap_tp_eat_hex(const char **p, const char *e, unsigned int max_digits, uint64_t *v);
bool ap_tp_eat_sep(const char **p, const char *e);

/*
 * A table of keys, each naming a uint64_t field of a struct by its offset, for files of
 * "key value" lines: AP_TP_FIELD(s, k->off) is the field of struct s.
 */
struct ap_tp_key {
	const char *key;
	size_t off;
};

#define AP_TP_N_KEYS(a) (sizeof(a) / sizeof((a)[0]))
#define AP_TP_FIELD(s, off) ((uint64_t *)((char *)(s) + (off)))

/* The first entry of keys[n] whose key is k (kn bytes), or NULL. */
const struct ap_tp_key *ap_tp_find_key(const struct ap_tp_key *keys, size_t n, const char *k,
				       size_t kn);
/* Sets the field of s that every entry of keys[n] names to v. */
void ap_tp_set_keys(void *s, const struct ap_tp_key *keys, size_t n, uint64_t v);

/*
 * Reads a whole file (at most cap bytes) into a malloc'd, NUL-terminated *buf. 0, or a
 * negative errno (open's or read's, -ENOMEM, -EFBIG over the cap); nothing is allocated
 * then.
 */
int ap_read_file(const char *path, size_t cap, char **buf, size_t *len);
/* The same from offset 0 of an open file (pread: the fd's position is not used). */
int ap_read_fd(int fd, size_t cap, char **buf, size_t *len);

#endif
