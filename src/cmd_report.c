// SPDX-License-Identifier: Apache-2.0
/* arenaprof report: what a trace says the process made resident, when, and where. */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analysis.h"
#include "arenaprof/cmd.h"
#include "arenaprof/err.h"
#include "arenaprof/json.h"
#include "arenaprof/plan_load.h"
#include "arenaprof/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)

static const char *const end_reasons[] = {
	[AP_END_TARGET_EXIT] = "the target exited",
	[AP_END_RUNS] = "the requested runs completed",
	[AP_END_DURATION] = "the duration elapsed",
	[AP_END_SIGNAL] = "the recorder was interrupted",
	[AP_END_ERROR] = "the recorder hit an error",
};

static const char *end_reason(uint32_t r)
{
	return r < sizeof(end_reasons) / sizeof(end_reasons[0]) && end_reasons[r] ?
	       end_reasons[r] : "unknown";
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof report TRACE [--plan MODEL.tflite|PLAN] [--arena ADDR] [--json]\n"
		"                       [--pages]\n\n"
		"What a trace of `arenaprof record` says: faults and first-touch pages per mapping,\n"
		"the arena (and how it was identified), first touches per run and per operator\n"
		"marker, drops, and memory samples over time.\n"
		"  --plan FILE     a .tflite model (planned with the tflite strategy) or a plan\n"
		"                  (LiteRT dump, TFLM plan, CSV): identifies the arena by size\n"
		"  --plan-csv FILE the same, for a CSV plan\n"
		"  --arena ADDR    the arena is the mapping holding ADDR (hex)\n"
		"  --json          one JSON object\n"
		"  --pages         with --json: every first-touched arena page (page, run, op)\n");
}

static uint64_t page_of(const struct ap_analysis *a)
{
	return a->hdr.page_size;
}

/* Later anonymous mappings at least the arena's size, first touched in a later run: the
 * arena re-planned and moved (a resized input). */
static bool is_move(const struct ap_analysis *a, uint32_t i)
{
	const struct ap_amap *ar = &a->maps[a->arena], *m = &a->maps[i];

	return (int32_t)i != a->arena && m->anon && m->first_touch_pages &&
	       m->end - m->start >= ar->end - ar->start && m->first_run > ar->first_run &&
	       m->first_run != INT32_MAX && strncmp(m->path, "[stack", 6);
}

static uint64_t sample_max(const struct ap_analysis *a, size_t off)
{
	uint64_t best = 0;

	for (uint32_t i = 0; i < a->n_samples; i++) {
		uint64_t v;

		memcpy(&v, (const char *)&a->samples[i] + off, sizeof(v));
		if (v != AP_NO_VALUE && v > best)
			best = v;
	}
	return best;
}

#define SMAX(a, field) sample_max((a), offsetof(struct ap_rec_sample, field))

static void print_runs(FILE *f, const struct ap_counts *c, const char *indent)
{
	int shown = 0;

	for (int32_t i = 0; i < c->n; i++) {
		if (!c->v[i])
			continue;
		if (shown && shown % 6 == 0)
			fprintf(f, "\n%s", indent);
		fprintf(f, "%srun %d: %" PRIu64, shown % 6 ? ", " : "", i - 1, c->v[i]);
		shown++;
	}
	fprintf(f, shown ? "\n" : "none\n");
}

static const struct ap_analysis *sort_a;

static int cmp_start(const void *x, const void *y)
{
	const struct ap_amap *m = &sort_a->maps[*(const uint32_t *)x];
	const struct ap_amap *n = &sort_a->maps[*(const uint32_t *)y];

	if (m->start != n->start)
		return m->start < n->start ? -1 : 1;
	return (m->end > n->end) - (m->end < n->end);
}

/* Mapping indices in address order (the trace lists them in order of discovery). */
static uint32_t *by_address(const struct ap_analysis *a)
{
	uint32_t *v = malloc((a->n_maps + 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < a->n_maps; i++)
		v[i] = i;
	sort_a = a;
	qsort(v, a->n_maps, sizeof(*v), cmp_start);
	return v;
}

static void print_text(FILE *f, const char *path, const struct ap_analysis *a)
{
	uint32_t *order = by_address(a);
	double secs = a->t_last > a->t_first ? (double)(a->t_last - a->t_first) / 1e9 : 0;
	uint64_t page = page_of(a);

	fprintf(f, "trace      %s (%s)\n", path, a->truncated ?
		"cut short: read up to its last whole record" : a->saw_end ? "complete" :
		"no end record: the recorder did not finish");
	fprintf(f, "target     pid %d: %s (%s)\n", a->hdr.pid, a->strings[3],
		a->hdr.flags & AP_HDR_ATTACHED ? "attached with -p" : "started by arenaprof");
	fprintf(f, "method     %s; kernel %s, %s, page %" PRIu64 " bytes\n", a->strings[2],
		a->strings[1], a->strings[0], page);
	fprintf(f, "runs       %" PRIu64 " completed (%" PRIu64 " begun) in %.2f s%s%s%s\n",
		a->runs_completed, a->runs_begun, secs, a->strings[4][0] ? "; run probe " : "",
		a->strings[4], a->strings[4][0] ? "" : "; no run probe");
	fprintf(f, "faults     %" PRIu64 " (%" PRIu64 " with vma unknown)\n", a->faults,
		a->faults_vma_unknown);
	fprintf(f, "dropped    %" PRIu64 " events%s\n", a->drops.ringbuf_drops,
		a->drops.ringbuf_drops ? ": the ring buffer overflowed, record again with a "
		"larger --ring-size" : "");
	if (a->saw_end)
		fprintf(f, "ended      %s%s", end_reason(a->end.reason),
			a->end.reason == AP_END_TARGET_EXIT ? "" : "\n");
	if (a->saw_end && a->end.reason == AP_END_TARGET_EXIT) {
		if (a->end.term_signal)
			fprintf(f, " (killed by signal %d)\n", a->end.term_signal);
		else
			fprintf(f, " (status %d)\n", a->end.exit_status);
	}

	fprintf(f, "\n%-29s %10s %-5s %-8s %9s %9s %10s  %s\n", "mapping", "size", "kind",
		"role", "faults", "1st-touch", "resident", "path");
	for (uint32_t k = 0; order && k < a->n_maps; k++) {
		const struct ap_amap *m = &a->maps[order[k]];
		char range[40];

		if (!m->faults && !m->resident_at_attach)
			continue;
		snprintf(range, sizeof(range), "%" PRIx64 "-%" PRIx64, m->start, m->end);
		fprintf(f, "%-29s %10s %-5s %-8s %9" PRIu64 " %9" PRIu64 " %10s  %s\n", range,
			B(m->end - m->start), m->anon ? "anon" : "file", m->role, m->faults,
			m->first_touch_pages,
			B((m->first_touch_pages + m->resident_at_attach) * page),
			m->path[0] ? m->path : "");
		if (m->resident_at_attach)
			fprintf(f, "%29s %" PRIu64 " pages were already resident at attach\n", "",
				m->resident_at_attach);
	}

	if (a->arena < 0) {
		fprintf(f, "\narena      none identified: %s\n", a->arena_rule);
	} else {
		const struct ap_amap *ar = &a->maps[a->arena];

		fprintf(f, "\narena      0x%" PRIx64 ", %s: %s\n", ar->start, B(ar->end - ar->start),
			a->arena_rule);
		fprintf(f, "           %" PRIu64 " first-touch pages (%s)\n", ar->first_touch_pages,
			B(ar->first_touch_pages * page));
		fprintf(f, "first touches per run (arena):\n  ");
		print_runs(f, &ar->by_run, "  ");
		for (uint32_t i = 0; i < a->n_maps; i++) {
			if (!is_move(a, i))
				continue;
			fprintf(f, "arena moved: 0x%" PRIx64 ", %s, first touched in run %d:\n  ",
				a->maps[i].start, B(a->maps[i].end - a->maps[i].start),
				a->maps[i].first_run);
			print_runs(f, &a->maps[i].by_run, "  ");
		}
		if (a->op_events) {
			int shown = 0;

			fprintf(f, "first touches per operator (op marker; -1 = before operator 0, "
				"e.g. inputs):\n  ");
			for (int32_t i = 0; i < ar->by_op.n; i++) {
				if (!ar->by_op.v[i])
					continue;
				if (shown && shown % 8 == 0)
					fprintf(f, "\n  ");
				fprintf(f, "%s#%d: %" PRIu64, shown % 8 ? ", " : "", i - 1,
					ar->by_op.v[i]);
				shown++;
			}
			fprintf(f, "\n");
		}
	}
	if (a->n_samples) {
		uint32_t step = a->n_samples > 10 ? a->n_samples / 10 : 1;

		fprintf(f, "\nmemory     VmHWM max %s, Pss_Anon max %s (cannot be reclaimed), "
			"Pss_File max %s (reclaimable)\n", B(SMAX(a, vm_hwm)),
			B(SMAX(a, pss_anon)), B(SMAX(a, pss_file)));
		fprintf(f, "%10s %12s %12s %12s %12s\n", "t (s)", "VmRSS", "VmHWM", "Pss_Anon",
			"Pss_File");
		for (uint32_t i = 0; i < a->n_samples; i += step) {
			const struct ap_rec_sample *s = &a->samples[i];

			fprintf(f, "%10.2f %12s %12s %12s %12s\n",
				(double)(s->ts_ns - a->hdr.clock_base_ns) / 1e9,
				s->vm_rss == AP_NO_VALUE ? "-" : B(s->vm_rss),
				s->vm_hwm == AP_NO_VALUE ? "-" : B(s->vm_hwm),
				s->pss_anon == AP_NO_VALUE ? "-" : B(s->pss_anon),
				s->pss_file == AP_NO_VALUE ? "-" : B(s->pss_file));
		}
	}
	for (uint32_t i = 0; i < a->n_notes; i++)
		fprintf(f, "note       %s\n", a->notes[i]);
	free(order);
}

static void json_runs(struct ap_json *j, const char *key, const struct ap_counts *c)
{
	ap_json_arr(j, key);
	for (int32_t i = 0; i < c->n; i++) {
		if (!c->v[i])
			continue;
		ap_json_obj(j, NULL);
		ap_json_i64(j, "run", i - 1);
		ap_json_u64(j, "pages", c->v[i]);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}

static void print_json(FILE *f, const char *path, const struct ap_analysis *a, bool pages)
{
	uint32_t *order = by_address(a);
	struct ap_json j;

	ap_json_init(&j, f);
	ap_json_obj(&j, NULL);
	ap_json_str(&j, "trace", path);
	ap_json_bool(&j, "complete", a->saw_end && !a->truncated);
	ap_json_bool(&j, "truncated", a->truncated);
	ap_json_i64(&j, "pid", a->hdr.pid);
	ap_json_str(&j, "command", a->strings[3]);
	ap_json_bool(&j, "attached", a->hdr.flags & AP_HDR_ATTACHED);
	ap_json_str(&j, "method", a->strings[2]);
	ap_json_str(&j, "kernel", a->strings[1]);
	ap_json_str(&j, "arch", a->strings[0]);
	ap_json_u64(&j, "page_size", a->hdr.page_size);
	ap_json_str(&j, "run_probe", a->strings[4]);
	ap_json_str(&j, "op_probe", a->strings[5]);
	ap_json_u64(&j, "dropped_events", a->drops.ringbuf_drops);
	ap_json_u64(&j, "vma_misses", a->drops.vma_misses);
	ap_json_u64(&j, "runs", a->runs_completed);
	ap_json_u64(&j, "runs_begun", a->runs_begun);
	ap_json_u64(&j, "faults_total", a->faults);
	ap_json_f64(&j, "duration_s", a->t_last > a->t_first ?
		    (double)(a->t_last - a->t_first) / 1e9 : 0);
	if (a->saw_end) {
		ap_json_obj(&j, "end");
		ap_json_str(&j, "reason", end_reason(a->end.reason));
		ap_json_i64(&j, "exit_status", a->end.exit_status);
		ap_json_i64(&j, "signal", a->end.term_signal);
		ap_json_end_obj(&j);
	}
	ap_json_arr(&j, "mappings");
	for (uint32_t k = 0; order && k < a->n_maps; k++) {
		const struct ap_amap *m = &a->maps[order[k]];

		if (!m->faults && !m->resident_at_attach)
			continue;
		ap_json_obj(&j, NULL);
		ap_json_u64(&j, "start", m->start);
		ap_json_u64(&j, "end", m->end);
		ap_json_str(&j, "kind", m->anon ? "anon" : "file");
		ap_json_str(&j, "path", m->path);
		ap_json_str(&j, "role", m->role);
		ap_json_u64(&j, "faults", m->faults);
		ap_json_u64(&j, "major_faults", m->major);
		ap_json_u64(&j, "first_touch_pages", m->first_touch_pages);
		ap_json_u64(&j, "resident_at_attach_pages", m->resident_at_attach);
		ap_json_u64(&j, "resident_bytes",
			    (m->first_touch_pages + m->resident_at_attach) * a->hdr.page_size);
		ap_json_end_obj(&j);
	}
	ap_json_end_arr(&j);
	if (a->arena >= 0) {
		const struct ap_amap *ar = &a->maps[a->arena];

		ap_json_obj(&j, "arena");
		ap_json_u64(&j, "start", ar->start);
		ap_json_u64(&j, "bytes", ar->end - ar->start);
		ap_json_u64(&j, "first_touch_pages", ar->first_touch_pages);
		ap_json_u64(&j, "resident_at_attach_pages", ar->resident_at_attach);
		ap_json_str(&j, "rule", a->arena_rule);
		ap_json_end_obj(&j);
		json_runs(&j, "first_touch_by_run", &ar->by_run);
		ap_json_arr(&j, "ops");
		for (int32_t i = 0; i < ar->by_op.n; i++) {
			if (!ar->by_op.v[i])
				continue;
			ap_json_obj(&j, NULL);
			ap_json_i64(&j, "index", i - 1);
			ap_json_u64(&j, "first_touch_pages", ar->by_op.v[i]);
			ap_json_end_obj(&j);
		}
		ap_json_end_arr(&j);
		if (pages) {
			ap_json_arr(&j, "arena_pages");
			for (uint64_t i = 0; i < a->n_touches; i++) {
				const struct ap_touch *t = &a->touches[i];

				if ((int32_t)t->map != a->arena)
					continue;
				ap_json_obj(&j, NULL);
				ap_json_u64(&j, "page", t->page);
				ap_json_i64(&j, "run", t->run);
				ap_json_i64(&j, "op", t->op);
				ap_json_end_obj(&j);
			}
			ap_json_end_arr(&j);
		}
		ap_json_arr(&j, "arena_moves");
		for (uint32_t i = 0; i < a->n_maps; i++) {
			if (!is_move(a, i))
				continue;
			ap_json_obj(&j, NULL);
			ap_json_u64(&j, "start", a->maps[i].start);
			ap_json_u64(&j, "bytes", a->maps[i].end - a->maps[i].start);
			ap_json_i64(&j, "first_run", a->maps[i].first_run);
			ap_json_u64(&j, "first_touch_pages", a->maps[i].first_touch_pages);
			json_runs(&j, "first_touch_by_run", &a->maps[i].by_run);
			ap_json_end_obj(&j);
		}
		ap_json_end_arr(&j);
	} else {
		ap_json_null(&j, "arena");
		ap_json_str(&j, "arena_rule", a->arena_rule);
	}
	ap_json_obj(&j, "samples");
	ap_json_u64(&j, "count", a->n_samples);
	ap_json_u64(&j, "vmhwm_max_bytes", SMAX(a, vm_hwm));
	ap_json_u64(&j, "vmrss_max_bytes", SMAX(a, vm_rss));
	ap_json_u64(&j, "pss_anon_max_bytes", SMAX(a, pss_anon));
	ap_json_u64(&j, "pss_file_max_bytes", SMAX(a, pss_file));
	ap_json_end_obj(&j);
	ap_json_arr(&j, "notes");
	for (uint32_t i = 0; i < a->n_notes; i++)
		ap_json_str(&j, NULL, a->notes[i]);
	ap_json_end_arr(&j);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
	free(order);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "plan-csv", required_argument, NULL, 'p' },
		{ "arena", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "pages", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ap_analysis_opts ao = { 0 };
	struct ap_analysis a;
	struct ap_tplan plan = { 0 };
	const char *plan_path = NULL;
	bool json = false, pages = false;
	char err[AP_ERR_LEN];
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:a:jPh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': plan_path = optarg; break;
		case 'a': {
			char *end;

			ao.arena_addr = strtoull(optarg, &end, 16);
			if (*end || end == optarg || !ao.arena_addr) {
				fprintf(stderr, "arenaprof report: --arena '%s' is not an address\n",
					optarg);
				return AP_EXIT_USAGE;
			}
			break;
		}
		case 'j': json = true; break;
		case 'P': pages = json = true; break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default:
			fprintf(stderr, "arenaprof report: bad option or missing value: '%s' "
				"(see 'arenaprof report --help')\n", argv[optind - 1]);
			return AP_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "arenaprof report: expected one TRACE (see 'arenaprof report "
			"--help')\n");
		return AP_EXIT_USAGE;
	}
	if (plan_path) {
		if (ap_plan_load(plan_path, &plan, err)) {
			fprintf(stderr, "arenaprof report: %s\n", err);
			return AP_EXIT_USAGE;
		}
		ao.plan = &plan;
		ao.model_path = plan_path;
	}
	rc = ap_analysis_run(argv[optind], &ao, &a, err);
	if (rc) {
		fprintf(stderr, "arenaprof report: %s\n", err);
		ap_analysis_free(&a);
		ap_tplan_free(&plan);
		return AP_EXIT_USAGE;
	}
	if (a.truncated)
		fprintf(stderr, "arenaprof report: warning: %s was cut short; reporting every "
			"whole record up to the cut\n", argv[optind]);
	if (json)
		print_json(stdout, argv[optind], &a, pages);
	else
		print_text(stdout, argv[optind], &a);
	ap_analysis_free(&a);
	ap_tplan_free(&plan);
	return fflush(stdout) ? AP_EXIT_RUNTIME : AP_EXIT_OK;
}
