// SPDX-License-Identifier: Apache-2.0
/*
 * import_common: what the plan importers share (import_priv.h): reading lines, errors that
 * name the file and line, small number parsers, growing arrays, and turning rows of
 * (tensor, offset, size, first, last) into a plan. Kept apart from plan_import.c, which
 * calls the importers, so that the importers do not call back into their caller.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/util/sort.h"
#include "arenaprof/util/escape.h"
#include "import_priv.h"

/* ------------------------------------------------------------------------------------- */
/* Lines, errors, small parsers                                                          */

int imp_next_line(struct reader *r)
{
	ssize_t n;

	errno = 0;
	n = getline(&r->line, &r->cap, r->f);
	if (n < 0) {
		int e = errno ? errno : EIO;

		if (ferror(r->f)) {
			r->rc = -e;
			ap_seterr(r->err, "%s: read error: %s", r->path, strerror(e));
			return -1;
		}
		if (e == ENOMEM) {
			r->rc = -ENOMEM;
			ap_seterr(r->err, "%s:%ld: out of memory", r->path, r->lineno + 1);
			return -1;
		}
		return 0;
	}
	r->lineno++;
	while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r'))
		r->line[--n] = '\0';
	r->len = (size_t)n;
	r->has_nul = strlen(r->line) != r->len;
	return 1;
}

int imp_fail_at(struct reader *r, long line, const char *fmt, ...)
{
	char msg[AP_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ap_seterr(r->err, "%s:%ld: %s", r->path, line, msg);
	r->rc = -EINVAL;
	return -1;
}

int imp_oom(struct reader *r)
{
	fail(r, "out of memory");
	r->rc = -ENOMEM;
	return -1;
}

const char *imp_quote(char *buf, const char *s, size_t n)
{
	size_t i, m = n > 32 ? 32 : n;

	for (i = 0; i < m; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (m < n) {
		memcpy(buf + m, "...", 3);
		m += 3;
	}
	buf[m] = '\0';
	return buf;
}

void *imp_grow(void *arr, size_t *cap, size_t elsz)
{
	size_t nc = *cap ? *cap : 16;
	void *np;

	if (*cap) {
		if (nc > SIZE_MAX / 2 / elsz)
			return NULL;
		nc *= 2;
	}
	np = realloc(arr, nc * elsz);
	if (np)
		*cap = nc;
	return np;
}

int imp_eat_u64(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (!isdigit((unsigned char)*p))
		return NUM_BAD;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return NUM_RANGE;
		x = x * 10 + d;
	}
	*v = x;
	*s = p;
	return NUM_OK;
}

int imp_eat_int(const char **s, int64_t *v)
{
	bool neg = **s == '-';
	const char *p = *s + neg;
	uint64_t x;
	int k;

	k = imp_eat_u64(&p, &x);
	if (k != NUM_OK)
		return k;
	if (x > (uint64_t)INT64_MAX + neg)
		return NUM_RANGE;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*s = p;
	return NUM_OK;
}

char *imp_dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
		ap_name_clean(d);	/* an imported plan's names, made printable (escape.h) */
	}
	return d;
}

/* By index, then by line: duplicates come out next to each other, the first one first. */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->t.index != y->t.index)
		return x->t.index < y->t.index ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void imp_free_rows(struct row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(rows[i].t.name);
	free(rows);
}

int imp_add_row(struct reader *r, struct row **rows, size_t n, size_t *cap, long line)
{
	if (n == *cap) {
		void *np = imp_grow(*rows, cap, sizeof(**rows));

		if (!np)
			return imp_oom(r);
		*rows = np;
	}
	memset(&(*rows)[n], 0, sizeof(**rows));
	(*rows)[n].line = line;
	return 0;
}

int imp_check_bytes(struct reader *r, long line, const char *what, int64_t id, int64_t offset,
		    uint64_t bytes)
{
	if (bytes > AP_PLAN_MAX_BYTES)
		return imp_fail_at(r, line, "%s %" PRId64 ": size %" PRIu64 " is beyond the limit "
				   "of " AP_PLAN_MAX_BYTES_TEXT, what, id, bytes);
	if (offset >= 0 && (uint64_t)offset > AP_PLAN_MAX_BYTES - bytes)
		return imp_fail_at(r, line, "%s %" PRId64 ": offset %" PRId64 " + size %" PRIu64
				   " is beyond the limit of " AP_PLAN_MAX_BYTES_TEXT, what, id,
				   offset, bytes);
	r->bytes_sum += bytes;	/* both <= 2^56: no overflow */
	if (r->bytes_sum > AP_PLAN_MAX_BYTES)
		return imp_fail_at(r, line, "the tensors' sizes add up to more than "
				   AP_PLAN_MAX_BYTES_TEXT);
	return 0;
}

int imp_rows_to_plan(struct reader *r, struct row *rows, size_t n, const char *what,
		     struct ap_tplan *p)
{
	size_t i;

	ap_qsort(rows, n, sizeof(*rows), row_cmp);
	for (i = 1; i < n; i++) {
		if (rows[i].t.index == rows[i - 1].t.index) {
			imp_fail_at(r, rows[i].line, "duplicate %s %" PRId32 " (first on line %ld)",
				    what, rows[i].t.index, rows[i - 1].line);
			imp_free_rows(rows, n);
			return -1;
		}
	}
	p->t = calloc(n, sizeof(*p->t));
	if (!p->t) {
		imp_free_rows(rows, n);
		return imp_oom(r);
	}
	for (i = 0; i < n; i++)
		p->t[i] = rows[i].t;
	p->n = (uint32_t)n;
	free(rows);
	return 0;
}

int imp_blank_ops(struct reader *r, struct ap_tplan *p, uint32_t n_ops)
{
	uint32_t i;

	if (!n_ops)
		return 0;
	p->ops = calloc(n_ops, sizeof(*p->ops));
	if (!p->ops)
		return imp_oom(r);
	p->n_ops = n_ops;
	for (i = 0; i < n_ops; i++) {
		p->ops[i].opname = strdup("");
		p->ops[i].out_name = strdup("");
		if (!p->ops[i].opname || !p->ops[i].out_name)
			return imp_oom(r);
	}
	return 0;
}
