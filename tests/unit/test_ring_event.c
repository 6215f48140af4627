// SPDX-License-Identifier: Apache-2.0
/*
 * ring_event (src/record/ring_event.c): ring buffer records into events. A fault without
 * an extension takes the vma its CPU's last fault sent, never another CPU's; an unknown vma
 * or an unknown CPU stays unknown; allocations take their extension; short records are
 * refused; a batch of faults is read whole, and refused when cut short.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/record/ring_event.h"
#include "test.h"

static struct ap_ring_event_ext rec(uint16_t type, uint32_t cpu, uint64_t addr, uint16_t flags,
				    uint64_t a, uint64_t b, uint64_t c)
{
	struct ap_ring_event_ext r = {
		.e = { .ts_ns = addr + 1, .addr = addr, .ip = 0x401000, .tid = 7, .run = 2,
		       .op = -1, .cpu = cpu, .type = type, .flags = flags },
		.x = { a, b, c },
	};

	return r;
}

/* A batch: every fault its own address, ip, time and flags, the header's thread, run, op
 * and vma; an unknown vma stays unknown; a batch cut short or overfull is refused. */
static void check_batch(void)
{
	static struct ap_ring_batch b;
	size_t head = sizeof(b.h) + sizeof(b.x);
	struct ap_event ev;
	int bad = 0, n;

	b.h = (struct ap_ring_event){ .ts_ns = 5000, .tid = 9, .run = 3, .op = 12, .cpu = 1,
				      .type = AP_EV_FAULT_BATCH, .pad = 3 };
	b.x = (struct ap_ring_ext){ 0x7f0000000000, 0x7f0000100000, 0x73 };
	for (int i = 0; i < 3; i++)
		b.f[i] = (struct ap_ring_fault){ .addr = 0x7f0000000000ull + 4096u * (unsigned)i,
						 .ip = 0x401000 + (unsigned)i, .dt = 10u * (unsigned)i,
						 .flags = AP_FF_VMA_ANON | AP_FF_WRITE };
	b.f[2].flags = AP_FF_VMA_UNKNOWN;
	n = ap_ring_batch_len(&b, head + 3 * sizeof(b.f[0]));
	for (int i = 0; i < n; i++) {
		ap_ring_decode_batch(&b, i, &ev);
		bad += ev.type != AP_EV_FAULT || ev.addr != 0x7f0000000000ull + 4096u * (unsigned)i ||
		       ev.ip != 0x401000 + (unsigned)i || ev.ts_ns != 5000 + 10u * (unsigned)i ||
		       ev.tid != 9 || ev.run != 3 || ev.op != 12;
		if (i < 2)
			bad += ev.vm_start != 0x7f0000000000 || ev.vm_end != 0x7f0000100000 ||
			       ev.vm_flags != 0x73 || ev.flags != (AP_FF_VMA_ANON | AP_FF_WRITE);
		else
			bad += ev.vm_start || ev.vm_end || ev.flags != AP_FF_VMA_UNKNOWN;
	}
	CHECK("ring_event: a batch's faults, each with the header's thread, run, op and vma",
	      n == 3 && !bad, "%d faults, %d wrong", n, bad);
	n = ap_ring_batch_len(&b, head + 2 * sizeof(b.f[0]));
	b.h.pad = AP_RING_BATCH + 1;
	CHECK("ring_event: a batch cut short, or holding more than a batch can, is refused",
	      n == -EINVAL && ap_ring_batch_len(&b, sizeof(b)) == -EINVAL, "accepted");
}

int main(void)
{
	struct ap_ring_decoder d;
	struct ap_ring_event_ext r;
	struct ap_event ev;
	int rc, bad = 0;

	if (ap_ring_decoder_init(&d, 2)) {
		CHECK("ring_event: init", 0, "out of memory");
		TEST_EXIT();
	}
	/* CPU 0 sends vma A, CPU 1 vma B; then each CPU's faults share its own */
	r = rec(AP_EV_FAULT, 0, 0x1000, AP_FF_VMA_ANON, 0x1000, 0x9000, 0x73);
	rc = ap_ring_decode(&d, &r, sizeof(r), &ev);
	bad += rc || ev.vm_start != 0x1000 || ev.vm_end != 0x9000 || ev.vm_flags != 0x73 ||
	       ev.ts_ns != 0x1001 || ev.tid != 7 || ev.run != 2 || ev.op != -1 ||
	       ev.flags != AP_FF_VMA_ANON || ev.ip != 0x401000;
	r = rec(AP_EV_FAULT, 1, 0x20000, AP_FF_VMA_FILE, 0x20000, 0x30000, 0x75);
	bad += ap_ring_decode(&d, &r, sizeof(r), &ev) || ev.vm_start != 0x20000;
	r = rec(AP_EV_FAULT, 0, 0x2000, AP_FF_VMA_ANON, 0xdead, 0xdead, 0xdead);
	rc = ap_ring_decode(&d, &r, sizeof(r.e), &ev);
	bad += rc || ev.addr != 0x2000 || ev.vm_start != 0x1000 || ev.vm_end != 0x9000 ||
	       ev.vm_flags != 0x73;
	r = rec(AP_EV_FAULT, 1, 0x21000, AP_FF_VMA_FILE, 0, 0, 0);
	rc = ap_ring_decode(&d, &r, sizeof(r.e), &ev);
	bad += rc || ev.vm_start != 0x20000 || ev.vm_end != 0x30000 || ev.vm_flags != 0x75;
	CHECK("ring_event: a fault without extension shares its own CPU's last vma", !bad,
	      "%d wrong", bad);

	/* an unknown vma: none, and the CPU's last is kept */
	r = rec(AP_EV_FAULT, 0, 0x5000, AP_FF_VMA_UNKNOWN, 0, 0, 0);
	rc = ap_ring_decode(&d, &r, sizeof(r), &ev);
	bad = rc || ev.vm_start || ev.vm_end || !(ev.flags & AP_FF_VMA_UNKNOWN);
	r = rec(AP_EV_FAULT, 0, 0x3000, AP_FF_VMA_ANON, 0, 0, 0);
	rc = ap_ring_decode(&d, &r, sizeof(r.e), &ev);
	bad += rc || ev.vm_start != 0x1000;
	/* a CPU past the decoder's: unknown, not a read past its table */
	r = rec(AP_EV_FAULT, 9, 0x3000, AP_FF_VMA_ANON, 0, 0, 0);
	rc = ap_ring_decode(&d, &r, sizeof(r.e), &ev);
	bad += rc || ev.vm_start || !(ev.flags & AP_FF_VMA_UNKNOWN);
	CHECK("ring_event: an unknown vma, or an unknown CPU's, stays unknown", !bad,
	      "%d wrong", bad);

	/* an allocation: size, align, fn from its extension; it is no vma */
	r = rec(AP_EV_ALLOC, 0, 0x7f0000000040, 0, 1655872, 64, AP_ALLOC_ALIGNED_ALLOC);
	rc = ap_ring_decode(&d, &r, sizeof(r), &ev);
	bad = rc || ev.size != 1655872 || ev.align != 64 || ev.fn != AP_ALLOC_ALIGNED_ALLOC ||
	      ev.addr != 0x7f0000000040;
	r = rec(AP_EV_FAULT, 0, 0x4000, AP_FF_VMA_ANON, 0, 0, 0);
	rc = ap_ring_decode(&d, &r, sizeof(r.e), &ev);
	bad += rc || ev.vm_start != 0x1000;
	/* a marker: its fields, no vma */
	r = rec(AP_EV_OP_BEGIN, 1, 0, 0, 0, 0, 0);
	r.e.op = 17;
	rc = ap_ring_decode(&d, &r, sizeof(r.e), &ev);
	bad += rc || ev.type != AP_EV_OP_BEGIN || ev.op != 17 || ev.vm_start;
	CHECK("ring_event: allocations and markers", !bad, "%d wrong", bad);

	CHECK("ring_event: a record shorter than the base is refused",
	      ap_ring_decode(&d, &r, sizeof(r.e) - 1, &ev) == -EINVAL, "accepted");
	CHECK("ring_event: a single record is no batch", ap_ring_batch_len(&r, sizeof(r)) == 0,
	      "taken for one");
	check_batch();
	ap_ring_decoder_free(&d);
	TEST_EXIT();
}
