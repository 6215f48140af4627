/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aspace: the one model of a traced address space, fed by two thin drivers: the trace
 * replay (analysis.c, behind report, export and heatmap) and the live session (live.c,
 * behind the TUI), as perf's machine/map serves both perf report and perf top.
 *
 * Mappings are keyed by their bounds: a fault names its vma (start, end) and a maps
 * snapshot names it. A fault whose vma the tracer could not read goes to the newest
 * mapping over its address. A page is held once, first touched while traced or resident
 * at attach; every first touch is listed. Memory is bounded by the number of distinct
 * pages held, not by the number of faults.
 */
#ifndef ARENAPROF_ASPACE_H
#define ARENAPROF_ASPACE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/mapindex.h"
#include "arenaprof/analyze/newest.h"
#include "arenaprof/analyze/pageset.h"

/*
 * Counts by index (runs, operators; -1: none yet, or before operator 0), in ascending
 * index order once settled, each index once. Memory grows with the first touches
 * counted, never with an index's value: a trace's numbers are not trusted.
 */
struct ap_count {
	int32_t idx;
	uint64_t v;
};

struct ap_counts {
	struct ap_count *e;
	uint32_t n, cap;
};

struct ap_amap {
	uint64_t start, end, offset, inode;
	uint32_t prot;
	char *path;		/* "" anonymous, "[heap]", a file */
	bool anon;
	bool named;		/* seen in a maps snapshot (else only from fault vma bounds) */
	bool block;		/* a block the analysis kept apart (allocs.h), not a vma */
	const char *role;	/* the analysis': arena, weights, heap, stack, anon, code, file */
	uint64_t faults, major, writes;
	uint64_t first_touch_pages;
	uint64_t resident_at_attach;	/* pages present when -p attached */
	int32_t first_run;	/* run of its first first-touch (-1 before runs), INT32_MAX none */
	struct ap_counts by_run, by_op;	/* first-touch pages (with ap_aspace.by_index) */
};

/* One first touch: which page of which mapping, in which run, under which op marker. */
struct ap_touch {
	uint32_t map;
	int32_t run, op;
	uint32_t flags;		/* of the fault (enum ap_fault_flag) */
	uint64_t page;		/* page index within the mapping */
	uint64_t ts_ns;
	uint32_t in_page;	/* the faulting address's offset within its page */
	uint32_t tid;
};

/* A fault as both drivers have it (a trace's fault record, a session's event). */
struct ap_as_fault {
	uint64_t addr, vm_start, vm_end;	/* the vma: 0, 0 unknown */
	uint64_t ts_ns;
	uint32_t flags, tid;			/* enum ap_fault_flag */
	int32_t run, op;
};

/* What ap_as_fault did, as bits. */
enum {
	AP_AS_COUNTED = 1,	/* counted in a mapping (*mi) */
	AP_AS_FIRST = 2,	/* a first touch: s->touches[s->n_touches - 1] */
	AP_AS_KIND = 4,		/* the fault changed its mapping's kind (anonymous or file) */
};

#define AP_AS_MAP_BITS 40	/* a held page's key: mapping << 40 | page within it */
#define AP_AS_EMPTY (-ENOENT)	/* ap_as_map_get: end <= start, no mapping to keep */

struct ap_aspace {
	struct ap_amap *maps;
	uint32_t n_maps, cap_maps;
	struct ap_touch *touches;	/* every first touch, in the order they came */
	uint64_t n_touches, cap_touches;
	struct ap_pageset held;		/* every page held, keys AP_AS_MAP_BITS */
	uint64_t faults_vma_unknown;	/* faults that came without their vma */
	uint32_t page_size, page_shift;
	bool by_index;			/* count first touches by run and op marker */
	/* a mapping was made (the driver's own state of it); a negative errno fails the call */
	int (*map_new)(void *ctx, uint32_t mi);
	void *ctx;
	/* internal */
	struct ap_mapindex index;	/* maps by their bounds */
	struct ap_newest newest;	/* the newest of the painted maps over each address */
	uint32_t painted;		/* painted maps: on the first look-up that needs them */
	bool paint_oom;			/* out of memory painting: look-ups scan */
	int32_t last;			/* the mapping of the previous fault */
	/* the mappings of named files painted newest to oldest (the oldest over an address
	 * wins), again when a mapping was added (files_of: the count painted) or named */
	struct ap_newest files;
	uint32_t files_of;
	bool files_stale;
};

/* An empty model of pages of page_size bytes (a power of two). */
void ap_as_init(struct ap_aspace *s, uint32_t page_size);
/* The mapping [start, end), made unnamed and anonymous if new; -ENOMEM, AP_AS_EMPTY. */
int32_t ap_as_map_get(struct ap_aspace *s, uint64_t start, uint64_t end);
/* The mapping [start, end) if known, else -1. */
int32_t ap_as_map_find(const struct ap_aspace *s, uint64_t start, uint64_t end);
/* The newest known mapping that contains addr, or -1: O(log n). */
int32_t ap_as_map_at(const struct ap_aspace *s, uint64_t addr);
/*
 * The first mapping (by index) of a named file (seen in a snapshot, a path) that holds
 * addr, or -1: O(log n).
 */
int32_t ap_as_file_at(const struct ap_aspace *s, uint64_t addr);
/*
 * Names an address with the mappings and the ELF file's symbols: "tflite::Arena::Resize
 * (libtensorflowlite.so)", or "libfoo.so+0x1234" without a symbol or when the file at that
 * path is no longer the one mapped (another inode: rebuilt, or another machine's), or
 * "0x7f.." outside every file mapping. Returns buf.
 */
const char *ap_as_addr_name(const struct ap_aspace *s, uint64_t addr, char *buf, size_t len);
/* Mapping mi takes the name path (a copy; printable already). -ENOMEM. */
int ap_as_rename(struct ap_aspace *s, int32_t mi, const char *path);
/*
 * Mapping mi named by a maps snapshot: path, offset, inode and prot, anonymous as a
 * snapshot says it (no inode, no file name). -ENOMEM.
 */
int ap_as_name(struct ap_aspace *s, int32_t mi, const char *path, uint64_t offset,
	       uint64_t inode, uint32_t prot);
/*
 * A fault, in mapping `in` when >= 0 (a block the driver keeps apart), else in the
 * mapping of its vma, else in the newest one over its address. AP_AS_* bits, *mi its
 * mapping (-1 none), or -ENOMEM.
 */
int ap_as_fault(struct ap_aspace *s, const struct ap_as_fault *f, int32_t in, int32_t *mi);
/* Pages of mapping mi resident at attach: bit i of bits is page i, i < nbits. The count
 * of pages that were not held yet, or -ENOMEM. */
int64_t ap_as_resident(struct ap_aspace *s, int32_t mi, const uint8_t *bits, uint64_t nbits);
/* First touch t moves to mapping `to` (which holds its page), counts and all. -ENOMEM. */
int ap_as_move_touch(struct ap_aspace *s, struct ap_touch *t, int32_t to);
/* The first touches by run and op of every mapping in index order, each index once. */
void ap_as_settle(struct ap_aspace *s);
void ap_as_free(struct ap_aspace *s);

#endif
