/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring_sizing: the BPF ring buffer's size, chosen from the fault rate measured on this
 * machine rather than fixed. A ring cannot grow once loaded, and what it must hold is
 * the faults that arrive while the reader is not running: the fastest a thread here can
 * take first-touch faults (measured in the recorder by touching fresh pages), times the
 * ring record, times AP_RING_BUDGET_MS of reader delay. Every byte of the ring is
 * resident in the recorder (twice mapped), so a slow board gets a small ring.
 */
#ifndef ARENAPROF_RECORD_RING_SIZING_H
#define ARENAPROF_RECORD_RING_SIZING_H

#include <stdint.h>

/*
 * 10 ms: the reader is woken at every eighth of the ring or sooner, so it may stay
 * unscheduled some 8 ms of a storm at the measured rate. The calibration's rate is about twice the
 * 1 GiB storm's (make bench), and that storm lost no event with rings down to 256 KiB
 * here, also with both CPUs kept busy (docs/trace-cost.md).
 */
#define AP_RING_BUDGET_MS 10
#define AP_RING_MIN (256u << 10)
#define AP_RING_MAX (64u << 20)

/* Faults a second one thread of this process takes on fresh anonymous pages: the
 * fastest of a few 1 MiB rounds (unmapped after). 0, or with err mmap's -errno, or -EIO
 * (the clock did not advance). */
int ap_ring_measure_fault_rate(double *faults_per_s, char *err);
/* The ring for that rate: a power of 2 in [AP_RING_MIN, AP_RING_MAX]. */
uint32_t ap_ring_bytes_for_rate(double faults_per_s);

#endif
