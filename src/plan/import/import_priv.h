/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the plan importers share: plan_import.c detects the format and calls one importer;
 * import_common.c holds the line reader, the error and number helpers and the row table;
 * import_litert.c (with import_litert_build.c), import_tflm.c and import_csv.c parse one
 * format each (the exact rules are at the top of each file).
 * Private to src/plan/.
 */
#ifndef ARENAPROF_PLAN_IMPORT_PRIV_H
#define ARENAPROF_PLAN_IMPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/plan/plan.h"

struct reader {
	FILE *f;
	const char *path;
	char *err;
	int rc;			/* the failure's negative errno, set with err: -EINVAL (bad
				 * input), -ENOMEM, or a read's own; the parsers return -1 and
				 * ap_plan_import returns this */
	char *line;		/* the current line, without trailing \r and \n */
	size_t cap;
	size_t len;
	long lineno;
	bool has_nul;		/* the line holds a NUL byte: binary data */
	uint64_t bytes_sum;	/* of the tensors read so far, for imp_check_bytes */
};

/* 1: a line was read, 0: end of file, -1: read error (err and rc are set). */
int imp_next_line(struct reader *r);

/* "PATH:LINE: message" into r->err, r->rc -EINVAL; returns -1. */
int imp_fail_at(struct reader *r, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define fail(r, ...) imp_fail_at((r), (r)->lineno, __VA_ARGS__)

/* "out of memory" as imp_fail_at says it, r->rc -ENOMEM; returns -1. */
int imp_oom(struct reader *r);

/* A printable copy of at most 32 bytes of s[0..n) for messages, "..." when cut. */
#define QUOTE_LEN 40
const char *imp_quote(char *buf, const char *s, size_t n);

/* Grows an array to hold one more element; NULL (and *cap unchanged) on failure. */
void *imp_grow(void *arr, size_t *cap, size_t elsz);

static inline bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static inline bool eat_lit(const char **s, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*s, lit, n))
		return false;
	*s += n;
	return true;
}

static inline void skip_spaces(const char **s)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
}

enum { NUM_OK, NUM_BAD, NUM_RANGE };

/* Decimal integer at *s, optional '-'; on NUM_OK *s is advanced past it. */
int imp_eat_int(const char **s, int64_t *v);
int imp_eat_u64(const char **s, uint64_t *v);

char *imp_dup_n(const char *s, size_t n);

/* A tensor and the line it was read from. */
struct row {
	struct ap_ptensor t;
	long line;
};

/* rows[n], zeroed, with its line: *rows grows when n == *cap. -1 (err set) on failure. */
/*
 * The size and offset (-1: none) of a tensor read on line `line`, checked against
 * AP_PLAN_MAX_BYTES: the size, offset + size, and the sum of the sizes read so far. 0, or
 * -1 with the error set naming what and id.
 */
int imp_check_bytes(struct reader *r, long line, const char *what, int64_t id, int64_t offset,
		    uint64_t bytes);

int imp_add_row(struct reader *r, struct row **rows, size_t n, size_t *cap, long line);
void imp_free_rows(struct row *rows, size_t n);

/* Sorts the rows, refuses duplicates, moves them into p->t (rows is freed). */
int imp_rows_to_plan(struct reader *r, struct row *rows, size_t n, const char *what,
		     struct ap_tplan *p);

/* n_ops empty-named ops (formats that do not name operators). */
int imp_blank_ops(struct reader *r, struct ap_tplan *p, uint32_t n_ops);

/* The formats: whether a line starts one, and its parser (from the current line on). */
bool imp_litert_marker(const char *s);
int imp_litert_import(struct reader *r, struct ap_tplan *p);
bool imp_tflm_marker(const char *s);
int imp_tflm_import(struct reader *r, struct ap_tplan *p);
/* Line 1 as a CSV header: the number of columns (6 or 7), 0 if no header, -1 bad header. */
int imp_csv_header(const char *s);
int imp_csv_import(struct reader *r, struct ap_tplan *p, int ncols);

#endif
