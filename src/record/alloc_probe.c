// SPDX-License-Identifier: Apache-2.0
/*
 * alloc_probe: a session's allocation probe (include/arenaprof/record/alloc_probe.h). A
 * runtime takes its tensor arena from the C library (LiteRT:
 * aligned_alloc(64, roundup(size + 63, 64)), or malloc(size + 63)), and glibc serves it
 * from a mapping of its own or from [heap] as its mmap threshold moves. The probe reports
 * every allocation of at least alloc_min bytes with the pointer returned (and later its
 * free), so `report` can find the block of the plan's size and its exact base, and follow
 * it when a re-plan replaces it.
 *
 * Where: a started command is attached to this process's own C library before it execs
 * (the uprobes are per file, filtered by pid), so nothing it allocates is missed when it
 * uses the same one, which is the usual case; any other C library the target maps is
 * attached when a maps snapshot shows it. A target that maps none (a static binary) is
 * named in a note: its allocations cannot be caught, and report falls back to the
 * mapping rule.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/path.h"
#include "arenaprof/record/alloc_probe.h"
#include "arenaprof/record/probe.h"
#include "arenaprof/record/symbols.h"
#include "arenaprof/trace/trace.h"

/* glibc's libc.so.6 or libc-2.x.so, musl's loader-and-libc, uClibc-ng's libc */
static bool is_libc(const char *path)
{
	const char *b = ap_base_name(path);

	return path[0] == '/' && (!strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) ||
				  !strncmp(b, "ld-musl-", 8) || !strncmp(b, "libuClibc", 9));
}

/* A note to the session (its text formatted here, as the session's own are). */
__attribute__((format(printf, 3, 4)))
static void note(struct ap_alloc_probe *a, uint32_t level, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (a->note)
		a->note(a->ctx, level, text);
}

/* Remembers path in the list: 1 the first time, 0 when seen before, -1 out of memory. */
static int remember(char ***list, size_t *n, const char *path)
{
	char **v;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], path))
			return 0;
	v = realloc(*list, (*n + 1) * sizeof(*v));
	if (!v)
		return -1;
	*list = v;
	v[*n] = strdup(path);
	if (!v[*n])
		return -1;
	(*n)++;
	return 1;
}

/* Attaches to one C library (once per resolved path); true if attached now or before. */
static bool attach_lib(struct ap_alloc_probe *a, const char *path, const char *why)
{
	char real[PATH_MAX], what[160], err[AP_ERR_LEN];
	int r;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	r = remember(&a->libs, &a->n_libs, real);
	if (r <= 0)
		return r == 0;
	if (ap_probe_attach_alloc(a->probe, real, what, sizeof(what), err)) {
		note(a, 1, "allocation probe: cannot attach to %s: %s", real, err);
		return false;
	}
	a->attached = true;
	note(a, AP_NOTE_SETUP, "allocation probe: %s in %s (%s), blocks of %" PRIu64
			" bytes and more", what, real, why, a->alloc_min);
	return true;
}

/* This process's own C library, from /proc/self/maps. */
static bool own_libc(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (is_libc(p)) {
			snprintf(path, len, "%s", p);
			found = true;
		}
	}
	fclose(f);
	return found;
}

void ap_alloc_probe_start(struct ap_alloc_probe *a)
{
	char libc[PATH_MAX];

	if (a->mode == AP_ARENA_GIVEN) {
		struct ap_event ev = { .type = AP_EV_ALLOC, .addr = a->arena_addr,
				       .fn = AP_ALLOC_GIVEN, .run = -1, .op = -1 };
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ev.ts_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		if (a->event)
			a->event(a->ctx, &ev);
		note(a, 0, "--arena 0x%" PRIx64 ": the arena's base (planned "
				"offset 0) as given (no allocation probe)", a->arena_addr);
		return;
	}
	if (a->mode != AP_ARENA_AUTO)
		return;
	if (!a->alloc_min)
		a->alloc_min = AP_SESSION_ALLOC_MIN;
	ap_probe_set_alloc_window(a->probe, a->alloc_min, UINT64_MAX);
	/* a started command: before it execs, the C library this process uses */
	if (a->started && own_libc(libc, sizeof(libc)))
		attach_lib(a, libc, "attached before exec");
}

/*
 * XNNPACK's allocator, where a mapped file has it (LiteRT's wheel links XNNPACK into
 * libpywrap_litert_common.so; a program may map libXNNPACK.so): its blocks are what
 * LiteRT's default CPU path holds beside the arena, most far below a page.
 */
static void attach_xnn(struct ap_alloc_probe *a, const char *path)
{
	uint64_t off[AP_XNN_N_SYMS];
	char err[AP_ERR_LEN];

	if (remember(&a->files, &a->n_files, path) != 1 ||
	    ap_symbols_find_xnn_allocator(path, off) != 1)
		return;
	if (ap_probe_attach_xnn(a->probe, path, off, err)) {
		note(a, 1, "allocation probe: XNNPACK's allocator in %s: cannot attach: %s",
		     path, err);
		return;
	}
	a->xnn_attached++;
	note(a, AP_NOTE_SETUP, "allocation probe: XNNPACK's allocator in %s (xnn_allocate "
			"xnn_reallocate xnn_aligned_allocate xnn_deallocate "
			"xnn_aligned_deallocate), every block", path);
}

void ap_alloc_probe_maps(struct ap_alloc_probe *a, const struct ap_maps *maps)
{
	if (a->mode == AP_ARENA_GIVEN) {
		if (!a->arena_addr_seen && ap_maps_find(maps, a->arena_addr))
			a->arena_addr_seen = true;
		return;
	}
	if (a->mode != AP_ARENA_AUTO)
		return;
	for (size_t i = 0; i < maps->n; i++) {
		const struct ap_map *m = &maps->m[i];

		if (!(m->prot & AP_PROT_EXEC) || m->path[0] != '/')
			continue;
		if (!is_libc(m->path)) {
			attach_xnn(a, m->path);
			continue;
		}
		a->libc_seen = true;
		attach_lib(a, m->path, "mapped by the target");
	}
}

/*
 * A runtime allocates its arena, its delegates' buffers and its kernels' state before
 * the first inference ends; after it the probe keeps only the call a re-plan makes (an
 * aligned allocation). malloc, free and the rest are called all the time (Python: four
 * mallocs and four frees per LiteRT invoke), and each probed call costs a trap (about
 * 7 us on the development VM), an allocation also a return probe.
 */
void ap_alloc_probe_run_end(struct ap_alloc_probe *a)
{
	if (a->mode != AP_ARENA_AUTO || a->quiet || !a->attached)
		return;
	a->quiet = true;
	if (ap_probe_quiet_alloc(a->probe))
		note(a, AP_NOTE_SETUP, "allocation probe: after the first run, aligned "
				"allocations only (malloc, calloc, realloc, free detached)");
}

void ap_alloc_probe_stop(struct ap_alloc_probe *a, bool have_maps)
{
	struct ap_alloc_counters c;

	if (a->mode == AP_ARENA_GIVEN && !a->arena_addr_seen) {
		note(a, 1, "--arena 0x%" PRIx64 " is in no mapping of the target: it "
				"points nowhere, so report will attribute no page to the arena",
				a->arena_addr);
		return;
	}
	if (a->mode != AP_ARENA_AUTO || !a->probe)
		return;
	ap_probe_alloc_counters(a->probe, &c);
	/* No C library in its maps, or none read (gone within milliseconds, or seen
	 * before ld.so mapped one): a target using ours makes calls before it exits, and a
	 * static binary makes none. */
	if (!a->libc_seen && !c.calls) {
		note(a, 1, "allocation probe: %s, and no allocation call was seen (a "
				"static binary?): its allocations cannot be caught; report "
				"identifies the arena by its mapping, or give --arena ADDR",
				have_maps ? "no C library in the target's mappings" :
				"the target exited before its mappings were read");
		return;
	}
	note(a, 0, "allocation probe: %llu allocation calls, %llu blocks of %"
			PRIu64 " bytes or more%s reported (%llu freed)%s",
			(unsigned long long)c.calls, (unsigned long long)c.events,
			a->alloc_min, a->xnn_attached ? " (XNNPACK's: every size)" : "",
			(unsigned long long)c.frees,
			c.untracked ? "; some frees could not be followed (too many live "
			"blocks)" : "");
}

void ap_alloc_probe_free(struct ap_alloc_probe *a)
{
	for (size_t i = 0; i < a->n_libs; i++)
		free(a->libs[i]);
	free(a->libs);
	a->libs = NULL;
	a->n_libs = 0;
	for (size_t i = 0; i < a->n_files; i++)
		free(a->files[i]);
	free(a->files);
	a->files = NULL;
	a->n_files = 0;
}
