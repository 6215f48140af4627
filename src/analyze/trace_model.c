// SPDX-License-Identifier: Apache-2.0
/* trace_model: the model a trace's process mapped (trace_model.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/analyze/trace_model.h"
#include "arenaprof/trace/walk.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/infile.h"

/* A file the trace mapped, and how far into it the mapping reached. */
struct file {
	char *path;
	uint64_t extent;
};

struct files {
	struct file *f;
	uint32_t n, cap;
	uint32_t models, unusable;	/* TFL3 files; .tflite files not usable here */
	char found[4096], other[4096];	/* the first model; the second, or an unusable */
	char unusable_why[AP_ERR_LEN];
};

static int on_mapping(void *ctx, const struct ap_rec_mapping *m, const char *path)
{
	struct files *s = ctx;

	if (path[0] != '/')
		return 0;	/* anonymous, [heap], [stack], [vdso] */
	if (ap_grow32(&s->f, &s->cap, s->n, sizeof(*s->f), 64))
		return -ENOMEM;
	s->f[s->n].path = strdup(path);
	if (!s->f[s->n].path)
		return -ENOMEM;
	s->f[s->n++].extent = m->offset + (m->end - m->start);
	return 0;
}

static int by_path(const void *x, const void *y)
{
	return strcmp(((const struct file *)x)->path, ((const struct file *)y)->path);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static void unusable(struct files *s, const char *path, const char *why)
{
	if (s->unusable++)
		return;
	snprintf(s->other, sizeof(s->other), "%s", path);
	snprintf(s->unusable_why, sizeof(s->unusable_why), "%s", why);
}

/* One mapped file (extent: the furthest any mapping of it reached): a model here or not. */
static void judge(struct files *s, const char *path, uint64_t extent, uint64_t page)
{
	char id[8], err[AP_ERR_LEN];
	uint64_t size = 0;
	int fd = ap_infile_open(path, &size, err);
	bool model;

	if (fd < 0) {
		if (ends_with(path, ".tflite"))
			unusable(s, path, err);
		return;
	}
	model = read(fd, id, sizeof(id)) == sizeof(id) && !memcmp(id + 4, "TFL3", 4);
	close(fd);
	if (!model)
		return;
	if ((size + page - 1) / page * page < extent) {
		unusable(s, path, "smaller here than the trace's mapping of it: another file");
		return;
	}
	snprintf(s->models ? s->other : s->found, sizeof(s->found), "%s", path);
	s->models++;
}

static int scan(const char *trace, struct files *s, uint64_t *page, char *err)
{
	struct ap_trace_consumer c = { .mapping = on_mapping, .ctx = s };
	struct ap_trace_reader r;
	int rc = ap_trace_open(&r, trace, err);

	if (rc)
		return rc;
	r.fold_map_copies = true;
	*page = r.hdr.page_size ? r.hdr.page_size : 4096;
	rc = ap_trace_walk(&r, &c, NULL, err);
	ap_trace_reader_close(&r);
	if (rc == -ENOMEM)
		return ap_fail(err, rc, "out of memory reading %s", trace);
	return rc ? -EINVAL : 0;
}

int ap_trace_model(const char *trace, char *path, size_t len, char *why, size_t wlen,
		   char *err)
{
	struct files s = { 0 };
	uint64_t page;
	int rc = scan(trace, &s, &page, err);

	if (!rc && s.n)
		qsort(s.f, s.n, sizeof(*s.f), by_path);
	/* each path once, at the furthest extent its mappings reached */
	for (uint32_t i = 0, j; !rc && i < s.n; i = j) {
		uint64_t extent = 0;

		for (j = i; j < s.n && !strcmp(s.f[j].path, s.f[i].path); j++)
			extent = s.f[j].extent > extent ? s.f[j].extent : extent;
		judge(&s, s.f[i].path, extent, page);
	}
	for (uint32_t i = 0; i < s.n; i++)
		free(s.f[i].path);
	free(s.f);
	if (rc)
		return rc;
	if (s.models == 1) {
		snprintf(path, len, "%s", s.found);
		return 1;
	}
	if (s.models > 1)
		snprintf(why, wlen, "it mapped %u models (%s, %s%s): say which with --plan",
			 s.models, s.found, s.other, s.models > 2 ? ", ..." : "");
	else if (s.unusable)
		snprintf(why, wlen, "it mapped %s, not usable here (%s)", s.other,
			 s.unusable_why);
	else
		snprintf(why, wlen, "it mapped no TFLite model file");
	return 0;
}
