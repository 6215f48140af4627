/* SPDX-License-Identifier: Apache-2.0 */
/*
 * live: the live model of a session, what the TUI's panels show. It is a session sink
 * (session.h): it aggregates the events and samples as they come into the latest
 * figures, rates per sample interval, the mappings, the arena (arena.h's rule, checked at
 * every sample) and its pages, and with a plan the operators' breadth, first touches (by
 * plan and by op marker) and resident pages. The mappings and their pages are the
 * address-space model report's analysis keeps too (aspace.h), fed here by the session.
 * The TUI reads it and lays it out; nothing here draws.
 */
#ifndef ARENAPROF_LIVE_H
#define ARENAPROF_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/arena.h"
#include "arenaprof/analyze/aspace.h"
#include "arenaprof/analyze/procmem.h"
#include "arenaprof/plan/budget.h"
#include "arenaprof/analyze/xnn_blocks.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/record/session.h"

#define AP_LIVE_HIST 256	/* rate points kept (one per sample) */
#define AP_LIVE_LAT 256		/* run latencies kept: the last this many runs */
#define AP_LIVE_NAMED 5		/* allocating calls named (the largest) */
#define AP_LIVE_BLOCKS 65536	/* probed blocks followed to their free, at most */

/* A rate series: per-second values, one point per sample, the newest at n - 1. */
struct ap_live_hist {
	float v[AP_LIVE_HIST];
	uint64_t n;		/* points pushed so far (the last AP_LIVE_HIST are kept) */
};

/* The last runs' durations (run probe entry to return, same thread), in ns. */
struct ap_live_lat {
	uint64_t ns[AP_LIVE_LAT];
	uint64_t n;		/* runs timed so far (the last AP_LIVE_LAT are kept) */
	uint64_t sum_ns;	/* of all n: a summary's _sum (openmetrics.c) */
};

/* A call site of the C library's allocator, as the allocation probe sees it. */
struct ap_live_caller {
	uint64_t ip;		/* return address into the caller */
	uint64_t bytes;		/* requested bytes of its blocks not freed */
	uint64_t blocks;	/* its blocks not freed */
	char name[160];		/* "symbol (file)", "file+0x..", "0x..": "" not named yet */
};

/* A block of the C library's that may be the TFLite arena (allocs.h's rules). */
struct ap_live_arblock {
	uint64_t ptr;		/* 0: none */
	uint64_t size, align, ip;
	uint32_t fn;		/* enum ap_alloc_fn */
};

/*
 * XNNPACK's allocator as the allocation probe sees it live (live_xnn.c): the blocks held
 * now, each classed as report classes a trace's (xnn_blocks.h: by the symbol of the
 * function that called the allocator, and of its caller), and the TFLite arena's block
 * beside them, found among the C library's blocks by report's rules (allocs.h). Blocks
 * allocated before attach are not seen.
 */
struct ap_live_xnn {
	uint64_t events;		/* XNNPACK allocations seen */
	uint64_t blocks, bytes;		/* held now */
	uint64_t cls[AP_XNN_N_CLASSES];	/* held now, by class */
	uint64_t unclassed;		/* held by call sites not named yet */
	/* the TFLite arena: rule 1 (the plan's size) when a block has it, else rule 2 (the
	 * runtime's first aligned_alloc(64), or the larger one a re-plan made there) */
	struct ap_live_arblock by_size, by_call;
	/* the default path's plan (top --plan MODEL): by class, and its TFLite arena */
	bool planned;
	uint64_t plan_cls[AP_XNN_N_CLASSES];
	uint64_t plan_arena;
	struct ap_live_xsites *sites;	/* live_xnn.c's */
};

/* The mappings of one object (a file, [heap], [stack], anonymous memory), summed. */
struct ap_live_object {
	const char *name;	/* the path, or "[anon]" for unnamed anonymous mappings */
	bool anon;
	uint64_t held_pages;	/* first touched while traced, or resident at attach */
	uint64_t faults;
	uint32_t mappings;
};

/* What the live model keeps of a mapping beside the address-space model's (aspace.h). */
struct ap_live_mapx {
	uint32_t object;		/* its object (live_objects.c) */
	bool changed;			/* since the last sample: the mapping rule looks */
};

/* An operator of the plan, by execution index. Page counts are of the arena. */
struct ap_live_op {
	uint64_t breadth;	/* plan: arena bytes live while it runs */
	uint64_t owned_pages;	/* pages the plan has it write first */
	uint64_t ft_plan;	/* of those, first touched while traced */
	uint64_t ft_marker;	/* arena pages first touched under its op marker */
	uint64_t resident_pages;	/* of its owned pages, held now (touched or at attach) */
};

enum ap_live_sort {
	AP_SORT_INDEX, AP_SORT_BREADTH, AP_SORT_FIRST_TOUCH, AP_SORT_RESIDENT, AP_SORT_COUNT
};

/* One cell of the arena's residency bar. */
struct ap_live_cell {
	uint32_t pages, held;	/* pages in the cell, of which touched or resident at attach */
	int32_t owner;		/* plan: the op owning most held pages (AP_OWNER_INPUT,
				 * AP_OWNER_NONE), else AP_OWNER_NONE */
};

/*
 * The target's dma-bufs, live (live_dmabuf.c): the polls' held bytes and the events'
 * exported-and-not-freed bytes, with their peaks; no buffer is kept, so a long session
 * costs nothing more.
 */
struct ap_live_dmabuf {
	bool seen;			/* a poll held one, or an export was seen */
	uint64_t held, held_peak;	/* the latest poll's bytes, their peak */
	uint32_t held_n;		/* buffers in the latest poll */
	uint32_t source;		/* enum ap_dmabuf_source of the latest poll with buffers */
	uint32_t events;		/* AP_DMABUF_EVENTS_*: how exports are traced */
	uint64_t live, live_peak;	/* the events': exported, not released */
	uint32_t live_n;
	uint64_t peak_ns;		/* when the device peak was first reached */
};

struct ap_live {
	const struct ap_session *session;	/* read-only: its probes and state */
	/* the target */
	int pid;
	char cmdline[1024];
	const char *method;		/* "tp", "fentry", "perf" */
	char kernel[65];
	bool attached;
	uint32_t page_size;
	uint64_t t_start_ns;		/* CLOCK_MONOTONIC */
	uint64_t t_last_ns;		/* of the latest sample */
	uint64_t t_start_real_ns;	/* CLOCK_REALTIME at t_start_ns */
	/* the plan, when given */
	const struct ap_tplan *plan;
	const char *plan_name;		/* model file name without its directory */
	struct ap_profile prof;
	struct ap_live_op *ops;		/* plan->n_ops */
	uint32_t n_ops;
	/* latest figures */
	bool have_sample;
	struct ap_session_sample last;
	bool have_smaps;
	struct ap_rec_sample smaps;	/* the latest sample that read smaps_rollup */
	bool have_acct0;
	struct ap_kernel_acct acct0;	/* the first sample's: events since start */
	struct ap_procmem pm;		/* the samples' maxima, as report keeps a trace's */
	struct ap_rec_drops drops;
	/* counts */
	uint64_t faults, major;
	bool majmin_known;		/* the method tells major from minor */
	uint64_t runs_begun, runs_completed;
	bool run_markers, op_markers;	/* seen at least once */
	/* rates, one point per sample: minor (all faults when !majmin_known), major,
	 * completed runs, arena pages first touched */
	struct ap_live_hist minor_rate, major_rate, run_rate, ft_rate;
	struct ap_live_hist rss;	/* VmRSS bytes at each sample */
	uint64_t rss_ts[AP_LIVE_HIST];	/* and its time (CLOCK_MONOTONIC ns), as rss.v */
	struct ap_live_lat lat;
	/* the allocation probe: call sites by bytes not freed, largest first (re-sorted at
	 * every sample; the first AP_LIVE_NAMED named then) */
	struct ap_live_caller *callers;
	uint32_t n_callers, cap_callers;
	uint64_t alloc_bytes;		/* requested bytes of probed blocks not freed */
	uint64_t alloc_events;
	uint64_t blocks_untracked;	/* past AP_LIVE_BLOCKS: their frees are not matched */
	/*
	 * The probe's blind spot: after the first run it leaves malloc, calloc, realloc and
	 * free (alloc_probe.c: their traps cost too much), so a leak after it is not among
	 * the callers; what it leaves unseen is the growth of RssAnon from the first sample
	 * after that run (anon_unwatched_base) on, less what the probe still saw while its
	 * links were being detached (alloc_bytes' growth from alloc_unwatched_base).
	 */
	bool alloc_unwatched;
	uint64_t anon_unwatched_base;	/* AP_NO_VALUE until that sample */
	uint64_t alloc_unwatched_base;
	struct ap_live_blocks *blocks;	/* live_allocs.c's: the blocks not freed */
	struct ap_live_xnn xnn;		/* XNNPACK's blocks, apart from the callers' */
	struct ap_live_dmabuf dmabuf;	/* the accelerator half */
	struct ap_live_objects *objects;	/* live_objects.c's: the mappings by name */
	struct ap_live_bar_cells *bar;	/* live_bar.c's: the residency bar, counted */
	struct ap_live_models *models;	/* live_models.c's: several models' arenas and runs
					 * (top --plan A --plan B), NULL */
	/* the mappings, their pages and first touches (aspace.h), and what the TUI adds */
	struct ap_aspace as;
	struct ap_live_mapx *mx;	/* as.n_maps of them */
	uint32_t cap_mx;
	/* the arena */
	struct ap_arena_id id;		/* the arena (arena.h's mapping rule); id.map: its
					 * index in maps, -1 none yet */
	uint64_t arena_pages;		/* of the mapping */
	uint64_t arena_held;		/* touched while traced or resident at attach */
	uint64_t arena_ft;		/* first touched while traced */
	uint64_t arena_owned_pages;	/* plan: pages some writer owns */
	/* the latest note */
	char note[512];
	uint32_t note_level;
	uint64_t notes;
	/* the session's end */
	bool ended;
	uint32_t end_reason;
	int exit_status, term_signal;
	uint64_t generation;		/* bumped on every sample: time to redraw */
	struct ap_session_sink sink;	/* feeds this model; chain more with next */
	void *priv;
};

/*
 * Binds a model to a started session (before ap_session_release) and, with plan (may be
 * NULL; kept, not copied), computes the breadth profile and the page owners. 0 or -ENOMEM
 * with err.
 */
int ap_live_init(struct ap_live *l, const struct ap_session *s, const struct ap_tplan *plan,
		 const char *plan_path, char *err);
/* The same for a target of another page size (a trace's: live_replay.c). */
int ap_live_init_pages(struct ap_live *l, const struct ap_session *s,
		       const struct ap_tplan *plan, const char *plan_path, uint32_t page_size,
		       char *err);
/* The session ended (or the target exited): keep the last figures, say why. */
void ap_live_set_end(struct ap_live *l, const struct ap_session *s);
/*
 * The session reads /proc, cgroup and PSI only (top without the privilege to load BPF):
 * no fault, run or allocation is seen, the panels of those say they need root.
 */
bool ap_live_unprivileged(const struct ap_live *l);
/* RssAnon's growth since the allocation probe left malloc, beyond what the probe saw
 * since (AP_NO_VALUE before). */
uint64_t ap_live_anon_unwatched(const struct ap_live *l);
#define AP_LIVE_NEEDS_ROOT "faults, runs and latency, allocs need root (or CAP_BPF and " \
	"CAP_PERFMON)"
/*
 * The process so far against a budget, as report --budget judges a trace (procmem.h's
 * peak and non-reclaimable part from the samples' maxima, budget.h's verdict; with a
 * run probe and no run completed yet, NO_RUN). pm gets the figures judged.
 */
void ap_live_budget(const struct ap_live *l, uint64_t budget, struct ap_procmem *pm,
		    struct ap_budget_process *v);
/* The latest rate of a series (0 before two samples). */
double ap_live_rate(const struct ap_live_hist *h);
/* Operator indices sorted by a column (ties: execution order), reversed if asked. */
void ap_live_op_order(const struct ap_live *l, enum ap_live_sort by, bool reverse,
		      uint32_t *order);
const char *ap_live_sort_name(enum ap_live_sort by);
/* The arena's residency in n cells; 0 when there is no arena (or it is too large). */
uint32_t ap_live_bar(const struct ap_live *l, struct ap_live_cell *cells, uint32_t n);
/*
 * The median and 99th percentile of the last runs' durations (util/stats.h, as report
 * gives them), and how many runs they cover. false before a run was timed.
 */
bool ap_live_latency(const struct ap_live *l, uint64_t *p50, uint64_t *p99, uint32_t *n);
/*
 * The mappings summed per object, most held pages first (ties: most faults, then name),
 * at most max into out (names point into the model: valid until the next event). Returns
 * the count. O(objects x max): a frame does not walk every mapping.
 */
uint32_t ap_live_objects(const struct ap_live *l, struct ap_live_object *out, uint32_t max);
/* The plan's opcode of an operator, "" without a plan */
const char *ap_live_opname(const struct ap_live *l, uint32_t op);
void ap_live_free(struct ap_live *l);

/* live_allocs.c, for live.c: an AP_EV_ALLOC event (0, or -ENOMEM), a sample (the
 * callers sorted, those holding nothing dropped; live.c names the first), the end. */
int ap_live_alloc_event(struct ap_live *l, const struct ap_event *ev);
void ap_live_alloc_sample(struct ap_live *l);
void ap_live_alloc_free(struct ap_live *l);

/*
 * The TFLite arena's block beside XNNPACK's as allocs.h's rules find it among the C
 * library's blocks held: the bytes it holds from its base (rule 1: the plan's arena), and
 * the rule (enum ap_arid_rule: AP_ARID_NONE when no block qualifies).
 */
uint64_t ap_live_xnn_arena(const struct ap_live *l, uint32_t *rule);
/* XNNPACK is in the target: its allocator is probed, or a block of it was seen. */
bool ap_live_xnn_seen(const struct ap_live *l);
/* The default path's plan: XNNPACK's totals by class, and the TFLite arena it leaves. */
void ap_live_xnn_plan(struct ap_live *l, const uint64_t planned[AP_XNN_N_CLASSES],
		      uint64_t tflite_arena);
/*
 * The history window of a series with times (rss, rss_ts) for a sparkline of at most
 * cells cells: each cell the largest of k consecutive samples (k a power of two, the
 * cells aligned on multiples of k, the last one filling), as many as the samples kept
 * make; their values into v (cells of them, oldest first), how many into *n, the
 * smallest and largest sample and the time from the oldest sample shown to the newest.
 * false when there is no sample.
 */
bool ap_live_window(const struct ap_live_hist *h, const uint64_t *ts, int cells, float *v,
		    int *n, float *min, float *max, uint64_t *span_ns);

/* live_xnn.c, for live_allocs.c and live.c: the site of an XNNPACK block (index + 1, 0
 * when out of memory), a block of it held or freed, a C library block allocated or gone,
 * a sample (names and classes new sites), the end. */
uint32_t ap_live_xnn_site(struct ap_live *l, uint64_t ip, uint64_t up);
void ap_live_xnn_held(struct ap_live *l, uint32_t site, uint64_t size, bool held);
void ap_live_xnn_libc(struct ap_live *l, const struct ap_event *ev);
void ap_live_xnn_gone(struct ap_live *l, uint64_t ptr);
void ap_live_xnn_sample(struct ap_live *l);
void ap_live_xnn_free(struct ap_live *l);

/* live_dmabuf.c, for live.c and live_replay.c: a dma-buf poll, an export or release. */
void ap_live_dmabuf_poll(struct ap_live *l, const struct ap_rec_dmabuf *r);
void ap_live_dmabuf_event(struct ap_live *l, const struct ap_rec_dmabuf_ev *e);
/* The device peak, the events' when the target was started here (they saw every export). */
uint64_t ap_live_dmabuf_peak(const struct ap_live *l);

/* live_objects.c, for live.c: mapping mi counted under its name (0, or -ENOMEM), taken
 * out of it before a rename, and its new pages held and faults added. */
int ap_live_obj_join(struct ap_live *l, uint32_t mi);
void ap_live_obj_leave(struct ap_live *l, uint32_t mi);
void ap_live_obj_add(struct ap_live *l, uint32_t mi, uint64_t held, uint64_t faults);
void ap_live_obj_free(struct ap_live *l);

/* The arena's pages as live.c keeps them: a byte each, 0 when not held; and the operator
 * the plan has write each first (n_owner of them). */
struct ap_live_pages {
	const uint8_t *state;
	uint64_t pages;
	const int32_t *owner;
	uint64_t n_owner;
};

/* live_bar.c, for live.c: a page of the arena became held, the arena changed, the bar
 * of n cells (ap_live_bar's answer), the end. */
void ap_live_bar_held(struct ap_live *l, uint64_t page, int32_t owner);
void ap_live_bar_reset(struct ap_live *l);
uint32_t ap_live_bar_cells(struct ap_live *l, struct ap_live_cell *cells, uint32_t n,
			   const struct ap_live_pages *pg);
void ap_live_bar_free(struct ap_live *l);

#endif
