// SPDX-License-Identifier: Apache-2.0
/* json: a streaming writer; enough for reports, no dependency for a few hundred lines. */
#include <math.h>
#include <string.h>

#include "arenaprof/util/escape.h"
#include "arenaprof/util/json.h"

void ap_json_init(struct ap_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
}

static void prefix(struct ap_json *j, const char *key)
{
	if (j->need_comma[j->depth])
		putc_unlocked(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {	/* the program's own words (json.h): nothing to escape */
		putc_unlocked('"', j->f);
		ap_put_bytes(j->f, key, strlen(key));
		putc_unlocked('"', j->f);
		putc_unlocked(':', j->f);
	}
}

static void open(struct ap_json *j, const char *key, char c)
{
	prefix(j, key);
	putc_unlocked(c, j->f);
	if (j->depth + 1 < AP_JSON_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void ap_json_obj(struct ap_json *j, const char *key) { open(j, key, '{'); }
void ap_json_arr(struct ap_json *j, const char *key) { open(j, key, '['); }

void ap_json_end_obj(struct ap_json *j)
{
	putc_unlocked('}', j->f);
	if (j->depth > 0)
		j->depth--;
}

void ap_json_end_arr(struct ap_json *j)
{
	putc_unlocked(']', j->f);
	if (j->depth > 0)
		j->depth--;
}

void ap_json_str(struct ap_json *j, const char *key, const char *v)
{
	prefix(j, key);
	ap_fput_json_str(j->f, v);
}

/* v in decimal, minus first when neg: by hand, fprintf was a third of a large report. */
static void put_dec(FILE *f, uint64_t v, bool neg)
{
	char buf[21];
	size_t at = sizeof(buf);

	do
		buf[--at] = (char)('0' + v % 10);
	while (v /= 10);
	if (neg)
		buf[--at] = '-';
	ap_put_bytes(f, buf + at, sizeof(buf) - at);
}

void ap_json_u64(struct ap_json *j, const char *key, uint64_t v)
{
	prefix(j, key);
	put_dec(j->f, v, false);
}

void ap_json_i64(struct ap_json *j, const char *key, int64_t v)
{
	prefix(j, key);
	put_dec(j->f, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void ap_json_f64(struct ap_json *j, const char *key, double v)
{
	prefix(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void ap_json_bool(struct ap_json *j, const char *key, bool v)
{
	prefix(j, key);
	fputs(v ? "true" : "false", j->f);
}

void ap_json_null(struct ap_json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->f);
}

void ap_json_finish(struct ap_json *j)
{
	fputc('\n', j->f);
}

void ap_json_num(struct ap_json *j, const char *key, const char *number)
{
	prefix(j, key);
	fputs(number, j->f);
}
