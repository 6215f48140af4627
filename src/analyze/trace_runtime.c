// SPDX-License-Identifier: Apache-2.0
/* trace_runtime: a trace's runtime and its plan rules (trace_runtime.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/analyze/trace_runtime.h"
#include "arenaprof/trace/walk.h"
#include "arenaprof/util/err.h"

/* Python's distribution names compare case-insensitively, '-', '_' and '.' as one. */
static bool same_dist(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a == '_' || *a == '.' ? '-' : (char)tolower((unsigned char)*a);
		char y = *b == '_' || *b == '.' ? '-' : (char)tolower((unsigned char)*b);

		if (x != y)
			return false;
		if (!x)
			return true;
	}
}

/* The rules for a distribution: tflite-runtime 2.14.x has its own, any other LiteRT's. */
static enum ap_runtime_id rules_of(const struct ap_runtime_seen *s)
{
	if (same_dist(s->name, "tflite-runtime") &&
	    (!strcmp(s->version, "2.14") || !strncmp(s->version, "2.14.", 5)))
		return AP_RUNTIME_TFLITE_214;
	return AP_RUNTIME_LITERT;
}

static bool mixed(const struct ap_trace_runtime *rt)
{
	return rt->other[0] == '!';
}

void ap_trace_runtime_add(struct ap_trace_runtime *rt, const char *note)
{
	static const char unknown[] = "runtime: unknown (";
	struct ap_runtime_seen s;

	if (!strncmp(note, unknown, sizeof(unknown) - 1)) {
		rt->n_unknown++;
		return;
	}
	if (!ap_runtime_id_parse(note, &s))
		return;
	if (!rt->n_seen++) {
		rt->seen = s;
		return;
	}
	if (!strcmp(s.name, rt->seen.name) && !strcmp(s.version, rt->seen.version)) {
		rt->n_seen--;	/* another library of the same one */
		return;
	}
	/* "!" marks a second runtime whose rules are not the first's */
	if (rt->n_seen == 2)
		snprintf(rt->other, sizeof(rt->other), "%s%.60s %.60s",
			 rules_of(&s) != rules_of(&rt->seen) ? "!" : "", s.name, s.version);
}

void ap_trace_runtime_pick(struct ap_trace_runtime *rt)
{
	if (!rt->given)
		rt->id = rt->n_seen && !mixed(rt) ? rules_of(&rt->seen) : AP_RUNTIME_LITERT;
}

static int on_note(void *ctx, const struct ap_rec_note *n, const char *text)
{
	(void)n;
	ap_trace_runtime_add(ctx, text);
	return 0;
}

/* The first run begun: the notes that name the runtime are all before it. */
static int on_marker(void *ctx, uint32_t type, const struct ap_rec_marker *m)
{
	(void)ctx;
	(void)m;
	return type == AP_REC_RUN_BEGIN;
}

int ap_trace_runtime_scan(const char *trace, bool salvage, struct ap_trace_runtime *rt,
			  char *err)
{
	struct ap_trace_consumer c = { .note = on_note, .marker = on_marker, .ctx = rt };
	struct ap_trace_reader r;
	int rc = ap_trace_open(&r, trace, err);

	if (rc)
		return rc;
	r.salvage = salvage;
	r.fold_map_copies = true;
	rc = ap_trace_walk(&r, &c, NULL, err);
	ap_trace_reader_close(&r);
	if (rc < 0)
		return rc == -EBADMSG ? -EINVAL : rc;
	ap_trace_runtime_pick(rt);
	return 0;
}

const char *ap_trace_runtime_seen(const struct ap_trace_runtime *rt, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", rt->seen.name, rt->n_seen ? " " : "", rt->seen.version);
	return buf;
}

const char *ap_trace_runtime_why(const struct ap_trace_runtime *rt, char *buf, size_t len)
{
	char seen[140];

	ap_trace_runtime_seen(rt, seen, sizeof(seen));
	if (rt->given)
		snprintf(buf, len, "given (--runtime %s)", ap_runtime_get(rt->id)->name);
	else if (!rt->n_seen)
		snprintf(buf, len, "the default: the trace names no runtime version (%s)",
			 rt->n_unknown ? "its run probe's library is in no Python distribution" :
			 "no run entry point found, or recorded by an arenaprof that did not "
			 "name it");
	else if (mixed(rt))
		snprintf(buf, len, "the default: the trace names %u runtimes (%s, %s; "
			 "--runtime picks)", rt->n_seen, seen, rt->other + 1);
	else if (rt->id != AP_RUNTIME_LITERT || same_dist(rt->seen.name, "ai-edge-litert") ||
		 same_dist(rt->seen.name, "ai-edge-litert-nightly"))
		snprintf(buf, len, "chosen by the trace: it ran %s", seen);
	else
		snprintf(buf, len, "the default: the trace ran %s, which has no rules of its own "
			 "here", seen);
	return buf;
}
