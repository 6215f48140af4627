// SPDX-License-Identifier: Apache-2.0
/* textparse: lines, tokens, numbers and keys for the /proc, cgroup and psi parsers. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/textparse.h"

#define QUOTE_MAX 40
#define READ_START 4096

void ap_tp_init(struct ap_tp *t, const char *buf, size_t len, const char *name, char *err)
{
	t->p = buf;
	t->end = buf ? buf + len : buf;
	t->name = name ? name : "(buffer)";
	t->err = err;
	t->line = 0;
}

bool ap_tp_next_raw(struct ap_tp *t, const char **s, size_t *n)
{
	const char *nl;

	if (t->p >= t->end)
		return false;
	nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
	*s = t->p;
	*n = (size_t)((nl ? nl : t->end) - t->p);
	t->p = nl ? nl + 1 : t->end;
	t->line++;
	return true;
}

bool ap_tp_next(struct ap_tp *t, const char **s, size_t *n)
{
	if (!ap_tp_next_raw(t, s, n))
		return false;
	if (*n && (*s)[*n - 1] == '\r')
		(*n)--;
	return true;
}

int ap_tp_bad(struct ap_tp *t, const char *fmt, ...)
{
	char msg[AP_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->err)
		ap_seterr(t->err, "%s:%lu: %s", t->name, t->line, msg);
	return -EINVAL;
}

const char *ap_tp_quote(char buf[AP_TP_QUOTE_LEN], const char *s, size_t n)
{
	size_t i, m = n > QUOTE_MAX ? QUOTE_MAX : n;

	for (i = 0; i < m; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (m < n) {
		memcpy(buf + m, "...", 3);
		m += 3;
	}
	buf[m] = '\0';
	return buf;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

void ap_tp_trim(const char **s, size_t *n)
{
	while (*n && is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((*s)[*n - 1]))
		(*n)--;
}

bool ap_tp_token(const char **s, size_t *n, const char **tok, size_t *tn)
{
	const char *p = *s, *e = *s + *n, *b;

	while (p < e && is_space(*p))
		p++;
	if (p == e) {
		*s = e;
		*n = 0;
		return false;
	}
	b = p;
	while (p < e && !is_space(*p))
		p++;
	*tok = b;
	*tn = (size_t)(p - b);
	*s = p;
	*n = (size_t)(e - p);
	return true;
}

bool ap_tp_eq(const char *s, size_t n, const char *want)
{
	return strlen(want) == n && !memcmp(s, want, n);
}

bool ap_tp_blank(const char *s, size_t n)
{
	ap_tp_trim(&s, &n);
	return n == 0;
}

int ap_tp_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n)
		return AP_TP_NAN;
	for (i = 0; i < n; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9')
			return AP_TP_NAN;
		d = (unsigned int)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10) {
			/* still say "not a number" if a non-digit follows */
			for (; i < n; i++)
				if (s[i] < '0' || s[i] > '9')
					return AP_TP_NAN;
			return AP_TP_RANGE;
		}
		x = x * 10 + d;
	}
	*v = x;
	return AP_TP_OK;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ap_tp_eat_dec(const char **p, const char *e, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= e || !is_digit(*s))
		return AP_TP_NAN;
	for (; s < e && is_digit(*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return AP_TP_RANGE;
		x = x * 10 + d;
	}
	*v = x;
	*p = s;
	return AP_TP_OK;
}

bool ap_tp_eat_hex(const char **p, const char *e, unsigned int max_digits, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	unsigned int k = 0;
	int d;

	while (s < e && (d = hexval(*s)) >= 0) {
		if (++k > max_digits)
			return false;
		x = x << 4 | (uint64_t)d;
		s++;
	}
	if (!k)
		return false;
	*v = x;
	*p = s;
	return true;
}

bool ap_tp_eat_sep(const char **p, const char *e)
{
	const char *s = *p;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

const struct ap_tp_key *ap_tp_find_key(const struct ap_tp_key *keys, size_t n, const char *k,
				       size_t kn)
{
	for (size_t i = 0; i < n; i++)
		if (ap_tp_eq(k, kn, keys[i].key))
			return &keys[i];
	return NULL;
}

void ap_tp_set_keys(void *s, const struct ap_tp_key *keys, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		*AP_TP_FIELD(s, keys[i].off) = v;
}

/* 0, or -ENOMEM, -EFBIG (over cap) or pread's -errno. */
static int read_loop(int fd, size_t cap, char **out, size_t *len)
{
	size_t size = READ_START, got = 0;
	char *buf = malloc(size + 1), *nb;
	ssize_t n;
	int e;

	if (!buf) {
		e = ENOMEM;
		goto fail;
	}
	for (;;) {
		if (got == size) {
			if (size > cap) {
				e = EFBIG;
				goto fail;
			}
			size = size > cap / 2 ? cap + 1 : size * 2;
			nb = realloc(buf, size + 1);
			if (!nb) {
				e = ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		n = pread(fd, buf + got, size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
fail:
	free(buf);
	return -e;
}

int ap_read_fd(int fd, size_t cap, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	return read_loop(fd, cap, buf, len);
}

int ap_read_file(const char *path, size_t cap, char **buf, size_t *len)
{
	int fd, rc;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = read_loop(fd, cap, buf, len);
	close(fd);
	return rc;
}
