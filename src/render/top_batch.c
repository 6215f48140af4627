// SPDX-License-Identifier: Apache-2.0
/*
 * top_batch: top --batch's line per interval, key=value text or one JSON object
 * (top_batch.h). The figures are the live model's, as the screen shows them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "arenaprof/render/top_batch.h"
#include "arenaprof/util/json.h"

static bool have(uint64_t v)
{
	return v != AP_NO_VALUE;
}

/* One batch line being written: key=value text, or a JSON object (json non-NULL). */
struct line {
	FILE *f;
	struct ap_json *json;
};

static void kv(struct line *o, const char *k, uint64_t v)
{
	if (o->json && have(v))
		ap_json_u64(o->json, k, v);
	else if (o->json)
		ap_json_null(o->json, k);
	else if (have(v))
		fprintf(o->f, " %s=%" PRIu64, k, v);
	else
		fprintf(o->f, " %s=-", k);
}

/* A rate; known false: "-" (null in JSON). */
static void kf(struct line *o, const char *k, double v, bool known)
{
	if (o->json && known)
		ap_json_f64(o->json, k, v);
	else if (o->json)
		ap_json_null(o->json, k);
	else if (known)
		fprintf(o->f, " %s=%.1f", k, v);
	else
		fprintf(o->f, " %s=-", k);
}

/* The XNNPACK panel's halves, held now, in bytes ("-" without XNNPACK in the target, and
 * the TFLite arena "-" while no block qualifies); its classes by report's JSON keys. */
static void xnn_keys(struct line *o, const struct ap_live *l)
{
	static const char *const key[AP_XNN_N_CLASSES] = {
		[AP_XNN_PACKED] = "xnn_packed_weights_bytes",
		[AP_XNN_WORKSPACE] = "xnn_workspace_bytes",
		[AP_XNN_SCRATCH] = "xnn_scratch_bytes", [AP_XNN_OTHER] = "xnn_other_bytes",
	};
	bool seen = ap_live_xnn_seen(l);
	uint32_t rule;
	uint64_t arena = ap_live_xnn_arena(l, &rule);

	kv(o, "xnn_tflite_arena_bytes", seen && rule ? arena : AP_NO_VALUE);
	for (int c = 0; c < AP_XNN_N_CLASSES; c++)
		kv(o, key[c], seen ? l->xnn.cls[c] : AP_NO_VALUE);
}

/* --budget: the verdict report --budget gives a trace, on the samples so far. */
static void budget_keys(struct line *o, const struct ap_live *l, uint64_t budget)
{
	struct ap_budget_process v;
	struct ap_procmem pm;
	const char *fits;

	ap_live_budget(l, budget, &pm, &v);
	fits = v.fits ? "yes" : v.unknown ? "unknown" : "no";
	kv(o, "budget", budget);
	kv(o, "budget_peak", pm.peak);
	kv(o, "budget_nonreclaimable", pm.nonreclaimable);
	if (o->json) {
		if (v.unknown)
			ap_json_null(o->json, "budget_fits");
		else
			ap_json_bool(o->json, "budget_fits", v.fits);
		ap_json_str(o->json, "budget_decided_by", ap_budget_decider_key(v.decided_by));
	} else {
		fprintf(o->f, " budget_fits=%s budget_decided_by=%s", fits,
			ap_budget_decider_key(v.decided_by));
	}
}

void ap_top_batch_line(FILE *f, const struct ap_live *l, bool as_json, uint64_t budget)
{
	const struct ap_rec_sample *s = &l->last.rec, *sm = &l->smaps;
	const struct ap_kernel_acct *a = &l->last.acct;
	bool arena = l->id.map >= 0, runs = l->run_markers || l->session->run_probe;
	struct ap_json j;
	struct line o = { .f = f, .json = as_json ? &j : NULL };
	char when[32];
	/* the sample's own time: a replay's lines are those of the recorded session */
	time_t now = (time_t)((l->t_start_real_ns + (l->t_last_ns - l->t_start_ns)) /
			      1000000000ULL);
	double t = (double)(l->t_last_ns - l->t_start_ns) / 1e9;
	struct tm tm;
	uint64_t p50, p99;
	uint32_t n_lat;
	bool have_lat, unpriv = ap_live_unprivileged(l);

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (as_json) {
		ap_json_init(&j, f);
		ap_json_obj(&j, NULL);
		ap_json_u64(&j, "schema_version", AP_TOP_BATCH_SCHEMA);
		ap_json_str(&j, "time", when);
		ap_json_f64(&j, "t", t);
		ap_json_i64(&j, "pid", l->pid);
	} else {
		fprintf(f, "%s t=%.1f pid=%d", when, t, l->pid);
	}
	kv(&o, "rss", s->vm_rss);
	kv(&o, "hwm", s->vm_hwm);
	kv(&o, "anon", s->rss_anon);
	kv(&o, "file", s->rss_file);
	kv(&o, "shmem", s->rss_shmem);
	kv(&o, "pss_anon", l->have_smaps ? sm->pss_anon : AP_NO_VALUE);
	kv(&o, "pss_file", l->have_smaps ? sm->pss_file : AP_NO_VALUE);
	kv(&o, "pss_shmem", l->have_smaps ? sm->pss_shmem : AP_NO_VALUE);
	kv(&o, "swap", l->have_smaps ? sm->swap : AP_NO_VALUE);
	kv(&o, "arena_bytes", arena ? l->as.maps[l->id.map].end - l->as.maps[l->id.map].start :
	   AP_NO_VALUE);
	kv(&o, "arena_pages", arena ? l->arena_pages : AP_NO_VALUE);
	kv(&o, "arena_resident_pages", arena ? l->arena_held : AP_NO_VALUE);
	kv(&o, "arena_first_touch_pages", arena && !unpriv ? l->arena_ft : AP_NO_VALUE);
	kf(&o, "first_touch_per_s", ap_live_rate(&l->ft_rate), !unpriv);
	kf(&o, l->majmin_known ? "minor_per_s" : "faults_per_s", ap_live_rate(&l->minor_rate),
	   !unpriv);
	kf(&o, "major_per_s", ap_live_rate(&l->major_rate), l->majmin_known);
	kv(&o, "runs", runs ? l->runs_completed : AP_NO_VALUE);
	kf(&o, "runs_per_s", ap_live_rate(&l->run_rate), runs);
	have_lat = ap_live_latency(l, &p50, &p99, &n_lat);
	kv(&o, "run_p50_ns", have_lat ? p50 : AP_NO_VALUE);
	kv(&o, "run_p99_ns", have_lat ? p99 : AP_NO_VALUE);
	kv(&o, "alloc_held", l->session->o.arena_mode ? l->alloc_bytes : AP_NO_VALUE);
	kv(&o, "alloc_unwatched_anon_growth", ap_live_anon_unwatched(l));
	xnn_keys(&o, l);
	kv(&o, "cg_current", a->cg_current);
	kv(&o, "cg_peak", a->cg_peak);
	kv(&o, "psi_some_avg10", a->psi_sys.some_avg[0]);
	kv(&o, "psi_full_avg10", a->psi_sys.full_avg[0]);
	kv(&o, "cg_psi_full_avg10", a->psi_cg.full_avg[0]);
	kv(&o, "drops", unpriv ? AP_NO_VALUE : l->drops.ringbuf_drops);
	if (budget)
		budget_keys(&o, l, budget);
	/* without BPF: what is missing, by the panels that need it */
	if (as_json && unpriv)
		ap_json_str(&j, "needs_root", "faults,runs,allocs");
	else if (as_json)
		ap_json_null(&j, "needs_root");
	else
		fprintf(f, " needs_root=%s", unpriv ? "faults,runs,allocs" : "-");
	if (as_json) {
		ap_json_end_obj(&j);
		ap_json_finish(&j);
	} else {
		fputc('\n', f);
	}
	fflush(f);
}
