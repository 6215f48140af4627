// SPDX-License-Identifier: Apache-2.0
/* summary: the verdict, the peak and its parts, the first run, drops (summary.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/render/dmabuf_report.h"
#include "arenaprof/render/summary.h"
#include "arenaprof/render/xnn_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

/* The figures the summary states, every one from the report's own analysis. */
struct figures {
	uint64_t peak;		/* VmHWM's maximum, else every page the trace saw resident */
	bool peak_hwm;
	uint64_t kind[AP_GROUP_COUNT];
	uint64_t arena_planned;	/* 0: no plan */
	uint64_t arena_touched;	/* the arena's first touches: its block's pages when it
				 * is a block in a larger mapping, else its mapping's */
	const char *top_call;	/* the largest allocating call outside the arena, or NULL */
	int64_t first_run_ns;	/* run 0 less the median run; -1 unknown */
};

static void gather(const struct ap_report *r, struct figures *g)
{
	const struct ap_corr_all *x = r->x;
	const struct ap_attrib *at = r->attrib;

	memset(g, 0, sizeof(*g));
	for (int k = 0; k < AP_GROUP_COUNT; k++)
		g->kind[k] = x->c.groups[k].resident_bytes;
	g->peak = ap_corr_peak(x, &g->peak_hwm);
	g->arena_planned = x->have_plan ? x->plan.arena_bytes : 0;
	g->arena_touched = g->kind[AP_GROUP_ARENA];
	if (x->have_plan && x->c.page_lo < x->c.page_hi && x->c.page_hi != UINT64_MAX)
		g->arena_touched = x->c.ft_pages * x->c.page_size;
	g->first_run_ns = -1;
	if (at && at->n_callers)
		g->top_call = at->callers[0].name;
	if (at && at->run_first_ns && at->run_median_ns)
		g->first_run_ns = (int64_t)at->run_first_ns - (int64_t)at->run_median_ns;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* The API of a "run probe: FILE:SYM (run entry point found automatically: API)" note. */
static bool note_api(const char *note, const char **api, size_t *len)
{
	static const char tag[] = "found automatically: ";
	const char *p = strstr(note, tag), *end;

	if (!p)
		return false;
	*api = p + sizeof(tag) - 1;
	end = strrchr(*api, ')');
	*len = end ? (size_t)(end - *api) : strlen(*api);
	return true;
}

/*
 * The run probe: --run-probe's, else the entry point found automatically; where record
 * attached several (one per API in the files mapped), how many and their APIs, once each.
 */
const char *ap_summary_run_probe(const struct ap_analysis *a, char *buf, size_t len)
{
	static const char found[] = "run probe: ";
	uint32_t n = 0, first = 0, named = 0;
	size_t at;
	bool dup;

	snprintf(buf, len, "%s", a->strings[AP_HS_RUN_PROBE]);
	if (buf[0])
		return buf;
	for (uint32_t i = 0; i < a->n_notes; i++)
		if (!strncmp(a->notes[i], found, sizeof(found) - 1) && !n++)
			first = i;
	if (n == 1)
		snprintf(buf, len, "%s", a->notes[first] + sizeof(found) - 1);
	if (n <= 1)
		return buf;
	at = (size_t)snprintf(buf, len, "%u run entry points found automatically (a run is "
			      "the outermost call): ", n);
	for (uint32_t i = first; i < a->n_notes && at < len; i++) {
		const char *api;
		size_t alen;

		if (strncmp(a->notes[i], found, sizeof(found) - 1) ||
		    !note_api(a->notes[i], &api, &alen))
			continue;
		/* each API once: skip one named by an earlier note */
		dup = false;
		for (uint32_t k = first; k < i && !dup; k++) {
			const char *b;
			size_t blen;

			dup = !strncmp(a->notes[k], found, sizeof(found) - 1) &&
			      note_api(a->notes[k], &b, &blen) && blen == alen &&
			      !strncmp(api, b, alen);
		}
		if (!dup)
			at += (size_t)snprintf(buf + at, len - at, "%s%.*s",
					       named++ ? ", " : "", (int)alen, api);
	}
	return buf;
}

/* The verdict: does the plan describe what the process did? */
static void verdict(FILE *f, const struct ap_report *r, const struct figures *g)
{
	const struct ap_corr_all *x = r->x;
	const struct ap_arena_id *id = &x->a.id;

	if (!x->have_plan)
		fprintf(f, "verdict    no plan given (--plan MODEL): the arena by %s is %s\n",
			ap_arena_rule_key(id->rule), B(g->kind[AP_GROUP_ARENA]));
	else if (id->map < 0 && !x->no_arena)
		fprintf(f, "verdict    no arena found: %s\n", TS(id->why));
	else if (x->c.mismatch)
		fprintf(f, "verdict    the plan does NOT describe this trace: %s\n",
			x->c.n_reasons ? x->c.reasons[0] : "");
	else if (x->no_arena)
		fprintf(f, "verdict    CompiledModel leaves no TFLite arena beside XNNPACK, as "
			"planned: every tensor outside XNNPACK's partitions is a model input or "
			"output, in CompiledModel's own TensorBuffers\n");
	else
		fprintf(f, "verdict    the %sis as planned: %s planned, %s first touched "
			"(found by %s)\n", x->delegate == AP_DELEGATE_XNNPACK ?
			(x->io_late ? "TFLite arena left beside XNNPACK by CompiledModel "
			 "(planned whole, its inputs and outputs bound to its own buffers "
			 "after: their bytes unused) " : x->compiled ? "TFLite arena left "
			 "beside XNNPACK by CompiledModel (its inputs and outputs in its own "
			 "buffers) " : "TFLite arena left beside XNNPACK (LiteRT's default path) ")
			: "arena ",
			B(g->arena_planned), B(g->arena_touched),
			ap_arena_rule_key(id->rule));
	ap_xnn_verdict_text(f, &x->xm);
	if (x->have_plan && x->delegate_auto && x->delegate == AP_DELEGATE_XNNPACK)
		fprintf(f, "           (the plan of --delegate xnnpack, chosen by the trace: "
			"XNNPACK's allocator ran, or the arena block has its size; --delegate "
			"none gives the builtin kernels' plan)\n");
}

void ap_summary_text(FILE *f, const struct ap_report *r)
{
	const struct ap_analysis *a = &r->x->a;
	uint64_t other = 0;
	struct figures g;

	gather(r, &g);
	other = g.kind[AP_GROUP_HEAP] + g.kind[AP_GROUP_STACK] + g.kind[AP_GROUP_ANON];
	verdict(f, r, &g);
	fprintf(f, "peak       %s (%s): arena %s (%.0f %%), weights %s resident (file-backed), "
		"other anonymous %s, code and files %s\n", B(g.peak), g.peak_hwm ? "VmHWM" :
		"every page the trace saw resident", B(g.kind[AP_GROUP_ARENA]),
		share(g.kind[AP_GROUP_ARENA], g.peak), B(g.kind[AP_GROUP_WEIGHTS]), B(other),
		B(g.kind[AP_GROUP_FILES]));
	if (g.top_call)
		fprintf(f, "           the largest allocating call outside the arena: %s\n",
			TS(g.top_call));
	ap_dmabuf_summary_text(f, a);
	if (g.first_run_ns >= 0)
		fprintf(f, "first run  %.2f ms more than the median run (its first touches, "
			"cold caches, lazy set-up)\n", (double)g.first_run_ns / 1e6);
	fprintf(f, "drops      %s\n", a->drops.ringbuf_drops ? "EVENTS WERE DROPPED: the figures "
		"miss them (record again with a larger --ring-size)" : "none");
	fputc('\n', f);
}

void ap_summary_json(struct ap_json *j, const struct ap_report *r)
{
	const struct ap_corr_all *x = r->x;
	struct figures g;

	gather(r, &g);
	ap_json_obj(j, "summary");
	if (x->have_plan && (x->a.id.map >= 0 || x->no_arena))
		ap_json_bool(j, "plan_matches", !x->c.mismatch);
	else
		ap_json_null(j, "plan_matches");
	ap_json_u64(j, "peak_bytes", g.peak);
	ap_json_str(j, "peak_source", g.peak_hwm ? "VmHWM" : "first touches");
	ap_json_u64(j, "arena_bytes", g.kind[AP_GROUP_ARENA]);
	if (g.arena_planned || x->no_arena)
		ap_json_u64(j, "arena_planned_bytes", g.arena_planned);
	else
		ap_json_null(j, "arena_planned_bytes");
	ap_json_u64(j, "weights_bytes", g.kind[AP_GROUP_WEIGHTS]);
	ap_json_u64(j, "other_anonymous_bytes", g.kind[AP_GROUP_HEAP] + g.kind[AP_GROUP_STACK] +
		    g.kind[AP_GROUP_ANON]);
	ap_json_u64(j, "code_and_files_bytes", g.kind[AP_GROUP_FILES]);
	if (g.top_call)
		ap_json_str(j, "top_allocating_call", g.top_call);
	else
		ap_json_null(j, "top_allocating_call");
	if (g.first_run_ns >= 0)
		ap_json_i64(j, "first_run_extra_ns", g.first_run_ns);
	else
		ap_json_null(j, "first_run_extra_ns");
	if (x->a.dmabuf.samples)	/* device memory: only when the target held any */
		ap_json_u64(j, "dmabuf_peak_bytes", x->a.dmabuf.peak_bytes);
	ap_json_u64(j, "dropped_events", x->a.drops.ringbuf_drops);
	ap_json_end_obj(j);
}
