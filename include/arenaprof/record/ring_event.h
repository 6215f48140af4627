/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring_event: a record of the BPF ring buffer (struct ap_ring_event, perhaps with its
 * struct ap_ring_ext; event.h) made into the whole struct ap_event the sinks take, or a
 * batch of faults (struct ap_ring_batch) into one event each. Faults without an extension
 * share the vma the CPU's previous fault sent, kept here per CPU.
 */
#ifndef ARENAPROF_RECORD_RING_EVENT_H
#define ARENAPROF_RECORD_RING_EVENT_H

#include <stddef.h>

#include "arenaprof/event.h"

struct ap_ring_vma {
	__u64 start, end, flags;
};

struct ap_ring_decoder {
	struct ap_ring_vma *last;	/* per CPU: the vma its last fault sent */
	unsigned int n_cpus;
};

/* n_cpus: the possible CPUs (libbpf_num_possible_cpus). -ENOMEM without memory. */
int ap_ring_decoder_init(struct ap_ring_decoder *d, unsigned int n_cpus);
void ap_ring_decoder_free(struct ap_ring_decoder *d);
/*
 * One record of size bytes into ev; -EINVAL if it is shorter than a record. A fault that
 * shares the vma of a CPU this decoder does not know says AP_FF_VMA_UNKNOWN.
 */
int ap_ring_decode(struct ap_ring_decoder *d, const void *data, size_t size,
		   struct ap_event *ev);
/*
 * A batch of faults (struct ap_ring_batch): how many it holds, 0 for any other record,
 * -EINVAL for a batch cut short; then fault i (below that count) into ev.
 */
int ap_ring_batch_len(const void *data, size_t size);
void ap_ring_decode_batch(const void *data, int i, struct ap_event *ev);

#endif
