// SPDX-License-Identifier: Apache-2.0
/*
 * scale_trace: writes a trace that holds N records of one kind, for the scale table of
 * `make bench` and the hostile-scale tests. Every trace has the same frame: a header, a
 * snapshot of four mappings (heap, an anonymous arena, a weights file, the stack), a
 * first touch of each arena page in the first run, and an END; KIND says what is
 * repeated N times on top of it:
 *
 *   fault     first touches of N distinct arena pages, spread over runs and operators
 *   alloc     allocation-probe records of a long-running service: blocks of 64 KiB and
 *             more at N / 4 addresses that the C library reuses, each freed again
 *   note      recorder notes, every one different
 *   mapping   N / 3 mapping snapshots of --maps M mappings each (default 100), every one
 *             the one before with one mapping moved: about N records in the file (a
 *             copy, the moved mapping, a copy), N / 3 * M mappings to a reader that
 *             expands the copies
 *   snapmaps  one snapshot of N distinct mappings (past 2^20 a reader keeps no more)
 *   marker    run and operator markers: N / 8 runs of three operators
 *   sample    memory samples
 *
 * and the shapes that once cost more than their records (issue 31's hostile scale):
 *
 *   vmas      N first touches, each in an anonymous vma of its own that no snapshot names
 *   unknown   N first touches whose vma the tracer could not read, in N / 16 mappings
 *   blocks    N / 2 allocations live at once (one of them of 1 GiB first), then a first
 *             touch in each
 *   reuse     N / 2 allocations at one address, each freed, then N / 2 first touches there
 *
 * usage: scale_trace KIND N OUT.trace [--maps M]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/event.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/err.h"

#define PAGE 4096ULL
#define ARENA_AT 0x7f1000000000ULL
#define ARENA_PAGES 64ULL
#define WEIGHTS_AT 0x7f2000000000ULL
#define HEAP_AT 0x560000000000ULL
#define MANY_AT 0x7e0000000000ULL
#define FAULTS_AT 0x7d0000000000ULL
#define PID 4242
#define CALLER 0x560000001234ULL	/* a call site in the traced binary */

static struct ap_trace_writer w;
static char err[AP_ERR_LEN];
static uint64_t ts = 1000000000ULL;
static uint32_t snap;
static uint64_t fault_pages;	/* the size of the faults' mapping (kind fault) */

static void die(void)
{
	fprintf(stderr, "scale_trace: %s\n", err);
	exit(1);
}

static void put(uint32_t type, const void *p, uint32_t len)
{
	if (ap_trace_write(&w, type, p, len, err))
		die();
}

static void put_str(uint32_t type, const void *p, uint32_t len, const char *s)
{
	if (ap_trace_write_str(&w, type, p, len, s, err))
		die();
}

static void mapping(uint64_t start, uint64_t end, uint32_t prot, uint64_t inode,
		    const char *path)
{
	struct ap_rec_mapping m = { .ts_ns = ts, .start = start, .end = end, .inode = inode,
				    .prot = prot, .snapshot = snap };

	put_str(AP_REC_MAPPING, &m, sizeof(m), path);
}

/* The four mappings of every snapshot, then `extra` small anonymous ones after them. */
static void snapshot(uint64_t extra, uint64_t shift)
{
	snap++;
	mapping(HEAP_AT, HEAP_AT + (132 << 10), 3, 0, "[heap]");
	for (uint64_t i = 0; i < extra; i++) {
		uint64_t at = MANY_AT + (i + (i >= shift)) * 2 * PAGE;

		mapping(at, at + PAGE, 3, 0, "");
	}
	mapping(ARENA_AT, ARENA_AT + ARENA_PAGES * PAGE, 3, 0, "");
	mapping(WEIGHTS_AT, WEIGHTS_AT + (4 << 20), 1, 77, "/models/model.tflite");
	if (fault_pages)
		mapping(FAULTS_AT, FAULTS_AT + fault_pages * PAGE, 3, 0, "");
	mapping(0x7ffd00000000ULL, 0x7ffd00021000ULL, 3, 0, "[stack]");
}

static void marker(uint32_t type, int32_t run, int32_t op)
{
	struct ap_rec_marker m = { .ts_ns = ts, .tid = PID, .run = run, .op = op };

	put(type, &m, sizeof(m));
	ts += 1000;
}

static void fault(uint64_t addr, uint64_t vm_start, uint64_t vm_end, int32_t run, int32_t op)
{
	struct ap_rec_fault f = {
		.ts_ns = ts, .addr = addr, .ip = 0x560000001234ULL, .vm_start = vm_start,
		.vm_end = vm_end, .vm_flags = 0x73, .tid = PID, .run = run, .op = op,
		.flags = AP_FF_WRITE | AP_FF_ACCESS_KNOWN | AP_FF_VMA_ANON | AP_FF_MAJMIN_KNOWN,
	};

	put(AP_REC_FAULT, &f, sizeof(f));
	ts += 200;
}

/* The first run: every arena page touched once, under operator page % 3. */
static void first_run(void)
{
	marker(AP_REC_RUN_BEGIN, 0, -1);
	for (uint64_t pg = 0; pg < ARENA_PAGES; pg++)
		fault(ARENA_AT + pg * PAGE, ARENA_AT, ARENA_AT + ARENA_PAGES * PAGE, 0,
		      (int32_t)(pg % 3));
	marker(AP_REC_RUN_END, 0, -1);
}

static void faults(uint64_t n)
{
	/* a mapping of n pages (in the snapshot), so every fault is a first touch */
	uint64_t end = FAULTS_AT + n * PAGE;

	for (uint64_t i = 0; i < n; i++)
		fault(FAULTS_AT + i * PAGE, FAULTS_AT, end, (int32_t)(1 + i / 1000),
		      (int32_t)(i % 3));
}

static void allocs(uint64_t n)
{
	uint64_t slots = n / 4 ? n / 4 : 1;

	for (uint64_t i = 0; i + 1 < n; i += 2) {
		uint64_t ptr = HEAP_AT + (1ULL << 32) + (i / 2 % slots) * (1ULL << 20);
		struct ap_rec_alloc a = { .ts_ns = ts, .ptr = ptr, .size = 65536 + (i % 4096),
					  .caller = 0x560000001234ULL + (i % 7) * 16, .tid = PID,
					  .fn = AP_ALLOC_MALLOC, .run = (int32_t)(1 + i / 1000) };

		put(AP_REC_ALLOC, &a, sizeof(a));
		ts += 100;
		a.ts_ns = ts;
		a.fn = AP_ALLOC_FREE;
		put(AP_REC_ALLOC, &a, sizeof(a));
		ts += 100;
	}
}

#define ANON_FLAGS (AP_FF_WRITE | AP_FF_ACCESS_KNOWN | AP_FF_VMA_ANON | AP_FF_MAJMIN_KNOWN)

static void fault_flags(uint64_t addr, uint64_t vm_start, uint64_t vm_end, uint32_t flags)
{
	struct ap_rec_fault f = {
		.ts_ns = ts, .addr = addr, .ip = 0x560000001234ULL, .vm_start = vm_start,
		.vm_end = vm_end, .vm_flags = 0x73, .tid = PID, .run = 1, .op = 0, .flags = flags,
	};

	put(AP_REC_FAULT, &f, sizeof(f));
	ts += 200;
}

static void own_vmas(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t at = MANY_AT + i * 2 * PAGE;

		fault_flags(at, at, at + PAGE, ANON_FLAGS);
	}
}

static void unknown_vmas(uint64_t n)
{
	uint64_t maps = n / 16 ? n / 16 : 1;

	snap++;
	for (uint64_t i = 0; i < maps; i++)
		mapping(MANY_AT + i * 32 * PAGE, MANY_AT + (i * 32 + 16) * PAGE, 3, 0, "");
	for (uint64_t i = 0; i < n; i++)
		fault_flags(MANY_AT + (i % maps) * 32 * PAGE + (i / maps) * PAGE, 0, 0,
			    AP_FF_WRITE | AP_FF_ACCESS_KNOWN | AP_FF_VMA_UNKNOWN);
}

static void alloc_rec(uint64_t ptr, uint64_t size, uint32_t fn, uint64_t caller)
{
	struct ap_rec_alloc a = { .ts_ns = ts, .ptr = ptr, .size = size, .tid = PID, .fn = fn,
				  .caller = caller, .run = 1 };

	put(AP_REC_ALLOC, &a, sizeof(a));
	ts += 100;
}

static void live_blocks(uint64_t n)
{
	uint64_t k = n / 2 ? n / 2 : 1, at = HEAP_AT + (1ULL << 32), end = at + (k + 1) * 65536;

	alloc_rec(at, 1ULL << 30, AP_ALLOC_MALLOC, CALLER);
	/* each from a call site of its own: the report groups blocks by caller */
	for (uint64_t i = 1; i <= k; i++)
		alloc_rec(at + i * 65536, 65536, AP_ALLOC_MALLOC, CALLER + i * 16);
	for (uint64_t i = 1; i <= k; i++)
		fault_flags(at + i * 65536, at, end + (1ULL << 30), ANON_FLAGS);
}

static void reused_block(uint64_t n)
{
	uint64_t k = n / 2 ? n / 2 : 1, at = HEAP_AT + (1ULL << 32);

	for (uint64_t i = 0; i < k; i++) {
		alloc_rec(at, k * PAGE, AP_ALLOC_MALLOC, CALLER);
		alloc_rec(at, 0, AP_ALLOC_FREE, CALLER);
	}
	alloc_rec(at, k * PAGE, AP_ALLOC_MALLOC, CALLER);
	for (uint64_t i = 0; i < k; i++)
		fault_flags(at + i * PAGE, at, at + k * PAGE, ANON_FLAGS);
}

/*
 * 64 aligned blocks that could each be the arena, N/2 first touches among them, and N/2
 * faults in vmas of their own: the analysis gives all but one block back to the mapping
 * that holds it, every touch looked up among the N/2 mappings.
 */
static void given_back(uint64_t n)
{
	uint64_t k = n / 2 ? n / 2 : 1, at = HEAP_AT + (1ULL << 32);
	uint64_t pages = (k + 63) / 64, bytes = pages * PAGE, end = at + 64 * (bytes + PAGE);

	/* the heap's vma, known before the blocks: what takes their touches back */
	fault_flags(end - PAGE, at, end, ANON_FLAGS);
	for (uint64_t b = 0; b < 64; b++) {
		struct ap_rec_alloc a = { .ts_ns = ts, .ptr = at + b * (bytes + PAGE),
					  .size = bytes, .align = 64, .caller = CALLER,
					  .tid = PID, .fn = AP_ALLOC_ALIGNED_ALLOC, .run = 1 };

		put(AP_REC_ALLOC, &a, sizeof(a));
		ts += 100;
	}
	for (uint64_t i = 0; i < k; i++)
		fault_flags(at + (i % 64) * (bytes + PAGE) + (i / 64) * PAGE, at, end, ANON_FLAGS);
	own_vmas(k);
}

/* N/2 blocks, each in a vma of its own, from a call site of its own, and touched once */
static void sites(uint64_t n)
{
	uint64_t k = n / 2 ? n / 2 : 1;

	for (uint64_t i = 0; i < k; i++) {
		uint64_t at = MANY_AT + i * 2 * PAGE;

		alloc_rec(at, PAGE, AP_ALLOC_MALLOC, CALLER + i * 16);
		fault_flags(at, at, at + PAGE, ANON_FLAGS);
	}
}

static void notes(uint64_t n)
{
	char text[96];

	for (uint64_t i = 0; i < n; i++) {
		struct ap_rec_note nt = { .ts_ns = ts, .level = (uint32_t)(i % 2) };

		snprintf(text, sizeof(text), "recorder note %" PRIu64 ": something happened", i);
		put_str(AP_REC_NOTE, &nt, sizeof(nt), text);
		ts += 1000;
	}
}

static void snapshots(uint64_t n, uint64_t per)
{
	uint64_t extra = per > 4 ? per - 4 : 0;

	for (uint64_t k = 0; k < (n + 2) / 3; k++) {
		snapshot(extra, k % (extra + 1));
		ts += 1000000;
	}
}

static void markers(uint64_t n)
{
	for (uint64_t r = 1; r <= n / 8; r++) {
		marker(AP_REC_RUN_BEGIN, (int32_t)r, -1);
		for (int32_t op = 0; op < 3; op++) {
			marker(AP_REC_OP_BEGIN, (int32_t)r, op);
			marker(AP_REC_OP_END, (int32_t)r, op);
		}
		marker(AP_REC_RUN_END, (int32_t)r, -1);
	}
}

static void samples(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		struct ap_rec_sample s;

		memset(&s, 0xff, sizeof(s));
		s.ts_ns = ts;
		s.vm_rss = s.rss = (1000 + i % 500) * PAGE;
		s.vm_hwm = 1500 * PAGE;
		s.pss_anon = (ARENA_PAGES + i % 100) * PAGE;
		put(AP_REC_SAMPLE, &s, sizeof(s));
		ts += 100000;
	}
}

int main(int argc, char **argv)
{
	static const char *strings[AP_HS_COUNT] = { "x86_64", "synthetic", "tp", "scale_trace",
						    "", "" };
	struct ap_rec_header h = { .page_size = PAGE, .flags = AP_HDR_STARTED,
				   .clock_base_ns = 1000000000ULL, .pid = PID };
	struct ap_rec_end e = { .reason = AP_END_TARGET_EXIT, .exit_status = 0 };
	uint64_t n, per = 100;
	const char *kind;
	char *end;

	if (argc != 4 && !(argc == 6 && !strcmp(argv[4], "--maps"))) {
		fprintf(stderr, "usage: scale_trace fault|alloc|note|mapping|snapmaps|marker|"
			"sample|vmas|unknown|blocks|reuse|giveback|sites N OUT.trace [--maps M]\n");
		return 2;
	}
	kind = argv[1];
	n = strtoull(argv[2], &end, 10);
	if (*end || !n || (argc == 6 && !(per = strtoull(argv[5], &end, 10)))) {
		fprintf(stderr, "scale_trace: N and M are counts above 0\n");
		return 2;
	}
	if (!strcmp(kind, "fault"))
		fault_pages = n;
	if (ap_trace_create(&w, argv[3], &h, strings, err))
		die();
	snapshot(0, 0);
	first_run();
	if (!strcmp(kind, "fault"))
		faults(n);
	else if (!strcmp(kind, "alloc"))
		allocs(n);
	else if (!strcmp(kind, "note"))
		notes(n);
	else if (!strcmp(kind, "mapping"))
		snapshots(n, per);
	else if (!strcmp(kind, "marker"))
		markers(n);
	else if (!strcmp(kind, "sample"))
		samples(n);
	else if (!strcmp(kind, "snapmaps"))
		snapshot(n, n);
	else if (!strcmp(kind, "vmas"))
		own_vmas(n);
	else if (!strcmp(kind, "unknown"))
		unknown_vmas(n);
	else if (!strcmp(kind, "blocks"))
		live_blocks(n);
	else if (!strcmp(kind, "reuse"))
		reused_block(n);
	else if (!strcmp(kind, "giveback"))
		given_back(n);
	else if (!strcmp(kind, "sites"))
		sites(n);
	else {
		fprintf(stderr, "scale_trace: unknown kind '%s'\n", kind);
		return 2;
	}
	e.ts_ns = ts;
	put(AP_REC_END, &e, sizeof(e));
	if (ap_trace_close(&w, err))
		die();
	return 0;
}
