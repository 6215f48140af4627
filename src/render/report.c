// SPDX-License-Identifier: Apache-2.0
/*
 * report: the text and the JSON of `arenaprof report` (include/arenaprof/render/report.h),
 * which `export --format json` writes too: layout only, every figure comes from the
 * analysis, the correlation and the attribution.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/analyze/attrib.h"
#include "arenaprof/render/attrib_report.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/analyze/procmem.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/json.h"
#include "arenaprof/render/dmabuf_report.h"
#include "arenaprof/render/models_report.h"
#include "arenaprof/render/report.h"
#include "arenaprof/render/runtime_report.h"
#include "arenaprof/render/summary.h"
#include "arenaprof/render/xnn_report.h"
#include "arenaprof/util/units.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
/* text from the trace (paths, command line, notes), safe for a terminal */
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

static uint64_t page_of(const struct ap_analysis *a)
{
	return a->hdr.page_size;
}

/* Mapping i is where a re-plan moved the arena to (arena.h's moves), first touched. */
static bool is_move(const struct ap_analysis *a, uint32_t i)
{
	for (uint32_t k = 0; k < a->id.n_moves; k++)
		if (a->id.moves[k].map == (int32_t)i)
			return a->as.maps[i].first_touch_pages > 0;
	return false;
}

#define SMAX(a, field) AP_SAMPLE_MAX(a, field)

static void print_runs(FILE *f, const struct ap_counts *c, const char *indent)
{
	int shown = 0;

	for (uint32_t i = 0; i < c->n; i++) {
		if (shown && shown % 6 == 0)
			fprintf(f, "\n%s", indent);
		fprintf(f, "%srun %d: %" PRIu64, shown % 6 ? ", " : "", c->e[i].idx, c->e[i].v);
		shown++;
	}
	fprintf(f, shown ? "\n" : "none\n");
}

/* A mapping's place in address order: sorted as values, not through its index (a
 * sort of a million indexes reading each mapping was a tenth of a report). */
struct addr_key {
	uint64_t start, end;
	uint32_t idx;
};

static int cmp_key(const void *x, const void *y)
{
	const struct addr_key *m = x, *n = y;

	if (m->start != n->start)
		return AP_CMP(m->start, n->start);
	return m->end != n->end ? AP_CMP(m->end, n->end) : AP_CMP(m->idx, n->idx);
}

/* The mappings by start, then end, then index; NULL when out of memory. */
static uint32_t *by_address(const struct ap_analysis *a)
{
	struct addr_key *k = malloc(((size_t)a->as.n_maps + 1) * sizeof(*k));
	uint32_t *v = malloc(((size_t)a->as.n_maps + 1) * sizeof(*v));

	if (!k || !v) {
		free(k);
		free(v);
		return NULL;
	}
	for (uint32_t i = 0; i < a->as.n_maps; i++)
		k[i] = (struct addr_key){ a->as.maps[i].start, a->as.maps[i].end, i };
	ap_qsort(k, a->as.n_maps, sizeof(*k), cmp_key);
	for (uint32_t i = 0; i < a->as.n_maps; i++)
		v[i] = k[i].idx;
	free(k);
	return v;
}

static void text_groups(FILE *f, const struct ap_corr *c)
{
	uint64_t anon = 0, all = 0, arena = c->groups[AP_GROUP_ARENA].resident_bytes;

	fprintf(f, "\n%-22s %8s %10s %10s %10s\n", "memory by kind", "mappings", "faults",
		"1st-touch", "resident");
	for (int g = 0; g < AP_GROUP_COUNT; g++) {
		const struct ap_corr_group *gr = &c->groups[g];

		if (!gr->mappings)
			continue;
		fprintf(f, "  %-20s %8u %10" PRIu64 " %10" PRIu64 " %10s\n",
			g == AP_GROUP_ARENA ? "arena (the plan)" : ap_group_name(g), gr->mappings,
			gr->faults, gr->first_touch_pages, B(gr->resident_bytes));
		all += gr->resident_bytes;
		if (g == AP_GROUP_ARENA || g == AP_GROUP_HEAP || g == AP_GROUP_STACK ||
		    g == AP_GROUP_ANON)
			anon += gr->resident_bytes;
	}
	if (all)
		fprintf(f, "  the arena is %.1f %% of the anonymous memory made resident "
			"(%s of %s), %.1f %% of all\n",
			anon ? 100.0 * (double)arena / (double)anon : 0, B(arena), B(anon),
			100.0 * (double)arena / (double)all);
}

static const char *op_name(const struct ap_tplan *p, int32_t op)
{
	if (op == -1)
		return "(input)";
	if (op >= 0 && (uint32_t)op < p->n_ops)
		return p->ops[op].opname;
	return "?";
}

/* Output tensor of an operator row; the first graph input for -1. */
static const char *op_output(const struct ap_tplan *p, int32_t op)
{
	if (op >= 0 && (uint32_t)op < p->n_ops)
		return p->ops[op].out_name;
	for (uint32_t i = 0; op == -1 && i < p->n; i++)
		if (p->t[i].kind == AP_KIND_INPUT)
			return p->t[i].name;
	return "";
}

static void text_corr(FILE *f, const struct ap_report *r)
{
	const struct ap_corr *c = &r->x->c;
	const struct ap_tplan *p = &r->x->plan;
	uint64_t ps = c->page_size;
	unsigned maxd = r->max_disagree ? r->max_disagree : 20;
	uint32_t quiet = 0;
	char mk[96], cnt[24];

	fprintf(f, "\nplan       %s (%s): %s arena, %u operators: %s\n", TS(p->model), p->strategy,
		B(p->arena_bytes), p->n_ops, c->mismatch ? "DOES NOT MATCH this trace" :
		"matches this trace");
	for (uint32_t i = 0; i < c->n_reasons; i++)
		fprintf(f, "           - %s\n", c->reasons[i]);
	if (c->arena < 0)
		return;
	/* nothing to compare (an arena resident before attach): n/a, not "0 of 0" */
	if (c->have_markers && c->compared)
		fprintf(f, "agreement  plan and op-marker attribution agree on %" PRIu64 " of %"
			PRIu64 " first-touch arena pages (%.1f %%)\n", c->agree, c->compared,
			100 * ap_corr_agreement(c));
	else if (c->have_markers)
		fprintf(f, "agreement  plan and op-marker attribution: n/a (no first-touch arena "
			"page to compare)\n");
	else if (c->ft_pages)
		fprintf(f, "agreement  no op markers in this trace (record with --op-probe): plan "
			"attribution only; %" PRIu64 " of %" PRIu64
			" first touches in plan order%s\n",
			c->order_ok, c->ft_pages, c->pretouched ? "; the runtime wrote the "
			"arena whole outside its runs (a copy or a clear): their order tells "
			"nothing, the plan is checked by the arena's size and coverage alone" : "");
	else
		fprintf(f, "agreement  no op markers in this trace (record with --op-probe): plan "
			"attribution only; plan order n/a (no first-touch arena page)\n");
	if (c->unplanned_pages || c->beyond_pages)
		fprintf(f, "           %" PRIu64 " first-touch pages lie where the plan puts no "
			"tensor (%" PRIu64 " past its end)\n", c->unplanned_pages + c->beyond_pages,
			c->beyond_pages);
	/* without op markers there is no marker count, without first touches no count at
	 * all: n/a, not 0 */
	snprintf(cnt, sizeof(cnt), "%" PRIu64, c->widest_op >= 0 ?
		 c->ops[c->widest_op + 1].marker_pages : 0);
	if (c->widest_op >= 0 && !c->ft_pages)
		snprintf(mk, sizeof(mk), "n/a (no first touch: the arena was resident before "
			 "the trace began)");
	else if (c->widest_op >= 0)
		snprintf(mk, sizeof(mk), "plan %" PRIu64 ", marker %s",
			 c->ops[c->widest_op + 1].plan_pages, c->have_markers ? cnt : "n/a");
	if (c->widest_op >= 0)
		fprintf(f, "widest     #%d %s \"%s\": %s live = %.1f %% of the arena; first-touch "
			"pages: %s\n", c->widest_op,
			op_name(p, c->widest_op),
			ap_corr_short_name(op_output(p, c->widest_op), (char[64]){ 0 }, 64),
			B(c->widest_bytes),
			p->arena_bytes ? 100.0 * (double)c->widest_bytes /
					 (double)p->arena_bytes : 0, mk);
	fprintf(f, "first-touch arena pages per operator (plan: earliest planned writer of the "
		"page; marker: op probe):\n");
	fprintf(f, "  %4s  %-22s %-40s %6s %10s %6s %10s\n", "op", "opcode", "output", "plan",
		"bytes", "marker", "bytes");
	for (int32_t op = -1; op < (int32_t)p->n_ops; op++) {
		const struct ap_corr_op *o = &c->ops[op + 1];
		char sn[64];
		const char *out = ap_corr_short_name(op_output(p, op), sn, sizeof(sn));
		size_t n = strlen(out);

		if (!o->plan_pages && !o->marker_pages) {
			quiet++;
			continue;
		}
		fprintf(f, "  %4d  %-22.22s %s%-*.*s %6" PRIu64 " %10s ", op, op_name(p, op),
			n > 40 ? "..." : "", n > 40 ? 37 : 40, n > 40 ? 37 : 40,
			n > 40 ? out + n - 37 : out, o->plan_pages, B(o->plan_pages * ps));
		if (c->have_markers)
			fprintf(f, "%6" PRIu64 " %10s\n", o->marker_pages, B(o->marker_pages * ps));
		else
			fprintf(f, "%6s %10s\n", "-", "-");
	}
	if (quiet)
		fprintf(f, "  (%u operators first-touch no page: they reuse pages touched "
			"before)\n", quiet);
	if (c->marker_other_pages)
		fprintf(f, "  %" PRIu64 " first touches had no operator marker\n",
			c->marker_other_pages);
	if (!c->have_markers)
		return;
	if (!c->n_dis) {
		fprintf(f, "disagreements: none\n");
		return;
	}
	fprintf(f, "disagreements: %" PRIu64 " pages (plan attribution != op marker)%s\n",
		c->n_dis, c->n_dis > maxd ? ", the first listed" : "");
	for (uint64_t i = 0; i < c->n_dis && i < maxd; i++) {
		const struct ap_corr_disagree *d = &c->dis[i];
		char pl[64], mk[64];

		fprintf(f, "  page %5" PRIu64 " (offset %8" PRId64 ") run %-4d plan %-24s "
			"marker %-24s %s\n", d->page, (int64_t)(d->page * ps) - c->delta, d->run,
			ap_corr_op_label(p, d->plan_op, pl, sizeof(pl)),
			ap_corr_op_label(p, d->marker_op, mk, sizeof(mk)),
			d->tensor >= 0 ? ap_corr_short_name(p->t[d->tensor].name, pl, sizeof(pl)) :
			"");
	}
}

/* The first touches of the arena under each op marker, eight to a line. */
static void print_ops(FILE *f, const struct ap_counts *by_op)
{
	int shown = 0;

	fprintf(f, "  per op     (op marker; -1 = before operator 0, e.g. inputs)\n    ");
	for (uint32_t i = 0; i < by_op->n; i++) {
		if (shown && shown % 8 == 0)
			fprintf(f, "\n    ");
		fprintf(f, "%s#%d: %" PRIu64, shown % 8 ? ", " : "", by_op->e[i].idx,
			by_op->e[i].v);
		shown++;
	}
	fprintf(f, "\n");
}

/*
 * The one arena section: how it was found (arena.h), its mapping and first touches, then
 * the attribution's lines (attrib_report.h).
 */
static void text_arena(FILE *f, const struct ap_report *r)
{
	const struct ap_analysis *a = &r->x->a;
	const struct ap_arena_id *id = &a->id;
	uint64_t page = page_of(a);
	const struct ap_amap *ar;

	fprintf(f, "\narena      %s: %s\n", ap_arena_rule_key(id->rule), TS(id->why));
	if (id->map < 0) {
		if (r->attrib)
			ap_attrib_text_arena(f, r->x, r->attrib);
		return;
	}
	ar = &a->as.maps[id->map];
	fprintf(f, "  mapping    %" PRIx64 "-%" PRIx64 " (%s): %" PRIu64 " first-touch pages "
		"(%s)\n", ar->start, ar->end, B(ar->end - ar->start), ar->first_touch_pages,
		B(ar->first_touch_pages * page));
	fprintf(f, "  per run    ");
	print_runs(f, &ar->by_run, "             ");
	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		if (!is_move(a, i))
			continue;
		fprintf(f, "  moved to   0x%" PRIx64 ", %s, first touched in run %d: ",
			a->as.maps[i].start, B(a->as.maps[i].end - a->as.maps[i].start),
			a->as.maps[i].first_run);
		print_runs(f, &a->as.maps[i].by_run, "             ");
	}
	if (a->op_events)
		print_ops(f, &ar->by_op);
	if (r->attrib)
		ap_attrib_text_arena(f, r->x, r->attrib);
}

/* --mappings: every mapping the trace saw fault or hold pages, by address. */
static void text_mappings(FILE *f, const struct ap_analysis *a, const uint32_t *order)
{
	uint64_t page = page_of(a);

	fprintf(f, "\n%-29s %10s %-5s %-8s %9s %9s %10s  %s\n", "mapping", "size", "kind",
		"role", "faults", "1st-touch", "resident", "path");
	for (uint32_t k = 0; order && k < a->as.n_maps; k++) {
		const struct ap_amap *m = &a->as.maps[order[k]];
		char range[40];

		if (!m->faults && !m->resident_at_attach)
			continue;
		snprintf(range, sizeof(range), "%" PRIx64 "-%" PRIx64, m->start, m->end);
		fprintf(f, "%-29s %10s %-5s %-8s %9" PRIu64 " %9" PRIu64 " %10s  %s\n", range,
			B(m->end - m->start), m->anon ? "anon" : "file", m->role, m->faults,
			m->first_touch_pages,
			B((m->first_touch_pages + m->resident_at_attach) * page),
			TS(m->path));
		if (m->resident_at_attach)
			fprintf(f, "%29s %" PRIu64 " pages were already resident at attach\n", "",
				m->resident_at_attach);
	}
}

/* One object's rows folded: a file's mappings, one role's anonymous vmas, or small files. */
struct object {
	const char *path;	/* the analysis' string */
	size_t dir;		/* small files folded: the length of their directory; 0 not */
	const char *role;
	uint32_t maps, files;
	uint64_t bytes, faults, pages;
	bool anon;
};

#define SMALL_PAGES 2	/* a file with at most this many pages resident folds by directory */

/* The object a mapping folds into: the same file (code if any of it is), the same role. */
static bool same_object(const struct object *o, const struct ap_amap *m)
{
	return o->anon == m->anon && !strcmp(o->path, m->path) &&
	       (!m->anon || !strcmp(o->role, m->role));
}

static void add(struct object *to, const struct object *from)
{
	to->maps += from->maps;
	to->files += from->files;
	to->bytes += from->bytes;
	to->faults += from->faults;
	to->pages += from->pages;
}

static uint32_t fold(struct object *o, const struct ap_analysis *a, const uint32_t *order)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < a->as.n_maps; k++) {
		const struct ap_amap *m = &a->as.maps[order[k]];
		bool own = (int32_t)order[k] == a->id.map || !strcmp(m->role, AP_ROLE_MOVED_ARENA);
		struct object one = { .path = m->path, .role = m->role, .anon = m->anon,
				      .maps = 1, .files = 1, .bytes = m->end - m->start,
				      .faults = m->faults,
				      .pages = m->first_touch_pages + m->resident_at_attach };
		uint32_t i = 0;

		if (!m->faults && !m->resident_at_attach)
			continue;
		while (!own && i < n && !same_object(&o[i], m))
			i++;
		if (own || i == n) {
			o[i = n++] = one;
			continue;
		}
		one.files = 0;
		add(&o[i], &one);
		if (!strcmp(m->role, "code"))
			o[i].role = "code";
	}
	return n;
}

/* The directory part of a small file's path (its length with the '/'), else 0. */
static size_t small_dir(const struct object *o)
{
	const char *slash = strrchr(o->path, '/');

	return !o->anon && o->pages <= SMALL_PAGES && slash ? (size_t)(slash - o->path) + 1 : 0;
}

static bool in_dir(const struct object *o, const char *path, size_t dir)
{
	return small_dir(o) == dir && !strncmp(o->path, path, dir);
}

/* Small files of one directory, two or more, become one line ("16 files in DIR/"). */
static uint32_t fold_small(struct object *o, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		size_t dir = small_dir(&o[i]);
		uint32_t j = 0;
		bool more = false;

		while (dir && j < k && !(o[j].dir == dir && !strncmp(o[j].path, o[i].path, dir)))
			j++;
		if (dir && j < k) {
			add(&o[j], &o[i]);
			continue;
		}
		for (uint32_t x = i + 1; dir && x < n && !more; x++)
			more = in_dir(&o[x], o[i].path, dir);
		o[k] = o[i];
		o[k].dir = more ? dir : 0;
		if (more)
			o[k].role = "file";
		k++;
	}
	return k;
}

#define MINOR_MIN (64u << 10)	/* a file holding less than this is minor... */
#define MINOR_PCT 1		/* ...or less than this % of what all objects hold */

/*
 * Files that hold little (code, locale files: under MINOR_MIN or MINOR_PCT % of the
 * resident total) go into one last line: the budget is decided elsewhere. Returns the
 * objects kept; *minor gets the folded ones' sum (minor->files of them).
 */
static uint32_t fold_minor(struct object *o, uint32_t n, uint64_t page, struct object *minor)
{
	uint64_t total = 0, thr;
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		total += o[i].pages * page;
	thr = total / 100 * MINOR_PCT > MINOR_MIN ? total / 100 * MINOR_PCT : MINOR_MIN;
	memset(minor, 0, sizeof(*minor));
	for (uint32_t i = 0; i < n; i++) {
		if (!o[i].anon && strcmp(o[i].role, "weights") && o[i].pages * page < thr) {
			add(minor, &o[i]);
			continue;
		}
		o[k++] = o[i];
	}
	return k;
}

/*
 * The default: one line per object (a file, [heap]'s versions, the anonymous mappings of
 * one role, small files by directory), in order of first address; the arena and its
 * moves keep their own lines; files that hold little summed in a last line. --mappings
 * lists every vma.
 */
static void text_objects(FILE *f, const struct ap_analysis *a, const uint32_t *order)
{
	struct object *o = calloc(a->as.n_maps + 1, sizeof(*o));
	uint64_t page = page_of(a);
	struct object minor;
	uint32_t n;

	if (!o || !order) {
		free(o);
		text_mappings(f, a, order);
		return;
	}
	n = fold_minor(o, fold_small(o, fold(o, a, order)), page, &minor);
	fprintf(f, "\n%-8s %5s %10s %-5s %9s %10s  %s\n", "object", "vmas", "size", "kind",
		"faults", "resident", "path (--mappings: every vma)");
	for (uint32_t i = 0; i < n; i++) {
		char name[PATH_MAX + 32];

		if (o[i].dir)
			snprintf(name, sizeof(name), "%u files in %.*s", o[i].files,
				 (int)o[i].dir, o[i].path);
		else
			snprintf(name, sizeof(name), "%s", o[i].path[0] ? o[i].path :
				 "(anonymous)");
		fprintf(f, "%-8s %5u %10s %-5s %9" PRIu64 " %10s  %s\n", o[i].role, o[i].maps,
			B(o[i].bytes), o[i].anon ? "anon" : "file", o[i].faults,
			B(o[i].pages * page), TS(name));
	}
	if (minor.files)
		fprintf(f, "%-8s %5u %10s %-5s %9" PRIu64 " %10s  %u more files, each holding "
			"little (--mappings lists them)\n", "files", minor.maps, B(minor.bytes),
			"file", minor.faults, B(minor.pages * page), minor.files);
	free(o);
}

void ap_report_text(FILE *f, const struct ap_report *r)
{
	const char *path = r->path;
	const struct ap_analysis *a = &r->x->a;
	uint32_t *order = by_address(a);
	double secs = a->t_last > a->t_first ? (double)(a->t_last - a->t_first) / 1e9 : 0;
	uint64_t page = page_of(a);
	char probe[1024];
	const char *run_probe = ap_summary_run_probe(a, probe, sizeof(probe));
	uint32_t setup = 0;

	ap_summary_text(f, r);
	fprintf(f, "trace      %s (%s)\n", path, a->truncated ?
		"cut short: read up to its last whole record" : a->saw_end ? "complete" :
		"no end record: the recorder did not finish");
	if (a->salvaged_bytes)
		fprintf(f, "salvaged:  %" PRIu64 " bytes skipped (about %" PRIu64 " records) "
			"that failed their check: every count below misses them\n",
			a->salvaged_bytes, a->salvaged_records);
	fprintf(f, "target     pid %d: %s (%s)\n", a->hdr.pid, TS(a->strings[AP_HS_CMDLINE]),
		a->hdr.flags & AP_HDR_ATTACHED ? "attached with -p" : "started by arenaprof");
	fprintf(f, "method     %s; kernel %s, %s, page %" PRIu64 " bytes\n",
		a->strings[AP_HS_METHOD], a->strings[AP_HS_KERNEL], a->strings[AP_HS_ARCH], page);
	fprintf(f, "runs       %" PRIu64 " completed (%" PRIu64 " begun) in %.2f s%s%s%s\n",
		a->runs_completed, a->runs_begun, secs, run_probe[0] ? "; run probe " : "",
		TS(run_probe), run_probe[0] ? "" : "; no run probe");
	ap_runtime_report_text(f, r->x);
	fprintf(f, "faults     %" PRIu64 " (%" PRIu64 " with vma unknown)\n", a->faults,
		a->as.faults_vma_unknown);
	fprintf(f, "dropped    %" PRIu64 " events%s\n", a->drops.ringbuf_drops,
		a->drops.ringbuf_drops ? ": the ring buffer overflowed, record again with a "
		"larger --ring-size" : "");
	if (a->saw_end)
		fprintf(f, "ended      %s%s", ap_trace_end_reason(a->end.reason),
			a->end.reason == AP_END_TARGET_EXIT ? "" : "\n");
	if (a->saw_end && a->end.reason == AP_END_TARGET_EXIT) {
		if (a->end.term_signal)
			fprintf(f, " (killed by signal %d)\n", a->end.term_signal);
		else if (a->end.exit_status >= 0)
			fprintf(f, " (status %d)\n", a->end.exit_status);
		else	/* -p: its parent reaped it, the status went with it */
			fprintf(f, " (status unknown%s)\n", a->hdr.flags & AP_HDR_ATTACHED ?
				": not our child" : "");
	}

	if (r->all_mappings)
		text_mappings(f, a, order);
	else
		text_objects(f, a, order);

	text_arena(f, r);
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
	ap_dmabuf_report_text(f, a);
	text_groups(f, &r->x->c);
	ap_xnn_report_text(f, r->x);
	if (r->x->have_plan)
		text_corr(f, r);
	ap_models_text(f, r->x);
	/* record printed its set-up lines as it attached: counted here, listed in JSON */
	for (uint32_t i = 0; i < a->n_notes; i++)
		if (a->note_setup[i])
			setup++;
		else
			fprintf(f, "note       %s\n", TS(a->notes[i]));
	if (setup)
		fprintf(f, "note       and %u set-up lines of record (the probes it attached): "
			"report --json \"notes\" lists them\n", setup);
	free(order);
}

/* The cgroup v2 memory.peak's largest sample, null without one (procmem.h: a v1 peak is
 * a shared hierarchy's, not the process's). */
static void json_cg_peak(struct ap_json *j, const struct ap_corr_all *x)
{
	struct ap_procmem m;

	ap_procmem_of(x, &m);
	if (m.have_cg_peak)
		ap_json_u64(j, "memory_peak_max_bytes", m.cg_peak_max);
	else
		ap_json_null(j, "memory_peak_max_bytes");
}

static void json_runs(struct ap_json *j, const char *key, const struct ap_counts *c)
{
	ap_json_arr(j, key);
	for (uint32_t i = 0; i < c->n; i++) {
		ap_json_obj(j, NULL);
		ap_json_i64(j, "run", c->e[i].idx);
		ap_json_u64(j, "pages", c->e[i].v);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}

static void json_groups(struct ap_json *j, const struct ap_corr *c)
{
	uint64_t anon = 0, all = 0;

	ap_json_arr(j, "groups");
	for (int g = 0; g < AP_GROUP_COUNT; g++) {
		const struct ap_corr_group *gr = &c->groups[g];

		ap_json_obj(j, NULL);
		ap_json_str(j, "name", ap_group_name(g));
		ap_json_u64(j, "mappings", gr->mappings);
		ap_json_u64(j, "faults", gr->faults);
		ap_json_u64(j, "first_touch_pages", gr->first_touch_pages);
		ap_json_u64(j, "resident_bytes", gr->resident_bytes);
		ap_json_end_obj(j);
		all += gr->resident_bytes;
		if (g == AP_GROUP_ARENA || g == AP_GROUP_HEAP || g == AP_GROUP_STACK ||
		    g == AP_GROUP_ANON)
			anon += gr->resident_bytes;
	}
	ap_json_end_arr(j);
	ap_json_obj(j, "plan_share");
	ap_json_u64(j, "arena_resident_bytes", c->groups[AP_GROUP_ARENA].resident_bytes);
	ap_json_u64(j, "anon_resident_bytes", anon);
	ap_json_u64(j, "all_resident_bytes", all);
	ap_json_end_obj(j);
}

static void json_op(struct ap_json *j, const struct ap_tplan *p, const struct ap_corr *c,
		    int32_t op)
{
	uint64_t ps = c->page_size;

	ap_json_i64(j, "index", op);
	ap_json_str(j, "opcode", op_name(p, op));
	ap_json_str(j, "output", op_output(p, op));
	ap_json_u64(j, "plan_pages", c->ops[op + 1].plan_pages);
	ap_json_u64(j, "plan_bytes", c->ops[op + 1].plan_pages * ps);
	ap_json_u64(j, "marker_pages", c->ops[op + 1].marker_pages);
	ap_json_u64(j, "marker_bytes", c->ops[op + 1].marker_pages * ps);
}

static void json_corr(struct ap_json *j, const struct ap_corr_all *x)
{
	const struct ap_corr *c = &x->c;
	const struct ap_tplan *p = &x->plan;

	ap_json_obj(j, "correlation");
	ap_json_obj(j, "plan");
	ap_json_str(j, "model", p->model);
	ap_json_str(j, "strategy", p->strategy);
	ap_json_u64(j, "arena_bytes", p->arena_bytes);
	ap_json_u64(j, "operators", p->n_ops);
	ap_json_str(j, "delegate", ap_delegate_name(x->delegate));
	ap_json_str(j, "delegate_chosen", x->delegate_auto ? "auto" : "given");
	ap_json_bool(j, "compiled_model", x->compiled);	/* inputs and outputs bound */
	ap_json_bool(j, "no_arena", x->no_arena);
	ap_json_arr(j, "bound_tensors");	/* CompiledModel's TensorBuffers' */
	for (uint32_t i = 0; x->compiled && i < p->n; i++) {
		if (p->t[i].kind != AP_KIND_PARENT)
			continue;
		ap_json_obj(j, NULL);
		ap_json_i64(j, "index", p->t[i].index);
		ap_json_u64(j, "bytes", p->t[i].bytes);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_end_obj(j);
	ap_json_obj(j, "tensor_buffers");	/* CreateManagedOnHostMemory's, in the trace */
	ap_json_u64(j, "blocks", x->tb_blocks);
	ap_json_u64(j, "bytes", x->tb_bytes);
	ap_json_u64(j, "unbound", x->tb_unbound);
	ap_json_end_obj(j);
	ap_json_bool(j, "plan_matches", !c->mismatch);
	ap_json_arr(j, "mismatch_reasons");
	for (uint32_t i = 0; i < c->n_reasons; i++)
		ap_json_str(j, NULL, c->reasons[i]);
	ap_json_end_arr(j);
	ap_json_bool(j, "markers", c->have_markers);
	if (c->arena >= 0) {
		ap_json_u64(j, "arena_base", c->base);
		ap_json_i64(j, "arena_base_delta", c->delta);
	}
	ap_json_u64(j, "first_touch_pages", c->ft_pages);
	ap_json_u64(j, "compared_pages", c->compared);
	ap_json_u64(j, "agree_pages", c->agree);
	if (c->compared)
		ap_json_f64(j, "agreement", ap_corr_agreement(c));
	else
		ap_json_null(j, "agreement");
	ap_json_u64(j, "plan_order_pages", c->order_ok);
	ap_json_u64(j, "outside_runs_pages", c->outside_runs);
	ap_json_bool(j, "pretouched", c->pretouched);
	ap_json_u64(j, "unplanned_pages", c->unplanned_pages);
	ap_json_u64(j, "beyond_plan_pages", c->beyond_pages);
	ap_json_u64(j, "marker_other_pages", c->marker_other_pages);
	if (c->widest_op >= 0) {
		ap_json_obj(j, "widest");
		json_op(j, p, c, c->widest_op);
		ap_json_u64(j, "breadth_bytes", c->widest_bytes);
		ap_json_f64(j, "share_of_arena", p->arena_bytes ?
			    (double)c->widest_bytes / (double)p->arena_bytes : 0);
		ap_json_end_obj(j);
	} else {
		ap_json_null(j, "widest");
	}
	ap_json_arr(j, "ops");
	for (int32_t op = -1; op < (int32_t)p->n_ops; op++) {
		ap_json_obj(j, NULL);
		json_op(j, p, c, op);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_arr(j, "disagreements");
	for (uint64_t i = 0; i < c->n_dis; i++) {
		const struct ap_corr_disagree *d = &c->dis[i];

		ap_json_obj(j, NULL);
		ap_json_u64(j, "page", d->page);
		ap_json_i64(j, "offset", (int64_t)(d->page * c->page_size) - c->delta);
		ap_json_i64(j, "run", d->run);
		if (d->plan_op == AP_OP_NONE)
			ap_json_null(j, "plan_op");
		else
			ap_json_i64(j, "plan_op", d->plan_op);
		ap_json_i64(j, "marker_op", d->marker_op);
		ap_json_str(j, "tensor", d->tensor >= 0 ? p->t[d->tensor].name : "");
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_end_obj(j);
}

void ap_report_json(FILE *f, const struct ap_report *r)
{
	const char *path = r->path;
	const struct ap_analysis *a = &r->x->a;
	bool pages = r->pages;
	uint32_t *order = by_address(a);
	struct ap_json j;

	ap_json_init(&j, f);
	ap_json_obj(&j, NULL);
	ap_json_u64(&j, "schema_version", AP_REPORT_SCHEMA);
	ap_summary_json(&j, r);
	ap_summary_budget_json(&j, r);
	ap_json_str(&j, "trace", path);
	ap_json_bool(&j, "complete", a->saw_end && !a->truncated && !a->salvaged_bytes);
	ap_json_bool(&j, "truncated", a->truncated);
	ap_json_u64(&j, "salvaged_bytes", a->salvaged_bytes);
	ap_json_u64(&j, "salvaged_records", a->salvaged_records);
	ap_json_i64(&j, "pid", a->hdr.pid);
	ap_json_str(&j, "command", a->strings[AP_HS_CMDLINE]);
	ap_json_bool(&j, "attached", a->hdr.flags & AP_HDR_ATTACHED);
	ap_json_str(&j, "method", a->strings[AP_HS_METHOD]);
	ap_json_str(&j, "kernel", a->strings[AP_HS_KERNEL]);
	ap_json_str(&j, "arch", a->strings[AP_HS_ARCH]);
	ap_json_u64(&j, "page_size", a->hdr.page_size);
	ap_json_str(&j, "run_probe", a->strings[AP_HS_RUN_PROBE]);
	ap_json_str(&j, "op_probe", a->strings[AP_HS_OP_PROBE]);
	ap_runtime_report_json(&j, r->x);
	ap_json_u64(&j, "dropped_events", a->drops.ringbuf_drops);
	ap_json_u64(&j, "vma_misses", a->drops.vma_misses);
	ap_json_u64(&j, "runs", a->runs_completed);
	ap_json_u64(&j, "runs_begun", a->runs_begun);
	ap_json_u64(&j, "faults_total", a->faults);
	ap_models_json(&j, r->x);
	ap_dmabuf_report_json(&j, a);
	ap_json_f64(&j, "duration_s", a->t_last > a->t_first ?
		    (double)(a->t_last - a->t_first) / 1e9 : 0);
	if (a->saw_end) {
		ap_json_obj(&j, "end");
		ap_json_str(&j, "reason", ap_trace_end_reason(a->end.reason));
		if (a->end.exit_status >= 0)
			ap_json_i64(&j, "exit_status", a->end.exit_status);
		else
			ap_json_null(&j, "exit_status");	/* unknown, or a signal */
		ap_json_i64(&j, "signal", a->end.term_signal);
		ap_json_end_obj(&j);
	}
	ap_json_arr(&j, "mappings");
	for (uint32_t k = 0; order && k < a->as.n_maps; k++) {
		const struct ap_amap *m = &a->as.maps[order[k]];

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
	if (a->id.map >= 0) {
		const struct ap_amap *ar = &a->as.maps[a->id.map];

		ap_json_obj(&j, "arena");
		ap_json_u64(&j, "start", ar->start);
		ap_json_u64(&j, "bytes", ar->end - ar->start);
		ap_json_u64(&j, "first_touch_pages", ar->first_touch_pages);
		ap_json_u64(&j, "resident_at_attach_pages", ar->resident_at_attach);
		ap_json_str(&j, "rule", ap_arena_rule_key(a->id.rule));
		ap_json_str(&j, "rule_text", a->id.why);
		ap_json_u64(&j, "base", a->id.base);
		ap_json_end_obj(&j);
		json_runs(&j, "first_touch_by_run", &ar->by_run);
		ap_json_arr(&j, "ops");
		for (uint32_t i = 0; i < ar->by_op.n; i++) {
			ap_json_obj(&j, NULL);
			ap_json_i64(&j, "index", ar->by_op.e[i].idx);
			ap_json_u64(&j, "first_touch_pages", ar->by_op.e[i].v);
			ap_json_end_obj(&j);
		}
		ap_json_end_arr(&j);
		if (pages) {
			ap_json_arr(&j, "arena_pages");
			for (uint64_t i = 0; i < a->as.n_touches; i++) {
				const struct ap_touch *t = &a->as.touches[i];

				if ((int32_t)t->map != a->id.map)
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
		for (uint32_t i = 0; i < a->as.n_maps; i++) {
			if (!is_move(a, i))
				continue;
			ap_json_obj(&j, NULL);
			ap_json_u64(&j, "start", a->as.maps[i].start);
			ap_json_u64(&j, "bytes", a->as.maps[i].end - a->as.maps[i].start);
			ap_json_i64(&j, "first_run", a->as.maps[i].first_run);
			ap_json_u64(&j, "first_touch_pages", a->as.maps[i].first_touch_pages);
			json_runs(&j, "first_touch_by_run", &a->as.maps[i].by_run);
			ap_json_end_obj(&j);
		}
		ap_json_end_arr(&j);
	} else {
		ap_json_null(&j, "arena");
		ap_json_str(&j, "arena_rule", a->id.why);
	}
	ap_json_obj(&j, "samples");
	ap_json_u64(&j, "count", a->n_samples);
	ap_json_u64(&j, "vmhwm_max_bytes", SMAX(a, vm_hwm));
	ap_json_u64(&j, "vmrss_max_bytes", SMAX(a, vm_rss));
	ap_json_u64(&j, "pss_anon_max_bytes", SMAX(a, pss_anon));
	ap_json_u64(&j, "pss_file_max_bytes", SMAX(a, pss_file));
	ap_json_u64(&j, "pss_shmem_max_bytes", SMAX(a, pss_shmem));
	ap_json_u64(&j, "rss_anon_max_bytes", SMAX(a, rss_anon));
	ap_json_u64(&j, "rss_shmem_max_bytes", SMAX(a, rss_shmem));
	json_cg_peak(&j, r->x);
	ap_json_end_obj(&j);
	ap_json_arr(&j, "notes");
	for (uint32_t i = 0; i < a->n_notes; i++)
		ap_json_str(&j, NULL, a->notes[i]);
	ap_json_end_arr(&j);
	json_groups(&j, &r->x->c);
	ap_xnn_report_json(&j, r->x);
	if (r->x->have_plan)
		json_corr(&j, r->x);
	if (r->attrib)
		ap_attrib_json(&j, r->x, r->attrib);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
	free(order);
}
