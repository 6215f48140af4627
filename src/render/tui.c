// SPDX-License-Identifier: Apache-2.0
/*
 * tui: ncurses layout of the live model (tui.h). Nothing is read or computed here beyond
 * formatting and placing.
 *
 * Layout. Row 0-1 the header, the last row the footer (keys, or a message). In between
 * the panels, each a bold label in a column of its own and items after it: Memory,
 * Arena, cgroup, PSI, Faults, Allocs, then Operators (without a plan: Mappings) with the
 * rows that are left. From 150 columns with a plan the operators take a right-hand column
 * of their own and the left panels get longer sparklines and a taller residency bar.
 * Every item is a unit: when it does not fit on a row it goes to the next row of its
 * panel, and when the panel has no row left it is not drawn. The last column is never
 * written: a terminal that wraps there cannot push a line into the next one. The figures'
 * texts are tui_text.c's, the terminal tui_term.c's.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/analyze/live_models.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/render/tui.h"
#include "arenaprof/util/units.h"
#include "tui_dmabuf.h"
#include "tui_models.h"
#include "tui_pen.h"
#include "tui_xnn.h"

#define LABEL_W TUI_LABEL_W
#define GAP TUI_GAP
#define WIDE_COLS 150		/* two columns from here (with a plan) */
#define NAME_MAX_W 28		/* longest opcode column */
#define MAX_BAR_CELLS 4096


static attr_t op_color(int32_t op)
{
	if (op == AP_OWNER_INPUT)
		return tui_color(C_WHITE) | A_BOLD;
	if (op < 0)
		return tui_color(C_WHITE);
	return tui_color(C_OP0 + op % N_OP_COLORS);
}

/* ---- panels: each draws in [x0, x1) from row y, at most rows; returns rows used ---- */

static int draw_header(const struct ap_live *l, const struct ap_tui_view *v, int y, int x0,
		       int x1)
{
	uint64_t secs = (l->t_last_ns - l->t_start_ns) / 1000000000ULL;
	char cmd[1024], up[32], state[96];
	const struct ap_kernel_acct *a = &l->last.acct;
	attr_t sattr = tui_color(C_GREEN);
	struct pen p;
	int w;

	snprintf(up, sizeof(up), "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, secs / 3600,
		 secs / 60 % 60, secs % 60);
	if (l->ended && l->end_reason == AP_END_TARGET_EXIT) {
		if (l->term_signal)
			snprintf(state, sizeof(state), "EXITED (signal %d)", l->term_signal);
		else if (l->exit_status >= 0)
			snprintf(state, sizeof(state), "EXITED (status %d)", l->exit_status);
		else
			snprintf(state, sizeof(state), "EXITED");
		sattr = tui_color(C_RED) | A_REVERSE;
	} else if (l->ended) {
		snprintf(state, sizeof(state), "SESSION ENDED");
		sattr = tui_color(C_RED) | A_REVERSE;
	} else if (v->paused) {
		snprintf(state, sizeof(state), "PAUSED");
		sattr = tui_color(C_YELLOW) | A_REVERSE;
	} else if (v->replay) {
		snprintf(state, sizeof(state), "replay %gx", v->speed);
	} else {
		snprintf(state, sizeof(state), "live");
	}
	tui_pen_at(&p, y, x0, x1, 1);
	tui_item(&p, "", A_REVERSE, "arenaprof");
	tui_item(&p, "pid", 0, "%d", l->pid);
	/* the command line gets what the time and the state leave */
	w = x1 - p.x - GAP - (tui_text_w("up ") + tui_text_w(up) + GAP + tui_text_w(state) + GAP);
	tui_fit_words(l->cmdline, w, cmd, sizeof(cmd));
	if (cmd[0])
		tui_words(&p, A_NORMAL, cmd);
	tui_item(&p, "up", 0, "%s", up);
	tui_item(&p, "", sattr, "%s", state);

	tui_pen_at(&p, y + 1, x0, x1, 1);
	if (ap_live_unprivileged(l))
		tui_item(&p, "", tui_color(C_YELLOW) | A_REVERSE, "no root: /proc only");
	else
		tui_item(&p, "method", 0, "%s", l->method);
	tui_item(&p, "kernel", 0, "%s", l->kernel);
	tui_item(&p, "drops", l->drops.ringbuf_drops ? tui_color(C_RED) | A_REVERSE : 0,
	     "%" PRIu64, l->drops.ringbuf_drops);
	if (v->trace_cap)	/* the hidden trace's ring: what w would save, of how much */
		tui_item(&p, "trace", 0, "%s/%s", SIZE(v->trace_bytes), SIZE(v->trace_cap));
	else if (v->trace_bytes)
		tui_item(&p, "trace", 0, "%s", SIZE(v->trace_bytes));
	if (l->plan)
		tui_item(&p, "plan", 0, "%s", l->plan_name);
	if (a->cg_path[0]) {
		char path[256];

		tui_fit_words(a->cg_path, x1 - p.x - GAP - tui_text_w("cgroup "), path,
			      sizeof(path));
		if (path[0])
			tui_item(&p, "cgroup", 0, "%s", path);
	}
	return 2;
}

/* --budget: the verdict first, as report's first line gives it, on one row. */
static int draw_budget(const struct ap_live *l, uint64_t budget, int y, int x0, int x1)
{
	struct ap_budget_process v;
	struct ap_procmem pm;
	struct pen p;
	char a[32], b[32];

	tui_label(y, x0, "Budget");
	tui_pen_at(&p, y, x0 + LABEL_W, x1, 1);
	if (!l->have_sample) {
		tui_words(&p, A_DIM, "waiting for the first sample");
		return 1;
	}
	ap_live_budget(l, budget, &pm, &v);
	tui_item(&p, "", v.fits ? tui_color(C_GREEN) | A_BOLD : v.unknown ?
		 tui_color(C_YELLOW) | A_BOLD : tui_color(C_RED) | A_REVERSE, "%s %s",
		 SIZE(budget), v.fits ? "fits" : v.unknown ? "no verdict: no run yet" :
		 "DOES NOT FIT");
	tui_item(&p, "peak", 0, "%s", tui_size(pm.peak, a, sizeof(a)));
	tui_item(&p, "non-reclaimable", 0, "%s", tui_size(pm.nonreclaimable, b, sizeof(b)));
	if (!v.unknown)
		tui_item(&p, v.margin >= 0 ? "margin" : "over by", 0, "%s",
			 SIZE((uint64_t)(v.margin >= 0 ? v.margin : -v.margin)));
	return 1;
}

static int draw_memory(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	const struct ap_rec_sample *s = &l->last.rec, *sm = &l->smaps;
	struct pen p;

	tui_label(y, x0, "Memory");
	tui_pen_at(&p, y, x0 + LABEL_W, x1, rows);
	if (!l->have_sample) {
		tui_words(&p, A_DIM, "waiting for the first sample");
		return 1;
	}
	tui_item(&p, "VmRSS", 0, "%s", KIB(s->vm_rss));
	/* its history since attach (at most AP_LIVE_HIST samples), one column after it */
	p.x -= GAP - 1;
	if (!tui_spark_window(&p, &l->rss, l->rss_ts, x1 - x0 >= 100 ? 24 : 10,
			      tui_color(C_GREEN), tui_size))
		p.x += GAP - 1;
	tui_item(&p, "VmHWM", tui_color(C_YELLOW), "%s", KIB(s->vm_hwm));
	tui_item_r(&p, "anon", 0, KIB(s->rss_anon), "cannot be reclaimed");
	tui_item_r(&p, "file", 0, KIB(s->rss_file), "reclaimable");
	if (tui_have(s->rss_shmem) && s->rss_shmem)
		tui_item(&p, "shmem", 0, "%s", KIB(s->rss_shmem));
	if (!l->have_smaps) {
		tui_words(&p, A_DIM, "smaps_rollup not read yet");
		return tui_pen_rows(&p, y);
	}
	tui_item(&p, "Pss_Anon", 0, "%s", KIB(sm->pss_anon));
	tui_item(&p, "Pss_File", 0, "%s", KIB(sm->pss_file));
	tui_item(&p, "Pss_Shmem", 0, "%s", KIB(sm->pss_shmem));
	tui_item(&p, "Swap", tui_have(sm->swap) && sm->swap ? tui_color(C_YELLOW) : 0, "%s",
		 KIB(sm->swap));
	if (l->t_last_ns >= sm->ts_ns + 1000000000ULL) {
		char age[48];

		snprintf(age, sizeof(age), "(smaps_rollup %" PRIu64 " s ago)",
			 (uint64_t)((l->t_last_ns - sm->ts_ns) / 1000000000ULL));
		tui_words(&p, A_DIM, age);
	}
	return tui_pen_rows(&p, y);
}

static void draw_bar(const struct ap_live *l, struct pen *p, int rows)
{
	static struct ap_live_cell cells[MAX_BAR_CELLS];
	int w = p->x1 - p->x0, n;

	if (rows < 1 || w < 8)
		return;
	if ((int64_t)w * rows > MAX_BAR_CELLS)
		rows = MAX_BAR_CELLS / w;
	n = (int)ap_live_bar(l, cells, (uint32_t)(w * rows));
	for (int i = 0; i < n; i++) {
		const struct ap_live_cell *c = &cells[i];
		const char *g;
		attr_t a;

		if (!c->held) {
			g = ap_tui_has_utf8() ? "·" : ".";
			a = A_DIM;
		} else {
			g = c->held == c->pages ? (ap_tui_has_utf8() ? "█" : "#") :
			    (ap_tui_has_utf8() ? "▓" : "+");
			a = l->plan && c->owner != AP_OWNER_NONE ? op_color(c->owner) :
			    tui_color(C_GREEN);
		}
		attrset(a);
		tui_addstr(p->y + i / w, p->x0 + i % w, g);
	}
	attrset(A_NORMAL);
}

static int draw_arena(const struct ap_live *l, int y, int x0, int x1, int rows, int bar_rows)
{
	const struct ap_amap *m;
	struct pen p;
	int used;

	tui_label(y, x0, "Arena");
	tui_pen_at(&p, y, x0 + LABEL_W, x1, rows);
	if (l->id.map < 0) {
		tui_words(&p, A_DIM, "not identified yet:");
		tui_words(&p, A_DIM, l->id.why);
		return tui_pen_rows(&p, y);
	}
	m = &l->as.maps[l->id.map];
	tui_item_r(&p, "size", 0, KIB(m->end - m->start),
	       l->plan && l->id.rule != AP_AR_MAPPING ? "not the plan's size" : "");
	if (l->plan)
		tui_item(&p, "plan", 0, "%s", KIB(l->plan->arena_bytes));
	tui_item(&p, "resident", tui_color(C_GREEN), "%" PRIu64 "/%" PRIu64 " pages %.0f%%",
	     l->arena_held, l->arena_pages,
	     l->arena_pages ? 100.0 * (double)l->arena_held / (double)l->arena_pages : 0.0);
	tui_pen_newline(&p);
	if (!ap_live_unprivileged(l)) {	/* first touches are faults: not seen */
		tui_item(&p, "first touch", 0, "%s", RATE(ap_live_rate(&l->ft_rate)));
		tui_item(&p, "first-touched", 0, "%" PRIu64 " pages", l->arena_ft);
	}
	tui_item(&p, "at", 0, "0x%" PRIx64, m->start);
	used = tui_pen_rows(&p, y);
	if (bar_rows > rows - used)
		bar_rows = rows - used;
	if (bar_rows > 0) {
		tui_pen_at(&p, y + used, x0 + LABEL_W, x1, bar_rows);
		draw_bar(l, &p, bar_rows);
		used += bar_rows;
	}
	return used;
}

static void events_item(struct pen *p, const char *name, uint64_t now, uint64_t then)
{
	uint64_t d = tui_have(now) && tui_have(then) && now >= then ? now - then : 0;

	if (!tui_have(now)) {
		tui_item(p, name, 0, "-");
		return;
	}
	tui_item(p, name, d ? tui_color(C_RED) | A_REVERSE : 0, "%" PRIu64 " (+%" PRIu64 ")",
		 now, d);
}

static int draw_cgroup(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	const struct ap_kernel_acct *a = &l->last.acct, *a0 = &l->acct0;
	struct pen p;

	tui_label(y, x0, "cgroup");
	tui_pen_at(&p, y, x0 + LABEL_W, x1, rows);
	if (!l->have_sample || (!tui_have(a->cg_current) && !tui_have(a->cg_peak))) {
		tui_words(&p, A_DIM, "memory cgroup not read");
		return 1;
	}
	tui_item(&p, "current", 0, "%s", KIB(a->cg_current));
	tui_item(&p, "peak", tui_color(C_YELLOW), "%s", KIB(a->cg_peak));
	if (tui_have(a->cg_max))
		tui_item(&p, "max", 0, "%s", LIMIT(a->cg_max));
	if (tui_have(a->cg_high))
		tui_item(&p, "high", 0, "%s", LIMIT(a->cg_high));
	if (tui_have(a->cg_min))
		tui_item(&p, "min", 0, "%s", LIMIT(a->cg_min));
	if (!tui_have(a->ev_high) && !tui_have(a->ev_max) && !tui_have(a->ev_oom))
		return tui_pen_rows(&p, y);
	tui_pen_newline(&p);
	tui_words(&p, A_NORMAL, "events.local:");
	events_item(&p, "high", a->ev_high, a0->ev_high);
	events_item(&p, "max", a->ev_max, a0->ev_max);
	events_item(&p, "oom", a->ev_oom, a0->ev_oom);
	events_item(&p, "oom_kill", a->ev_oom_kill, a0->ev_oom_kill);
	return tui_pen_rows(&p, y);
}

static void psi_items(struct pen *p, const char *who, const struct ap_psi_figures *f,
		      uint64_t alarm)
{
	bool red = alarm && tui_have(f->full_avg[0]) && f->full_avg[0] > alarm;
	char some[64];

	snprintf(some, sizeof(some), "%s some", who);
	tui_item(p, some, 0, "%s %s %s", PCT(f->some_avg[0]), PCT(f->some_avg[1]),
	     PCT(f->some_avg[2]));
	tui_item(p, "full", red ? tui_color(C_RED) | A_REVERSE : 0, "%s %s %s", PCT(f->full_avg[0]),
	     PCT(f->full_avg[1]), PCT(f->full_avg[2]));
}

static int draw_psi(const struct ap_live *l, const struct ap_tui_view *v, int y, int x0,
		    int x1, int rows)
{
	const struct ap_kernel_acct *a = &l->last.acct;
	bool sys = tui_have(a->psi_sys.some_avg[0]), cg = tui_have(a->psi_cg.some_avg[0]);
	struct pen p;

	tui_label(y, x0, "Pressure");
	tui_pen_at(&p, y, x0 + LABEL_W, x1, rows);
	if (!l->have_sample || (!sys && !cg)) {
		tui_words(&p, A_DIM, "PSI not read");
		return 1;
	}
	if (sys) {
		psi_items(&p, "system", &a->psi_sys, 0);
		tui_words(&p, A_DIM, "% avg10 avg60 avg300");
	}
	if (cg) {
		if (sys)
			tui_pen_newline(&p);
		psi_items(&p, "cgroup", &a->psi_cg, v->psi_alarm);
	}
	return tui_pen_rows(&p, y);
}

/* The latency of the last runs: "7.25 ms p99 7.49 ms (256)" after "p50", "" none yet. */
static void latency_text(const struct ap_live *l, char *lat, size_t len)
{
	uint64_t p50, p99;
	uint32_t k;
	char a[24], b[24];

	lat[0] = '\0';
	if (ap_live_latency(l, &p50, &p99, &k))
		snprintf(lat, len, "%s p99 %s (%u)", tui_duration(p50, a, sizeof(a)),
			 tui_duration(p99, b, sizeof(b)), k);
}

/*
 * Faults, major faults and runs with the latency. With a row for each series, each gets a
 * row; with two rows, the faults share the first and the runs take the second; on one
 * row, the figures without sparklines. The latency is never what gives way: the runs'
 * sparkline is as long as it leaves.
 */
static int draw_faults(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	bool runs = l->run_markers || l->session->run_probe, mm = l->majmin_known;
	/* the fault series (minor and major, or all faults when the method cannot tell
	 * them: a dim "major n/a" after it) and the runs */
	int series = (mm ? 2 : 1) + (runs ? 1 : 0), avail = x1 - x0 - LABEL_W;
	const int item_w = 6 + 1 + 8;	/* "faults" and a value of 8 columns */
	const int na_w = GAP + 18;	/* "major n/a (method)" */
	/* rows: one a series, or the faults sharing one and the runs the next, or one */
	int per_row = rows >= series ? 1 : rows >= 2 && runs ? 2 : 3;
	const char *vfmt = per_row == 3 ? "%s" : "%8s";
	char lat[64];
	struct pen p;
	int n, n_runs;

	tui_label(y, x0, "Faults");
	tui_pen_at(&p, y, x0 + LABEL_W, x1, rows);
	if (ap_live_unprivileged(l)) {
		tui_words(&p, tui_color(C_YELLOW), "needs root: faults, runs and their latency");
		return tui_pen_rows(&p, y);
	}
	n = per_row == 3 ? 0 : !mm ? avail - item_w - 1 - na_w :
	    per_row == 1 ? avail - item_w - 1 : (avail - 2 * (item_w + 1) - GAP) / 2;
	if (n > AP_LIVE_HIST)
		n = AP_LIVE_HIST;
	latency_text(l, lat, sizeof(lat));
	n_runs = per_row == 3 ? 0 : avail - item_w - 1 -
		 (lat[0] ? GAP + 4 + (int)strlen(lat) : 0);
	if (n_runs > AP_LIVE_HIST)
		n_runs = AP_LIVE_HIST;
	tui_item(&p, mm ? (per_row == 3 ? "minor" : " minor") : "faults", 0, vfmt,
		 RATE(ap_live_rate(&l->minor_rate)));
	tui_spark_after(&p, &l->minor_rate, n, tui_color(C_GREEN));
	if (per_row == 1 && mm)
		tui_pen_newline(&p);
	if (mm) {
		tui_item(&p, per_row == 3 ? "major" : " major", 0, vfmt,
			 RATE(ap_live_rate(&l->major_rate)));
		tui_spark_after(&p, &l->major_rate, n, tui_color(C_RED));
	} else {
		tui_item_r(&p, "major", A_DIM, "n/a", "(method)");
	}
	if (per_row < 3)
		tui_pen_newline(&p);
	if (runs) {
		tui_item(&p, per_row == 3 ? "runs" : "  runs", 0, vfmt,
			 RATE(ap_live_rate(&l->run_rate)));
		tui_spark_after(&p, &l->run_rate, n_runs, tui_color(C_CYAN));
		if (lat[0])
			tui_item(&p, "p50", tui_color(C_YELLOW), "%s", lat);
	} else {
		tui_item_r(&p, "runs", A_DIM, "n/a", "(no run probe)");
	}
	return tui_pen_rows(&p, y);
}

/* After run 0 the probe leaves malloc: RssAnon's growth it did not see (live.h). */
static void unwatched(struct pen *p, uint64_t grown)
{
	char b[32];

	tui_item(p, "malloc unwatched after run 0: anon beyond", grown && grown != AP_NO_VALUE ?
		 tui_color(C_RED) : 0, "+%s", grown == AP_NO_VALUE ? "?" :
		 ap_fmt_bytes(grown, b, sizeof(b)));
}

/* The allocating calls holding the most, as the allocation probe sees them. */
static int draw_allocs(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	struct pen p;
	char b[32], n[32];
	int shown = 0;
	uint64_t grown = ap_live_anon_unwatched(l);

	tui_label(y, x0, "Allocs");
	tui_pen_at(&p, y, x0 + LABEL_W, x1, rows);
	if (ap_live_unprivileged(l)) {
		tui_words(&p, tui_color(C_YELLOW), "needs root: the allocation probe");
		return tui_pen_rows(&p, y);
	}
	if (!l->session->o.arena_mode) {
		tui_words(&p, A_DIM, "no allocation probe (--alloc-probe off)");
		return 1;
	}
	if (!l->alloc_events && !l->alloc_unwatched) {
		tui_words(&p, A_DIM, "no large block allocated since attach");
		return 1;
	}
	tui_item(&p, "held", tui_color(C_YELLOW), "%s", ap_fmt_bytes(l->alloc_bytes, b, sizeof(b)));
	/* the blind spot: a growth it did not see comes before the callers, else after */
	if (grown && grown != AP_NO_VALUE)
		unwatched(&p, grown);
	for (uint32_t i = 0; i < l->n_callers && shown < 3; i++) {
		const struct ap_live_caller *c = &l->callers[i];
		char name[48], hex[24];
		const char *nm = c->name;

		if (!c->bytes)
			break;
		if (!nm[0]) {
			snprintf(hex, sizeof(hex), "0x%" PRIx64, c->ip);
			nm = hex;
		}
		/* the start of a name says the most: a symbol, then its file */
		if (strlen(nm) >= sizeof(name))
			snprintf(name, sizeof(name), "%.*s...", (int)sizeof(name) - 4, nm);
		else
			snprintf(name, sizeof(name), "%s", nm);
		snprintf(n, sizeof(n), "x%" PRIu64, c->blocks);
		if (!tui_item_r(&p, name, 0, ap_fmt_bytes(c->bytes, b, sizeof(b)), n))
			break;
		shown++;
	}
	if (l->alloc_unwatched && (!grown || grown == AP_NO_VALUE))
		unwatched(&p, grown);
	return tui_pen_rows(&p, y);
}

/* Without a plan: the mappings summed per object, the most held first. */
static int draw_objects(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	struct ap_live_object o[64];
	int w = x1 - x0 - LABEL_W, name_w = w - (12 + GAP) * 3, n;
	int x = x0 + LABEL_W;

	tui_label(y, x0, "Mappings");
	if (rows < 2 || name_w < 12) {
		struct pen p;

		tui_pen_at(&p, y, x, x1, 1);
		tui_words(&p, A_DIM, "--plan MODEL.tflite lists the operators");
		return 1;
	}
	if (name_w > 60)
		name_w = 60;
	attrset(A_REVERSE);
	mvhline(y, x, ' ' | A_REVERSE, x1 - x);
	tui_addstr(y, x, name_w >= 38 ? "object (--plan MODEL lists operators)" : "object");
	tui_addstr(y, x + name_w + GAP, "        held");
	tui_addstr(y, x + name_w + 2 * GAP + 12, "      faults");
	tui_addstr(y, x + name_w + 3 * GAP + 24, "    mappings");
	attrset(A_NORMAL);
	n = (int)ap_live_objects(l, o, rows - 1 < 64 ? (uint32_t)(rows - 1) : 64);
	for (int i = 0; i < n; i++) {
		char name[64], v[3][32];
		int row = y + 1 + i;

		tui_tail_fit(o[i].name, name_w, name, sizeof(name));
		snprintf(v[0], sizeof(v[0]), "%s", KIB(o[i].held_pages * l->page_size));
		snprintf(v[1], sizeof(v[1]), "%" PRIu64, o[i].faults);
		snprintf(v[2], sizeof(v[2]), "%u", o[i].mappings);
		attrset(o[i].anon ? tui_color(C_GREEN) : A_NORMAL);
		tui_addstr(row, x, name);
		attrset(A_NORMAL);
		for (int c = 0; c < 3; c++)
			tui_addstr(row, x + name_w + (c + 1) * GAP + c * 12 + 12 -
				    tui_text_w(v[c]), v[c]);
	}
	return 1 + n;
}

/* Columns of the operators table, dropped from the right when they do not fit. */
struct col {
	const char *title;
	int w;
	enum ap_live_sort sort;		/* AP_SORT_COUNT: not sortable */
};

static int draw_ops(const struct ap_live *l, const struct ap_tui_view *v, int y, int x0,
		    int x1, int rows)
{
	struct col cols[] = {
		{ "op", 5, AP_SORT_INDEX }, { "opcode", 6, AP_SORT_COUNT },
		{ "breadth", 12, AP_SORT_BREADTH }, { "first-touch", 12, AP_SORT_FIRST_TOUCH },
		{ "resident", 12, AP_SORT_RESIDENT }, { "by-marker", 10, AP_SORT_COUNT },
	};
	int ncols = l->op_markers ? 6 : 5, x, shown, out_w, noted = 0;
	uint32_t *order;

	if (!l->plan)
		return draw_objects(l, y, x0, x1, rows);
	tui_label(y, x0, "Operators");
	if (rows < 2)
		return 1;
	if (l->id.map >= 0 && l->id.rule != AP_AR_MAPPING) {
		struct pen p;

		/* a mapping that is not the plan's size (merged with a neighbour, another
		 * block): its offsets are not the plan's, so no operator is filled from it */
		tui_pen_at(&p, y, x0 + LABEL_W, x1, 1);
		tui_words(&p, tui_color(C_YELLOW), "none filled: the arena's mapping is not "
			  "the plan's size");
		noted = 1;
		y++;
		rows--;
	}
	for (uint32_t i = 0; i < l->n_ops; i++) {
		int w = tui_text_w(ap_live_opname(l, i));

		if (w > cols[1].w)
			cols[1].w = w < NAME_MAX_W ? w : NAME_MAX_W;
	}
	/* the columns that fit, whole */
	x = x0 + LABEL_W;
	for (int i = 0; i < ncols; i++) {
		if (x + cols[i].w + (i ? GAP : 0) > x1) {
			ncols = i;
			break;
		}
		x += cols[i].w + (i ? GAP : 0);
	}
	/* the output tensor's name in the columns left, when there are enough of them */
	out_w = x1 - x - GAP;
	if (ncols < 5 || out_w < 12)
		out_w = 0;
	/* the title row: the sort column marked */
	x = x0 + LABEL_W;
	attrset(A_REVERSE);
	mvhline(y, x, ' ' | A_REVERSE, x1 - x);
	for (int i = 0; i < ncols; i++) {
		char t[40];
		bool sorted = cols[i].sort == v->sort;

		snprintf(t, sizeof(t), "%s%s", cols[i].title,
			 !sorted ? "" : v->reverse ? (ap_tui_has_utf8() ? "▲" : "^") :
			 (ap_tui_has_utf8() ? "▼" : "v"));
		if (i >= 2)
			tui_addstr(y, x + cols[i].w - tui_text_w(t), t);
		else
			tui_addstr(y, x, t);
		x += cols[i].w + GAP;
	}
	if (out_w)
		tui_addstr(y, x, out_w >= 20 ? "output (*: widest)" : "output");
	attrset(A_NORMAL);
	order = malloc((l->n_ops + 1) * sizeof(*order));
	if (!order)
		return 1;
	ap_live_op_order(l, v->sort, v->reverse, order);
	shown = 0;
	for (uint32_t k = 0; k < l->n_ops && shown < rows - 1; k++, shown++) {
		uint32_t i = order[k];
		const struct ap_live_op *o = &l->ops[i];
		const char *name = ap_live_opname(l, i);
		char val[6][48];
		int row = y + 1 + shown;

		/* the widest operator, whose live tensors set the arena's floor */
		snprintf(val[0], sizeof(val[0]), "%4u%s", i,
			 (int32_t)i == l->prof.widest_op ? "*" : "");
		snprintf(val[1], sizeof(val[1]), "%s", tui_text_w(name) <= cols[1].w ? name : "");
		snprintf(val[2], sizeof(val[2]), "%s", KIB(o->breadth));
		snprintf(val[3], sizeof(val[3]), "%" PRIu64 " pg", o->ft_plan);
		snprintf(val[4], sizeof(val[4]), "%s", KIB(o->resident_pages * l->page_size));
		snprintf(val[5], sizeof(val[5]), "%" PRIu64 " pg", o->ft_marker);
		x = x0 + LABEL_W;
		for (int c = 0; c < ncols; c++) {
			attrset(c == 0 ? op_color((int32_t)i) | A_BOLD : A_NORMAL);
			if (c >= 2)
				tui_addstr(row, x + cols[c].w - tui_text_w(val[c]), val[c]);
			else
				tui_addstr(row, x, val[c]);
			x += cols[c].w + GAP;
		}
		attrset(A_NORMAL);
		if (out_w && l->plan->ops[i].out_name && l->plan->ops[i].out_name[0]) {
			char short_name[128], cut[128];
			/* the end of a tensor's name is its layer's own part */
			tui_tail_fit(ap_corr_short_name(l->plan->ops[i].out_name, short_name,
						    sizeof(short_name)), out_w, cut, sizeof(cut));
			attrset(A_DIM);
			tui_addstr(row, x, cut);
			attrset(A_NORMAL);
		}
	}
	free(order);
	return 1 + noted + shown;
}

static void draw_help(const struct ap_tui_view *v)
{
	static const char *const replay[] = {
		"arenaprof top TRACE: keys",
		"",
		"q        quit (the terminal is restored)",
		"space    pause the replay / go on",
		"n        the next sample (and pause)",
		"+ / -    twice / half the pace",
		"s / S    next sort column / reverse the order",
		"?        this help; any key closes it",
	};
	static const char *const live[] = {
		"arenaprof top: keys",
		"",
		"q        quit (the terminal is restored)",
		"space    pause the display (sampling goes on)",
		"r        reset peaks: VmHWM (clear_refs 5) and",
		"         the cgroup's memory.peak (held fd)",
		"s / S    next sort column / reverse the order",
		"w        write a snapshot: a trace of the",
		"         session so far (report, heatmap)",
		"?        this help; any key closes it",
	};
	const char *const *lines = v->replay ? replay : live;
	int n = v->replay ? (int)(sizeof(replay) / sizeof(replay[0])) :
		(int)(sizeof(live) / sizeof(live[0])), w = 0, y0, x0;

	for (int i = 0; i < n; i++)
		if (tui_text_w(lines[i]) > w)
			w = tui_text_w(lines[i]);
	w += 4;
	if (w >= COLS - 1 || n + 2 >= LINES)
		return;
	y0 = (LINES - n - 2) / 2;
	x0 = (COLS - 1 - w) / 2;
	attrset(A_REVERSE);
	for (int i = -1; i <= n; i++) {
		mvhline(y0 + 1 + i, x0, ' ' | A_REVERSE, w);
		if (i >= 0 && i < n)
			tui_addstr(y0 + 1 + i, x0 + 2, lines[i]);
	}
	attrset(A_NORMAL);
}

#define STATUS_ROWS 6	/* a message takes at most this many rows above the footer's */

/*
 * The start of the next row of s, wrapped at a space within w columns (a word longer
 * than the row is cut); *n the bytes of this row, its trailing space dropped.
 */
static const char *wrap_row(const char *s, int w, int *n)
{
	const char *brk = NULL, *p = s;
	int cols = 0;

	while (*p && cols < w) {
		if (*p == ' ')
			brk = p;
		cols += ((unsigned char)*p & 0xc0) != 0x80;
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
	}
	if (!*p || *p == ' ' || !brk)
		brk = p;
	*n = (int)(brk - s);
	return *brk == ' ' ? brk + 1 : brk;
}

/* The footer's message whole: wrapped upwards over the last panel rows, never cut. */
static void status_lines(const struct ap_tui_view *v)
{
	attr_t a = v->status_level >= 2 ? tui_color(C_RED) | A_BOLD :
		   v->status_level == 1 ? tui_color(C_YELLOW) | A_BOLD : A_BOLD;
	const char *s = v->status, *row[STATUS_ROWS];
	int len[STATUS_ROWS], n = 0, w = COLS - 1;

	while (*s && n < STATUS_ROWS && n < LINES - 3) {
		row[n] = s;
		s = wrap_row(s, w, &len[n]);
		n++;
	}
	attrset(a);
	for (int i = 0; i < n; i++) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%.*s", len[i], row[i]);
		move(LINES - n + i, 0);
		clrtoeol();
		tui_addstr(LINES - n + i, 0, buf);
	}
	attrset(A_NORMAL);
}

static void footer(const struct ap_live *l, const struct ap_tui_view *v)
{
	static const char *const live[][2] = {
		{ "q", "quit" }, { "space", "pause" }, { "r", "reset peaks" },
		{ "s/S", "sort" }, { "w", "snapshot" }, { "?", "help" },
	};
	static const char *const replay[][2] = {
		{ "q", "quit" }, { "space", "pause" }, { "n", "step" }, { "+/-", "pace" },
		{ "s/S", "sort" }, { "?", "help" },
	};
	const char *const (*keys)[2] = v->replay ? replay : live;
	size_t n_keys = v->replay ? sizeof(replay) / sizeof(replay[0]) :
			sizeof(live) / sizeof(live[0]);
	int y = LINES - 1;
	struct pen p;

	(void)l;
	move(y, 0);
	clrtoeol();
	tui_pen_at(&p, y, 0, COLS - 1, 1);
	if (v->status[0]) {
		status_lines(v);
		return;
	}
	for (size_t i = 0; i < n_keys; i++) {
		if (!tui_pen_room(&p, tui_text_w(keys[i][0]) + 1 + tui_text_w(keys[i][1])) ||
		    p.y != y)
			break;
		tui_pen_put(&p, A_REVERSE, keys[i][0]);
		p.x++;
		tui_pen_put(&p, A_NORMAL, keys[i][1]);
	}
	tui_item(&p, "sort", 0, "%s%s", ap_live_sort_name(v->sort), v->reverse ? " reversed" : "");
}

void ap_tui_draw_footer(const struct ap_live *l, const struct ap_tui_view *v)
{
	footer(l, v);
	refresh();
}

/*
 * The left column's panels from row y, in order, each at most the rows it wants of the
 * rows left: rows are given from the top, so a short terminal drops the last panels.
 * Returns the first row left below them.
 */
static int draw_left(const struct ap_live *l, const struct ap_tui_view *v, int y, int x1,
		     int rows_left, bool tall)
{
	enum { BUDGET, MEM, DMABUF, ARENA, MODELS, XNN, CG, PSI, FAULTS, ALLOCS, N_PANELS };
	const int want[N_PANELS] = {
		[BUDGET] = v->budget ? 1 : 0, [MEM] = 3, [DMABUF] = 1, [ARENA] = tall ? 8 : 3,
		[MODELS] = (int)ap_live_models_n(l),
		[XNN] = tall ? 3 : 2, [CG] = 2, [PSI] = 2, [FAULTS] = tall ? 3 : 2,
		[ALLOCS] = tall ? 2 : 1,
	};

	for (int i = 0; i < N_PANELS && rows_left > 0; i++) {
		int r = rows_left < want[i] ? rows_left : want[i], n = 0;

		switch (i) {
		case BUDGET: n = r ? draw_budget(l, v->budget, y, 0, x1) : 0; break;
		case MEM: n = draw_memory(l, y, 0, x1, r); break;
		case DMABUF: n = tui_draw_dmabuf(l, y, 0, x1, r); break;
		case ARENA: n = draw_arena(l, y, 0, x1, r, tall ? 6 : 1); break;
		case MODELS: n = tui_draw_models(l, y, 0, x1, r); break;
		case XNN: n = tui_draw_xnn(l, y, 0, x1, r); break;
		case CG: n = draw_cgroup(l, y, 0, x1, r); break;
		case PSI: n = draw_psi(l, v, y, 0, x1, r); break;
		case FAULTS: n = draw_faults(l, y, 0, x1, r); break;
		case ALLOCS: n = draw_allocs(l, y, 0, x1, r); break;
		}
		y += n;
		rows_left -= n;
	}
	return y;
}

void ap_tui_draw(const struct ap_live *l, const struct ap_tui_view *v)
{
	int W = COLS - 1, H = LINES, y, xl1, rows_left;
	bool wide = W + 1 >= WIDE_COLS && l->plan;

	erase();
	if (H < 8 || W < 40) {
		tui_addstr(0, 0, "terminal too small");
		refresh();
		return;
	}
	draw_header(l, v, 0, 0, W);
	if (v->help) {		/* alone: nothing half-covered behind it */
		draw_help(v);
		footer(l, v);
		refresh();
		return;
	}
	y = 2;
	xl1 = wide ? W / 2 - 1 : W;
	rows_left = H - 1 - y;	/* the footer's row is the last */
	if (!wide)
		rows_left -= l->plan ? 4 : 1;	/* keep a few operators in view */
	y = draw_left(l, v, y, xl1, rows_left, wide || H >= 40);
	if (wide)
		draw_ops(l, v, 2, W / 2 + 1, W, H - 3);
	else if (H - 1 - y > 0)
		draw_ops(l, v, y, 0, W, H - 1 - y);
	footer(l, v);
	refresh();
}

