/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alloc_probe: the allocation probe of a session (record --arena auto|ADDR|off). It
 * attaches probe.h's allocation uprobes to the C libraries the target uses, reports what
 * it did through the session's note callback, and, for --arena ADDR, sends the given
 * address as an allocation event. Its state is its own: the session owns one and calls
 * these functions at its points (release, maps snapshots, run ends, stop, free).
 */
#ifndef ARENAPROF_ALLOC_PROBE_H
#define ARENAPROF_ALLOC_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/event.h"
#include "arenaprof/kernel/procfs.h"

enum ap_arena_mode {
	AP_ARENA_OFF = 0,	/* no allocation probe */
	AP_ARENA_AUTO = 1,	/* catch the C library's allocations (report finds the arena) */
	AP_ARENA_GIVEN = 2,	/* the user named the arena's address */
};

#define AP_SESSION_ALLOC_MIN 4096	/* blocks smaller than a page are never an arena */

struct ap_probe;

struct ap_alloc_probe {
	/* set by the owner before ap_alloc_probe_start */
	struct ap_probe *probe;
	uint32_t mode;			/* enum ap_arena_mode */
	uint64_t arena_addr;		/* AP_ARENA_GIVEN */
	uint64_t alloc_min;		/* 0: AP_SESSION_ALLOC_MIN */
	bool started;			/* the target is a command the session started */
	void (*note)(void *ctx, uint32_t level, const char *text);
	void (*event)(void *ctx, const struct ap_event *ev);
	void *ctx;
	/* its own */
	char **libs;			/* C libraries tried */
	size_t n_libs;
	bool attached;			/* to at least one of them */
	bool libc_seen;			/* the target mapped a C library */
	bool arena_addr_seen;		/* AP_ARENA_GIVEN: a mapping held the address */
	bool quiet;			/* malloc, calloc, realloc, free detached */
	char **files;			/* mapped files searched for XNNPACK's allocator */
	size_t n_files;
	uint32_t xnn_attached;		/* files whose XNNPACK allocator is probed */
};

/* At release: --arena ADDR's event, or the session's own C library for a started command. */
void ap_alloc_probe_start(struct ap_alloc_probe *a);
/*
 * Every maps snapshot: C libraries the target mapped, and XNNPACK's allocator in any
 * executable mapping that has its symbols (have_maps: a snapshot was taken).
 */
void ap_alloc_probe_maps(struct ap_alloc_probe *a, const struct ap_maps *maps);
/* The first run's end: from then on aligned allocations only. */
void ap_alloc_probe_run_end(struct ap_alloc_probe *a);
/* At stop: a note with the counts, or why nothing could be caught. */
void ap_alloc_probe_stop(struct ap_alloc_probe *a, bool have_maps);
void ap_alloc_probe_free(struct ap_alloc_probe *a);

#endif
