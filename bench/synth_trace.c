// SPDX-License-Identifier: Apache-2.0
/*
 * synth_trace: writes a synthetic arenaprof trace of N page faults for the report and
 * heatmap speed benchmark. The process it describes runs MODEL's tflite plan over and
 * over under memory pressure: every run writes the graph inputs, then each operator
 * writes the tensors it first writes; a page faults when it is not resident, and only
 * `--resident PCT` of the arena's pages stay resident (FIFO eviction), so pages are
 * reclaimed and refault run after run, as under a tight memory.high. Run and op markers,
 * a maps snapshot, a fault on the weights every operator and a sample every 100 runs go
 * with them, so the trace has every record kind a real one has. `--alloc` describes a
 * runtime that takes its arena from aligned_alloc, as LiteRT does: the allocation probe's
 * note and block go first, the arena starts 64 bytes into its mapping, and the analysis
 * has to find it from the allocation records.
 *
 * usage: synth_trace MODEL OUT.trace [--faults N] [--resident PCT] [--alloc]
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/event.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/trace/trace.h"

#define PAGE 4096ULL
#define ARENA_AT 0x7f1000000000ULL
#define WEIGHTS_AT 0x7f2000000000ULL
#define HEAP_AT 0x560000000000ULL
#define PID 4242

static struct ap_trace_writer w;
static char err[AP_ERR_LEN];
static uint64_t ts = 1000000000ULL;

static void put(uint32_t type, const void *p, uint32_t len)
{
	if (ap_trace_write(&w, type, p, len, err)) {
		fprintf(stderr, "synth_trace: %s\n", err);
		exit(1);
	}
}

static void marker(uint32_t type, int32_t run, int32_t op)
{
	struct ap_rec_marker m = { .ts_ns = ts, .tid = PID, .run = run, .op = op };

	put(type, &m, sizeof(m));
}

static void mapping(uint64_t start, uint64_t end, uint32_t prot, uint64_t inode,
		    const char *path)
{
	struct ap_rec_mapping m = { .ts_ns = ts, .start = start, .end = end, .inode = inode,
				    .prot = prot };

	if (ap_trace_write_str(&w, AP_REC_MAPPING, &m, sizeof(m), path, err)) {
		fprintf(stderr, "synth_trace: %s\n", err);
		exit(1);
	}
}

/* The process the trace describes: the plan it runs, and which arena pages are resident. */
struct synth {
	struct ap_tplan p;
	uint64_t want, n;		/* faults wanted, written */
	uint64_t pages, cap;		/* the arena's pages; at most cap resident */
	uint8_t *res;			/* resident, by page */
	uint64_t *fifo, head, live;	/* the resident pages, oldest first */
	uint64_t base, map_end;		/* the arena's first byte; its mapping's end */
	int32_t run;
};

/* The operator (-1: the graph inputs) that writes tensor pt first, or -2: none. */
static int32_t writer_of(const struct ap_ptensor *pt)
{
	if (pt->offset < 0 || !pt->bytes)
		return -2;
	if (pt->kind == AP_KIND_INPUT)
		return -1;
	if (pt->kind == AP_KIND_ARENA || pt->kind == AP_KIND_OUTPUT ||
	    pt->kind == AP_KIND_TEMPORARY)
		return pt->first;
	return -2;
}

/* Operator op writes tensor pt: a fault for each of its pages not resident (FIFO). */
static void write_tensor(struct synth *s, const struct ap_ptensor *pt, int32_t op)
{
	for (uint64_t pg = (uint64_t)pt->offset / PAGE;
	     pg <= ((uint64_t)pt->offset + pt->bytes - 1) / PAGE && s->n < s->want; pg++) {
		struct ap_rec_fault f = {
			.ts_ns = ts, .tid = PID, .run = s->run, .op = op,
			.vm_start = ARENA_AT, .vm_end = s->map_end,
			.vm_flags = 0x73, .ip = 0x560000001234ULL,
			.flags = AP_FF_WRITE | AP_FF_ACCESS_KNOWN | AP_FF_VMA_ANON |
				 AP_FF_MAJMIN_KNOWN,
		};
		uint64_t first = (uint64_t)pt->offset > pg * PAGE ? (uint64_t)pt->offset :
								     pg * PAGE;

		if (s->res[pg])
			continue;
		f.addr = s->base + first;
		put(AP_REC_FAULT, &f, sizeof(f));
		s->n++;
		ts += 200;
		if (s->live == s->cap) {
			s->res[s->fifo[s->head]] = 0;
			s->live--;
		}
		s->res[pg] = 1;
		s->fifo[s->head] = pg;
		s->head = (s->head + 1) % s->cap;
		s->live++;
	}
}

/* One run: its markers, every operator's writes and weights read, a sample every 100. */
static void one_run(struct synth *s)
{
	marker(AP_REC_RUN_BEGIN, s->run, -1);
	for (int32_t op = -1; op < (int32_t)s->p.n_ops && s->n < s->want; op++) {
		if (op >= 0)
			marker(AP_REC_OP_BEGIN, s->run, op);
		for (uint32_t t = 0; t < s->p.n && s->n < s->want; t++)
			if (writer_of(&s->p.t[t]) == op)
				write_tensor(s, &s->p.t[t], op);
		if (op >= 0 && s->n < s->want) {
			/* the operator's weights: one read fault per operator */
			struct ap_rec_fault f = {
				.ts_ns = ts, .tid = PID, .run = s->run, .op = op,
				.addr = WEIGHTS_AT + (uint64_t)op * PAGE,
				.vm_start = WEIGHTS_AT, .vm_end = WEIGHTS_AT + (4 << 20),
				.vm_flags = 0x71, .ip = 0x560000001234ULL,
				.flags = AP_FF_ACCESS_KNOWN | AP_FF_VMA_FILE | AP_FF_MAJMIN_KNOWN,
			};

			put(AP_REC_FAULT, &f, sizeof(f));
			s->n++;
			marker(AP_REC_OP_END, s->run, op);
		}
		ts += 1000;
	}
	marker(AP_REC_RUN_END, s->run, -1);
	if (s->run % 100 == 0) {
		struct ap_rec_sample m;

		memset(&m, 0xff, sizeof(m));
		m.ts_ns = ts;
		m.vm_rss = m.rss = (s->live + 1000) * PAGE;
		m.pss_anon = s->live * PAGE;
		m.psi_some_avg10 = 1234;
		m.psi_full_avg10 = 567;
		put(AP_REC_SAMPLE, &m, sizeof(m));
	}
	s->run++;
}

/* --alloc: the allocation probe's note and the runtime's aligned_alloc of the arena. */
static void arena_allocated(struct synth *s)
{
	/* glibc's mmap'd chunk: the 64-aligned block after its header, one page more */
	struct ap_rec_note nt = { .ts_ns = ts };
	struct ap_rec_alloc al = { .ts_ns = ts, .ptr = ARENA_AT + 64,
				   .size = s->p.arena_bytes + 64, .align = 64,
				   .caller = 0x560000001234ULL, .tid = PID,
				   .fn = AP_ALLOC_ALIGNED_ALLOC, .run = -1 };
	static const char what[] = "allocation probe: malloc, calloc, realloc, "
				   "aligned_alloc, memalign, posix_memalign, free in "
				   "/usr/lib/x86_64-linux-gnu/libc.so.6 (synthetic), "
				   "blocks of 65536 bytes and more";

	if (ap_trace_write_str(&w, AP_REC_NOTE, &nt, sizeof(nt), what, err)) {
		fprintf(stderr, "synth_trace: %s\n", err);
		exit(1);
	}
	s->base = al.ptr;
	s->map_end += PAGE;
	put(AP_REC_ALLOC, &al, sizeof(al));
}

int main(int argc, char **argv)
{
	static const char *strings[AP_HS_COUNT] = { "x86_64", "synthetic", "tp", "synth_trace",
					  "synth:invoke", "synth:op:0" };
	struct ap_rec_header h = { .page_size = PAGE, .flags = AP_HDR_STARTED,
				   .clock_base_ns = 1000000000ULL, .pid = PID };
	struct synth s = { .want = 10000000, .base = ARENA_AT };
	long pct = 60;
	bool alloc = false;

	if (argc < 3) {
		fprintf(stderr, "usage: synth_trace MODEL OUT.trace [--faults N] [--resident PCT] "
			"[--alloc]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--alloc"))
			alloc = true;
		else if (!strcmp(argv[i], "--faults") && i + 1 < argc)
			s.want = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--resident") && i + 1 < argc)
			pct = strtol(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "synth_trace: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (ap_plan_load(argv[1], &s.p, err)) {
		fprintf(stderr, "synth_trace: %s\n", err);
		return 2;
	}
	s.pages = (s.p.arena_bytes + PAGE - 1) / PAGE;
	s.cap = s.pages * (uint64_t)pct / 100;
	if (s.cap < 1)
		s.cap = 1;
	s.res = calloc(s.pages, 1);
	s.fifo = calloc(s.cap, sizeof(*s.fifo));
	if (!s.res || !s.fifo)
		return 1;
	if (ap_trace_create(&w, argv[2], &h, strings, err)) {
		fprintf(stderr, "synth_trace: %s\n", err);
		return 1;
	}
	s.map_end = ARENA_AT + s.pages * PAGE;
	if (alloc)
		arena_allocated(&s);
	mapping(HEAP_AT, HEAP_AT + (132 << 10), 3, 0, "[heap]");
	mapping(ARENA_AT, s.map_end, 3, 0, "");
	mapping(WEIGHTS_AT, WEIGHTS_AT + (4 << 20), 1, 77, argv[1]);
	mapping(0x7ffd00000000ULL, 0x7ffd00021000ULL, 3, 0, "[stack]");
	while (s.n < s.want)
		one_run(&s);
	{
		struct ap_rec_end e = { .ts_ns = ts, .reason = AP_END_RUNS, .exit_status = -1,
					.runs = (uint32_t)s.run };

		put(AP_REC_END, &e, sizeof(e));
	}
	if (ap_trace_close(&w, err)) {
		fprintf(stderr, "synth_trace: %s\n", err);
		return 1;
	}
	printf("synth_trace faults %" PRIu64 " runs %d arena_pages %" PRIu64 "\n", s.n, s.run,
	       s.pages);
	ap_tplan_free(&s.p);
	free(s.res);
	free(s.fifo);
	return 0;
}
