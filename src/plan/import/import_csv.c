// SPDX-License-Identifier: Apache-2.0
/*
 * plan_import: a CSV of tensors (docs/design.md, "Imported plans").
 *
 * import:csv: header tensor,name,offset,size,first_node,last_node with an optional 7th
 * column kind (spaces around header names allowed). RFC 4180 fields: a field may be quoted,
 * with "" for a quote; a quoted field may hold commas and line breaks. Blank lines are
 * skipped. A row has as many fields as the header; with kind, 6 are accepted too. tensor:
 * 0..9,999,999, unique, any order (the plan is sorted by index); name: any text; offset:
 * -1 (not in an arena) or >= 0; size: >= 0; size, offset + size and the sum of all sizes at
 * most 2^56 (AP_PLAN_MAX_BYTES); first_node: -1 (never live) or 0..999,999;
 * last_node: "end" or "END" (to the end), -1 (only with first_node -1) or
 * first_node..999,999. Numbers may have spaces around them. kind: a name from
 * ap_kind_name(), empty or absent means arena.
 * share_root = -1. n_ops = largest node index + 1, op names "". arena_bytes = largest
 * offset + size of arena/input/output tensors with offset >= 0; persistent_bytes likewise
 * for variables.
 */
#include <errno.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_import.h"
#include "arenaprof/util/escape.h"
#include "import_priv.h"

#define CSV_MAX_FIELDS 8

enum { CSV_MORE = -1, CSV_TOOMANY = -2, CSV_QUOTE = -3, CSV_NOMEM = -4 };

static void free_fields(char **f, int n)
{
	while (n > 0)
		free(f[--n]);
}

/*
 * Splits one RFC 4180 record into at most max fields (heap copies, quotes removed).
 * Returns the number of fields, CSV_MORE when a quoted field is open at the end of s (then
 * *open_at, if given, is the offset of its opening quote), CSV_TOOMANY, CSV_QUOTE (text
 * after a closing quote) or CSV_NOMEM.
 */
static int csv_split(const char *s, char **out, int max, size_t *open_at)
{
	const char *s0 = s;
	int n = 0;

	for (;;) {
		const char *q = s, *e;
		char *f, *w;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '"') {
			for (e = q + 1; *e; e++) {
				if (*e == '"') {
					if (e[1] != '"')
						break;
					e++;
				}
			}
			if (!*e) {
				free_fields(out, n);
				if (open_at)
					*open_at = (size_t)(q - s0);
				return CSV_MORE;
			}
			f = malloc(e - q);
			if (!f) {
				free_fields(out, n);
				return CSV_NOMEM;
			}
			for (w = f, q++; q < e; q++) {
				*w++ = *q;
				if (*q == '"')
					q++;
			}
			*w = '\0';
			e++;
			while (*e == ' ' || *e == '\t')
				e++;
			if (*e && *e != ',') {
				free(f);
				free_fields(out, n);
				return CSV_QUOTE;
			}
		} else {
			e = strchr(s, ',');
			if (!e)
				e = s + strlen(s);
			f = imp_dup_n(s, e - s);
			if (!f) {
				free_fields(out, n);
				return CSV_NOMEM;
			}
		}
		if (n == max) {
			free(f);
			free_fields(out, n);
			return CSV_TOOMANY;
		}
		out[n++] = f;
		if (!*e)
			return n;
		s = e + 1;
	}
}

/* s without the spaces and tabs around it: cut at its end, the start returned. */
static char *trim(char *s)
{
	char *b = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	*b = '\0';
	return s;
}

static const char *const csv_cols[CSV_MAX_FIELDS] = {
	"tensor", "name", "offset", "size", "first_node", "last_node", "kind", "shares",
};

/* Line 1 as a header: the number of columns (6 or 7), 0 if no header, -1 bad header. */
int imp_csv_header(const char *s)
{
	char *f[CSV_MAX_FIELDS + 1];
	int n, i, ret;

	if (starts(s, "\xEF\xBB\xBF"))
		s += 3;
	n = csv_split(s, f, CSV_MAX_FIELDS + 1, NULL);
	if (n < 0)
		return 0;
	for (i = 0; i < n; i++) {
		char *a = trim(f[i]);

		memmove(f[i], a, strlen(a) + 1);
	}
	ret = n >= 6 && n <= CSV_MAX_FIELDS ? n : -1;
	for (i = 0; i < n && ret > 0; i++)
		if (strcmp(f[i], csv_cols[i]))
			ret = -1;
	if (ret < 0 && strcmp(f[0], "tensor"))
		ret = 0;
	if (ret < 0 && n < 2)
		ret = 0;
	free_fields(f, n);
	return ret;
}

/* After a number at the start of p: NUM_OK when only spaces follow. */
static int field_rest(const char *p)
{
	skip_spaces(&p);
	return *p ? NUM_BAD : NUM_OK;
}

/* A whole field (spaces around allowed) as an integer. */
static int field_int(const char *f, int64_t *v)
{
	int k;

	skip_spaces(&f);
	k = imp_eat_int(&f, v);
	return k == NUM_OK ? field_rest(f) : k;
}

static int field_u64(const char *f, uint64_t *v)
{
	int k;

	skip_spaces(&f);
	k = imp_eat_u64(&f, v);
	return k == NUM_OK ? field_rest(f) : k;
}

/* last_node: "end" or "END" (AP_LAST_END) or a number below AP_IMPORT_MAX_NODES. */
static int csv_last(struct reader *r, long line, const char *f, int64_t *last)
{
	char qb[QUOTE_LEN];
	const char *p = f;
	bool is_end;

	skip_spaces(&p);
	is_end = eat_lit(&p, "end") || eat_lit(&p, "END");
	if (is_end)
		skip_spaces(&p);
	if (is_end && !*p) {
		*last = AP_LAST_END;
		return 0;
	}
	if (field_int(f, last) != NUM_OK)
		return imp_fail_at(r, line, "last_node '%s' is not a number or 'end'",
				   imp_quote(qb, f, strlen(f)));
	if (*last >= AP_IMPORT_MAX_NODES)
		return imp_fail_at(r, line, "last_node %" PRId64 " is out of range "
				   "(-1..%d or end)", *last, AP_IMPORT_MAX_NODES - 1);
	return 0;
}

/* The optional columns: kind (absent or empty: arena) and shares (absent or empty: -1). */
static int csv_kind_shares(struct reader *r, long line, char **f, int n, struct ap_ptensor *t)
{
	char qb[QUOTE_LEN];

	t->kind = AP_KIND_ARENA;
	if (n >= 7) {
		char *a = trim(f[6]);

		if (*a && ap_kind_parse(a, &t->kind))
			return imp_fail_at(r, line, "kind '%s' is not one of arena, input, output, "
					   "variable, weights, dynamic, unplanned, temporary, "
					   "persistent, parent", imp_quote(qb, a, strlen(a)));
	}
	t->share_root = -1;
	if (n == 8 && *f[7]) {
		int64_t root;
		int k = field_int(f[7], &root);

		if (k != NUM_OK || root < 0 || root >= AP_IMPORT_MAX_TENSORS)
			return imp_fail_at(r, line, "shares '%s' is not a tensor index",
					   imp_quote(qb, f[7], strlen(f[7])));
		t->share_root = (int32_t)root;
	}
	return 0;
}

/* One CSV row into t; fields f[0..n). */
static int csv_row(struct reader *r, long line, char **f, int n, int ncols,
		   struct ap_ptensor *t)
{
	char qb[QUOTE_LEN];
	int64_t idx, off, first, last;
	uint64_t size;
	int k;

#define BADNUM(col, s, k) imp_fail_at(r, line, "%s '%s' is %s", col, imp_quote(qb, s, strlen(s)), \
				      (k) == NUM_RANGE ? "out of range" : "not a number")

	if (n < 6 || n > ncols)
		return imp_fail_at(r, line, "expected %d fields, found %d%s", ncols, n,
				   n < ncols ? " (truncated line?)" : "");
	k = field_int(f[0], &idx);
	if (k != NUM_OK)
		return BADNUM("tensor", f[0], k);
	if (idx < 0 || idx >= AP_IMPORT_MAX_TENSORS)
		return imp_fail_at(r, line, "tensor %" PRId64 " is out of range (0..%d)", idx,
				   AP_IMPORT_MAX_TENSORS - 1);
	k = field_int(f[2], &off);
	if (k != NUM_OK)
		return BADNUM("offset", f[2], k);
	if (off < -1)
		return imp_fail_at(r, line, "offset %" PRId64 " must be -1 (not in an arena) "
				   "or >= 0", off);
	k = field_u64(f[3], &size);
	if (k != NUM_OK)
		return BADNUM("size", f[3], k);
	if (imp_check_bytes(r, line, "tensor", idx, off, size))
		return -1;
	k = field_int(f[4], &first);
	if (k != NUM_OK)
		return BADNUM("first_node", f[4], k);
	if (csv_last(r, line, f[5], &last))
		return -1;
	if (first < -1 || first >= AP_IMPORT_MAX_NODES)
		return imp_fail_at(r, line, "first_node %" PRId64 " is out of range (-1..%d)",
				   first, AP_IMPORT_MAX_NODES - 1);
	if ((first < 0) != (last == -1) || last < -1 || (last != AP_LAST_END && last < first))
		return imp_fail_at(r, line, "last_node '%s' does not fit first_node %" PRId64
				   " (-1 with -1, else end or >= first_node)",
				   imp_quote(qb, f[5], strlen(f[5])), first);
#undef BADNUM
	if (csv_kind_shares(r, line, f, n, t))
		return -1;
	t->index = (int32_t)idx;
	t->offset = off;
	t->bytes = size;
	t->first = (int32_t)first;
	t->last = (int32_t)last;
	t->name = ap_name_clean(strdup(f[1]));
	if (!t->name) {
		imp_fail_at(r, line, "out of memory");
		r->rc = -ENOMEM;
		return -1;
	}
	return 0;
}

/* In a quoted field at q: whether its closing quote (a '"' not doubled) is in q. */
static bool quote_closes(const char *q)
{
	for (; *q; q++) {
		if (*q != '"')
			continue;
		if (q[1] != '"')
			return true;
		q++;
	}
	return false;
}

/*
 * Appends the next line to *rec (after a '\n'), growing it by doubling. 1, 0 at the end
 * of the file, -1 with the error set.
 */
static int append_line(struct reader *r, char **rec, size_t *len, size_t *cap)
{
	int k = imp_next_line(r);

	if (k <= 0)
		return k;
	if (r->has_nul)
		return fail(r, "the line holds a NUL byte");
	if (*len + r->len + 2 > *cap) {
		size_t c = *cap;
		char *n;

		while (*len + r->len + 2 > c)
			c *= 2;
		n = realloc(*rec, c);
		if (!n)
			return imp_oom(r);
		*rec = n;
		*cap = c;
	}
	(*rec)[(*len)++] = '\n';
	memcpy(*rec + *len, r->line, r->len + 1);
	*len += r->len;
	return 1;
}

/*
 * The record that starts on the current line, split into f (a quoted field may go on over
 * several lines): the number of fields, or -1 with the error set. While a quoted field is
 * open, only the lines appended are searched for its closing quote, and the record is
 * split again only once it closes: an unclosed quote costs one pass, not one per line.
 */
static int csv_record(struct reader *r, char **f, int ncols)
{
	long line = r->lineno;
	size_t len = r->len, cap = r->len + 1, open_at = 0;
	char *rec;
	int k, nf;

	rec = imp_dup_n(r->line, r->len);
	if (!rec)
		return imp_oom(r);
	while ((nf = csv_split(rec, f, CSV_MAX_FIELDS + 1, &open_at)) == CSV_MORE) {
		size_t scan = open_at + 1;

		while (!quote_closes(rec + scan)) {
			scan = len;
			k = append_line(r, &rec, &len, &cap);
			if (k < 0)
				goto err;
			if (!k) {
				imp_fail_at(r, line, "a quoted field is never closed");
				goto err;
			}
		}
	}
	free(rec);
	if (nf == CSV_NOMEM)
		return imp_oom(r);
	if (nf == CSV_QUOTE)
		return imp_fail_at(r, line, "text after a closing quote");
	if (nf == CSV_TOOMANY)
		return imp_fail_at(r, line, "more than %d fields", ncols);
	return nf;
err:
	free(rec);
	return -1;
}

/* The arenas' sizes: the highest end of their tensors. */
static void csv_sizes(struct ap_tplan *p)
{
	uint32_t i;

	for (i = 0; i < p->n; i++) {
		const struct ap_ptensor *t = &p->t[i];
		uint64_t e = (uint64_t)t->offset + t->bytes;

		if (t->offset < 0)
			continue;
		if (t->kind == AP_KIND_VARIABLE && e > p->persistent_bytes)
			p->persistent_bytes = e;
		if ((t->kind == AP_KIND_ARENA || t->kind == AP_KIND_INPUT ||
		     t->kind == AP_KIND_OUTPUT) && e > p->arena_bytes)
			p->arena_bytes = e;
	}
}

int imp_csv_import(struct reader *r, struct ap_tplan *p, int ncols)
{
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	char *f[CSV_MAX_FIELDS + 1];
	int64_t max_node = -1;
	int k, nf;

	while ((k = imp_next_line(r)) > 0) {
		long line = r->lineno;

		if (r->has_nul) {
			fail(r, "the line holds a NUL byte");
			goto err;
		}
		if (!r->len)
			continue;
		nf = csv_record(r, f, ncols);
		if (nf < 0)
			goto err;
		if (imp_add_row(r, &rows, n, &cap, line)) {
			free_fields(f, nf);
			goto err;
		}
		k = csv_row(r, line, f, nf, ncols, &rows[n].t);
		free_fields(f, nf);
		if (k)
			goto err;
		if (rows[n].t.first > max_node)
			max_node = rows[n].t.first;
		if (rows[n].t.last != AP_LAST_END && rows[n].t.last > max_node)
			max_node = rows[n].t.last;
		n++;
	}
	if (k < 0)
		goto err;
	if (!n) {
		imp_fail_at(r, 1, "no tensor rows after the CSV header");
		goto err;
	}
	if (imp_rows_to_plan(r, rows, n, "tensor", p))
		return -1;
	csv_sizes(p);
	return imp_blank_ops(r, p, (uint32_t)(max_node + 1));
err:
	imp_free_rows(rows, n);
	return -1;
}
