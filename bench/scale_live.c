// SPDX-License-Identifier: Apache-2.0
/*
 * scale_live: feeds the live model (what `arenaprof top` draws) N inputs of one kind, as
 * a session would feed it, and draws a frame's worth of queries after every sample: the
 * scale table's TUI rows (make bench) and the hostile-scale test's. A sample comes every
 * SAMPLE_EVERY inputs (the TUI samples once a second; a busy target sends thousands of
 * events in one), and at the end.
 *
 *   fault     first touches of N distinct pages of one anonymous mapping
 *   vmas      N first touches, each in an anonymous vma of its own
 *   unknown   a snapshot of N / 16 mappings, then N first touches whose vma the tracer
 *             could not read, spread over them
 *   mapping   N / 100 snapshots of 100 mappings, each the one before with one moved (a
 *             service that maps and unmaps): a sample after each
 *   alloc     allocation-probe events of a service: blocks of 64 KiB at N / 4 addresses
 *             the C library reuses, from 64 call sites, each freed again
 *   sites     N / 2 blocks, each from a call site of its own, each freed again
 *   blocks    N / 2 blocks live at once, then freed oldest first
 *   marker    run and operator markers: N / 8 runs of three operators
 *   sample    N samples, each followed by a frame
 *   note      recorder notes, every one different
 *
 * usage: scale_live KIND N [PLAN.tflite]
 * Prints the figures the model ends with (a check that the inputs arrived), exit 0.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/live.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/util/err.h"

#define PAGE 4096ULL
#define SAMPLE_EVERY 1000
#define MANY_AT 0x7e0000000000ULL
#define ANON_AT 0x7f0000000000ULL
#define HEAP_AT 0x560000000000ULL
#define SITE 0x560000001000ULL

static struct ap_live l;
static uint64_t ts = 1000000000ULL, inputs;
static struct ap_live_cell cells[80];
static uint32_t *order;
static struct ap_live_object objects[8];

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "scale_live: %s failed\n", what);
		exit(1);
	}
}

/* What the TUI asks the model for on every redraw. */
static void frame(void)
{
	uint64_t p50, p99;
	uint32_t n;

	ap_live_bar(&l, cells, 80);
	if (l.n_ops)
		ap_live_op_order(&l, AP_SORT_BREADTH, false, order);
	ap_live_objects(&l, objects, 8);
	ap_live_latency(&l, &p50, &p99, &n);
	(void)ap_live_rate(&l.minor_rate);
}

static void sample(void)
{
	struct ap_session_sample s;

	memset(&s, 0xff, sizeof(s));
	s.rec.ts_ns = ts += 1000000;
	s.smaps_read = false;
	s.acct.cg_path[0] = '\0';
	check(l.sink.sample(l.sink.ctx, &s), "sample");
	frame();
}

/* One input counted: a sample every SAMPLE_EVERY. */
static void tick(void)
{
	if (++inputs % SAMPLE_EVERY == 0)
		sample();
}

static void event(const struct ap_event *ev)
{
	check(l.sink.event(l.sink.ctx, ev), "event");
	tick();
}

static void fault(uint64_t addr, uint64_t start, uint64_t end)
{
	struct ap_event ev = { .ts_ns = ts++, .addr = addr, .vm_start = start, .vm_end = end,
			       .type = AP_EV_FAULT, .flags = AP_FF_VMA_ANON | AP_FF_WRITE,
			       .run = 0, .op = -1 };

	event(&ev);
}

static void alloc(uint64_t addr, uint64_t size, uint64_t ip, uint64_t fn)
{
	struct ap_event ev = { .ts_ns = ts++, .addr = addr, .size = size, .ip = ip, .fn = fn,
			       .type = AP_EV_ALLOC, .tid = 7 };

	event(&ev);
}

static void marker(uint32_t type, int32_t run, int32_t op)
{
	struct ap_event ev = { .ts_ns = ts++, .type = type, .tid = 7, .run = run, .op = op };

	event(&ev);
}

static void mappings(uint64_t n)
{
	struct ap_map m[100];
	struct ap_maps maps = { .m = m, .n = 100 };

	for (uint64_t s = 0; s < n / 100; s++) {
		for (uint32_t i = 0; i < 100; i++)
			m[i] = (struct ap_map){ .start = ANON_AT + i * 0x100000ULL,
						.end = ANON_AT + i * 0x100000ULL + 16 * PAGE,
						.prot = 3, .path = (char *)"" };
		/* the moved one: a new mapping every snapshot */
		m[s % 100].start = MANY_AT + s * 0x10000ULL;
		m[s % 100].end = m[s % 100].start + 4 * PAGE;
		check(l.sink.mappings(l.sink.ctx, &maps, (uint32_t)s + 1, ts), "mappings");
		inputs += 100;
		sample();
	}
}

static void unknown(uint64_t n)
{
	uint64_t n_maps = n / 16 + 1;
	struct ap_map *m = calloc(n_maps, sizeof(*m));
	struct ap_maps maps = { .m = m, .n = n_maps };

	check(!m, "calloc");
	for (uint64_t i = 0; i < n_maps; i++)
		m[i] = (struct ap_map){ .start = MANY_AT + i * 32 * PAGE,
					.end = MANY_AT + i * 32 * PAGE + 16 * PAGE, .prot = 3,
					.path = (char *)"" };
	check(l.sink.mappings(l.sink.ctx, &maps, 1, ts), "mappings");
	free(m);
	for (uint64_t i = 0; i < n; i++) {
		struct ap_event ev = { .ts_ns = ts++, .type = AP_EV_FAULT, .run = 0, .op = -1,
				       .addr = MANY_AT + (i % n_maps) * 32 * PAGE +
					       (i / n_maps % 16) * PAGE,
				       .flags = AP_FF_VMA_UNKNOWN | AP_FF_WRITE };

		event(&ev);
	}
}

static void feed(const char *kind, uint64_t n)
{
	if (!strcmp(kind, "fault")) {
		for (uint64_t i = 0; i < n; i++)
			fault(ANON_AT + i * PAGE, ANON_AT, ANON_AT + n * PAGE);
	} else if (!strcmp(kind, "vmas")) {
		for (uint64_t i = 0; i < n; i++)
			fault(MANY_AT + i * 2 * PAGE, MANY_AT + i * 2 * PAGE,
			      MANY_AT + i * 2 * PAGE + PAGE);
	} else if (!strcmp(kind, "unknown")) {
		unknown(n);
	} else if (!strcmp(kind, "mapping")) {
		mappings(n);
	} else if (!strcmp(kind, "alloc")) {
		for (uint64_t i = 0; i < n / 2; i++) {
			uint64_t at = HEAP_AT + (i % (n / 4 + 1)) * 0x10000ULL;

			alloc(at, 65536, SITE + (i % 64) * 16, AP_ALLOC_MALLOC);
			alloc(at, 65536, SITE + (i % 64) * 16, AP_ALLOC_FREE);
		}
	} else if (!strcmp(kind, "sites")) {
		for (uint64_t i = 0; i < n / 2; i++) {
			alloc(HEAP_AT + i * 0x10000ULL, 65536, SITE + i * 16, AP_ALLOC_MALLOC);
			alloc(HEAP_AT + i * 0x10000ULL, 65536, SITE + i * 16, AP_ALLOC_FREE);
		}
	} else if (!strcmp(kind, "blocks")) {
		for (uint64_t i = 0; i < n / 2; i++)
			alloc(HEAP_AT + i * 0x10000ULL, 65536, SITE + (i % 64) * 16,
			      AP_ALLOC_MALLOC);
		for (uint64_t i = 0; i < n / 2; i++)
			alloc(HEAP_AT + i * 0x10000ULL, 65536, SITE, AP_ALLOC_FREE);
	} else if (!strcmp(kind, "marker")) {
		for (uint64_t r = 0; r < n / 8; r++) {
			marker(AP_EV_RUN_BEGIN, (int32_t)r, -1);
			for (int32_t op = 0; op < 3; op++) {
				marker(AP_EV_OP_BEGIN, (int32_t)r, op);
				marker(AP_EV_OP_END, (int32_t)r, op);
			}
			marker(AP_EV_RUN_END, (int32_t)r, -1);
		}
	} else if (!strcmp(kind, "sample")) {
		for (uint64_t i = 0; i < n; i++, inputs++)
			sample();
	} else if (!strcmp(kind, "note")) {
		char text[64];

		for (uint64_t i = 0; i < n; i++) {
			snprintf(text, sizeof(text), "note %" PRIu64, i);
			check(l.sink.note(l.sink.ctx, 0, ts++, text), "note");
			tick();
		}
	} else {
		fprintf(stderr, "scale_live: unknown kind '%s'\n", kind);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct ap_session sess = { .pid = 4242, .cmdline = "scale_live", .t_start_ns = ts };
	struct ap_tplan plan;
	char err[AP_ERR_LEN], *end;
	uint64_t n;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: scale_live KIND N [PLAN.tflite]\n");
		return 2;
	}
	n = strtoull(argv[2], &end, 10);
	if (*end || !n) {
		fprintf(stderr, "scale_live: N: a count above 0, not '%s'\n", argv[2]);
		return 2;
	}
	if (argc == 4 && ap_plan_load(argv[3], &plan, err)) {
		fprintf(stderr, "scale_live: %s\n", err);
		return 1;
	}
	if (ap_live_init(&l, &sess, argc == 4 ? &plan : NULL, argc == 4 ? argv[3] : NULL,
			 err)) {
		fprintf(stderr, "scale_live: %s\n", err);
		return 1;
	}
	order = calloc(l.n_ops + 1, sizeof(*order));
	check(!order, "calloc");
	feed(argv[1], n);
	sample();
	printf("inputs %" PRIu64 " samples %" PRIu64 " maps %u faults %" PRIu64 " held %" PRIu64
	       " callers %u alloc_bytes %" PRIu64 " runs %" PRIu64 " notes %" PRIu64 "\n", inputs,
	       l.generation, l.as.n_maps, l.faults, l.arena_held, l.n_callers, l.alloc_bytes,
	       l.runs_completed, l.notes);
	ap_live_free(&l);
	free(order);
	if (argc == 4)
		ap_tplan_free(&plan);
	return 0;
}
