/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heatmap: one matrix of arena faults, rows by operator (execution order) or by run,
 * columns by arena offset (a page each, or buckets of whole pages), built from a
 * correlated trace (correlate.h) and drawn by every renderer: SVG, PNG, CSV and a
 * 256-colour terminal view. The renderers share the matrix and the colour scale.
 *
 * First touches come from the analysis pass; --faults all streams the trace once more
 * (memory: the matrix and the correlation's page tables, never the faults).
 * The sum of all cells is h->total: the faults counted (arena, in the run range).
 *
 * Several models (--plan A --plan B): one matrix, each model's rows in turn, labelled
 * "model:op" (or "model:runs A-B"), each model's columns the pages of its own arena from
 * the page its base lies on, a page count per column the same for all (heatmap_models.c).
 */
#ifndef ARENAPROF_HEATMAP_H
#define ARENAPROF_HEATMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arenaprof/analyze/correlate.h"

#define AP_HM_AUTO_PAGES 2048	/* a page per column up to this many pages */
#define AP_HM_AUTO_COLS 1024	/* else this many columns at most */
#define AP_HM_RUN_ROWS 100	/* --by run: default rows at most */

enum ap_hm_by { AP_HM_BY_OP, AP_HM_BY_RUN };
enum ap_hm_attr { AP_HM_ATTR_AUTO, AP_HM_ATTR_PLAN, AP_HM_ATTR_MARKER };

struct ap_hm_opts {
	enum ap_hm_by by;
	bool all_faults;		/* every fault, not the first touch per page */
	uint32_t cols;			/* at most this many columns; 0 = auto */
	uint32_t rows;			/* --by run: at most this many rows; 0 = auto */
	bool log_rows;			/* --by run: run 0, 1, 2-3, 4-7, ... */
	bool have_runs;			/* --runs A-B */
	int32_t run_lo, run_hi;
	enum ap_hm_attr attr;		/* --by op: which operator a fault counts for */
	bool skip_empty;		/* --skip-empty: no row without a count */
	bool workspace;			/* --region workspace: XNNPACK's workspace (its
					 * first touches, by the plan of its values) */
};

struct ap_hm_row {
	char label[104];		/* "12 CONV_2D MobilenetV2/Conv/Relu6", "runs 20-39" */
	char tip[320];			/* the same, with full names */
	int32_t op;			/* --by op: operator, -1 inputs, AP_OP_NONE */
	int32_t run_lo, run_hi;		/* --by run */
	const struct ap_tplan *plan;	/* --by op: the plan the operator is of */
	uint32_t model;			/* the model (ap_corr_all's order) */
};

/* A planned tensor's bytes, drawn as an outline (the widest operator's live tensors). */
struct ap_hm_extent {
	int64_t off;
	uint64_t bytes;
	int32_t tensor;
};

struct ap_heatmap {
	uint32_t rows, cols;
	uint64_t *cell;			/* rows * cols, row-major */
	struct ap_hm_row *row;
	uint32_t skipped_rows;		/* --skip-empty: rows left out */
	uint64_t page_size, pages_per_col, col_bytes;
	uint64_t page0, n_pages;	/* the mapping's pages drawn: all, or the plan's
					 * extent when the mapping is far larger ([heap]) */
	int64_t col0_offset;		/* arena offset of column 0's first byte */
	uint64_t base, arena_bytes;
	uint64_t total, max;
	enum ap_hm_by by;
	bool all_faults, log_rows;
	const char *attr;		/* "op marker" or "plan" */
	int32_t run_lo, run_hi;
	int32_t widest_op, widest_row;	/* -1 none */
	uint64_t widest_bytes;
	struct ap_hm_extent *ext;
	uint32_t n_ext;
	const struct ap_tplan *plan;
	bool mismatch;			/* drawn although the plan does not match (--force) */
	bool passes2;			/* --faults all read the trace a second time */
	uint32_t n_models;		/* > 1: the rows are several models' (their arenas'
					 * offsets: each column's from the page each base is
					 * on; no base, end or widest operator drawn) */
	const char *model_name[AP_MAX_MODELS];	/* n_models > 1: each's file name */
	char title[320], subtitle[400], warning[400];
	char axis[160];			/* what the offset axis measures */
};

/*
 * --faults all in the analysis pass itself: pass ap_hm_pre_fault and the accumulator as
 * the pass's on_fault hook (ap_corr_in). It follows the mapping the arena rule will pick
 * (the plan's size, or the one holding arena_addr) page by page, per operator marker or
 * per run, within a memory cap; ap_heatmap_build reads the trace again only when it
 * could not (another arena picked, the cap exceeded).
 */
struct ap_hm_pre;
struct ap_hm_pre *ap_hm_pre_new(const struct ap_hm_opts *o, const struct ap_tplan *p,
				uint64_t arena_addr);
void ap_hm_pre_fault(void *ctx, const struct ap_analysis *a, const struct ap_rec_fault *f,
		     int32_t mi);
void ap_hm_pre_free(struct ap_hm_pre *pre);

/*
 * Every model's heatmap (one, or several in one matrix). 0, or -EINVAL (no arena, no
 * markers for --attr marker, an unreadable trace) or -ENOMEM, with err.
 * pre: NULL, or the accumulator of the analysis pass (--faults all).
 */
int ap_heatmap_build(const struct ap_corr_all *x, const char *trace,
		     const struct ap_hm_opts *o, struct ap_hm_pre *pre, struct ap_heatmap *h,
		     char *err);
/* Model model's alone (0 for --region workspace); ppc: pages per column, 0 from o. */
int ap_heatmap_build_model(const struct ap_corr_all *x, uint32_t model, uint64_t ppc,
			   const char *trace, const struct ap_hm_opts *o,
			   struct ap_hm_pre *pre, struct ap_heatmap *h, char *err);
/* The pages of c's mapping a heatmap draws: all, or the plan's extent from the page its base
 * is on (*page0) when the mapping is far larger ([heap]). */
uint64_t ap_hm_drawn_pages(const struct ap_corr *c, const struct ap_tplan *p, uint64_t *page0);
/* Pages per column for n_pages (--cols cols, 0: a page each up to AP_HM_AUTO_PAGES). */
uint64_t ap_hm_pages_per_col(uint64_t n_pages, uint32_t cols);
void ap_heatmap_free(struct ap_heatmap *h);

/* The colour scale: log when the counts span more than a few steps. */
bool ap_hm_log_scale(const struct ap_heatmap *h);
/* Colour of a count (0 is white). */
void ap_hm_rgb(const struct ap_heatmap *h, uint64_t v, uint8_t rgb[3]);
/* Colour at position t in 0..1 of the legend (t = 0: a count of 1, 1: the maximum). */
void ap_hm_rgb_at(double t, uint8_t rgb[3]);
/* Human offset: "0", "384 KiB", "1.5 MiB" into buf (32 bytes). */
const char *ap_hm_offset(int64_t off, char *buf);

/*
 * A label that fits w columns, cut in the middle ("4 DEPTHWISE_CONV_2D Mobi~e/Relu6") so
 * that rows whose names differ only at the end stay apart; "index opcode" kept whole when
 * it leaves room. s must be one byte a column (ASCII). Returns s or buf (len > w).
 */
const char *ap_hm_fit_label(const char *s, unsigned w, char *buf, size_t len);
/*
 * By operator, with a plan: the next arena tensor live while row r's operator runs, from
 * plan tensor *i on (start at 0; *i moves past it); NULL when none is left, or when the
 * row is no operator's. The renderers draw the plan behind the faults with it.
 */
const struct ap_ptensor *ap_hm_row_live(const struct ap_heatmap *h, uint32_t r, uint32_t *i);
/* Bytes per axis tick: a power-of-two multiple of the page, at most 10 ticks. */
uint64_t ap_hm_tick_step(const struct ap_heatmap *h);

/* Renderers: 0, or with err -ENOMEM, -EINVAL (an image too large) or the write's error. */
int ap_heatmap_svg(const struct ap_heatmap *h, FILE *f, char *err);
int ap_heatmap_csv(const struct ap_heatmap *h, FILE *f, char *err);
/* PNG: cell_w x cell_h pixels per cell and a colour strip; *w, *ht get the image size. */
int ap_heatmap_png(const struct ap_heatmap *h, FILE *f, uint32_t *w, uint32_t *ht, char *err);
void ap_heatmap_png_cell(const struct ap_heatmap *h, uint32_t *cw, uint32_t *ch);
/* Terminal: fits `width` columns (0: the terminal's, else $COLUMNS, else 80). */
int ap_heatmap_ansi(const struct ap_heatmap *h, FILE *f, unsigned width, char *err);

#endif
