// SPDX-License-Identifier: Apache-2.0
/* ring_event: ring buffer records into events (include/arenaprof/record/ring_event.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/record/ring_event.h"

int ap_ring_decoder_init(struct ap_ring_decoder *d, unsigned int n_cpus)
{
	d->n_cpus = n_cpus;
	d->last = calloc(n_cpus ? n_cpus : 1, sizeof(*d->last));
	return d->last ? 0 : -ENOMEM;
}

void ap_ring_decoder_free(struct ap_ring_decoder *d)
{
	free(d->last);
	d->last = NULL;
	d->n_cpus = 0;
}

int ap_ring_decode(struct ap_ring_decoder *d, const void *data, size_t size,
		   struct ap_event *ev)
{
	const struct ap_ring_event_ext *r = data;
	const struct ap_ring_event *k = &r->e;
	bool ext = size >= sizeof(*r);
	struct ap_ring_vma *last = k->cpu < d->n_cpus ? &d->last[k->cpu] : NULL;

	if (size < sizeof(*k))
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = k->ts_ns;
	ev->addr = k->addr;
	ev->ip = k->ip;
	ev->tid = k->tid;
	ev->type = k->type;
	ev->flags = k->flags;
	ev->run = k->run;
	ev->op = k->op;
	if (k->type == AP_EV_ALLOC) {
		if (ext) {
			ev->size = r->x.a;
			ev->align = r->x.b;
			ev->fn = r->x.c;
		}
		return 0;
	}
	if (k->type != AP_EV_FAULT || (ev->flags & AP_FF_VMA_UNKNOWN))
		return 0;
	if (ext) {
		ev->vm_start = r->x.a;
		ev->vm_end = r->x.b;
		ev->vm_flags = r->x.c;
		if (last)
			*last = (struct ap_ring_vma){ r->x.a, r->x.b, r->x.c };
	} else if (last) {
		ev->vm_start = last->start;
		ev->vm_end = last->end;
		ev->vm_flags = last->flags;
	} else {
		ev->flags |= AP_FF_VMA_UNKNOWN;
	}
	return 0;
}

int ap_ring_batch_len(const void *data, size_t size)
{
	const struct ap_ring_batch *b = data;
	size_t head = sizeof(b->h) + sizeof(b->x);

	if (size < sizeof(b->h) || b->h.type != AP_EV_FAULT_BATCH)
		return 0;
	if (size < head || b->h.pad > AP_RING_BATCH ||
	    size < head + b->h.pad * sizeof(b->f[0]))
		return -EINVAL;
	return (int)b->h.pad;
}

void ap_ring_decode_batch(const void *data, int i, struct ap_event *ev)
{
	const struct ap_ring_batch *b = data;
	const struct ap_ring_fault *f = &b->f[i];

	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = b->h.ts_ns + f->dt;
	ev->addr = f->addr;
	ev->ip = f->ip;
	ev->tid = b->h.tid;
	ev->type = AP_EV_FAULT;
	ev->flags = f->flags;
	ev->run = b->h.run;
	ev->op = b->h.op;
	if (ev->flags & AP_FF_VMA_UNKNOWN)
		return;
	ev->vm_start = b->x.a;
	ev->vm_end = b->x.b;
	ev->vm_flags = b->x.c;
}
