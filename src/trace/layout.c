// SPDX-License-Identifier: Apache-2.0
/*
 * layout: the trace file's layout (man arenaprof-trace(5)), checked at compile time, and
 * the helpers the writer and the reader share (layout.h).
 */
#include <byteswap.h>
#include <stddef.h>
#include <string.h>

#include "arenaprof/trace/crc32.h"
#include "layout.h"

/*
 * The payload structs are the file layout: naturally aligned fields, no implicit padding,
 * so their bytes are the record's bytes on a little-endian host.
 */
#define AP_LAYOUT(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " moved")

_Static_assert(sizeof(AP_TRACE_MAGIC) == 9, "magic is 8 bytes and a NUL");
_Static_assert(sizeof(struct ap_rec_header) == 32, "ap_rec_header size");
AP_LAYOUT(ap_rec_header, page_size, 0);
AP_LAYOUT(ap_rec_header, flags, 4);
AP_LAYOUT(ap_rec_header, clock_base_ns, 8);
AP_LAYOUT(ap_rec_header, realtime_base_ns, 16);
AP_LAYOUT(ap_rec_header, pid, 24);
AP_LAYOUT(ap_rec_header, pad, 28);
_Static_assert(sizeof(struct ap_rec_fault) == 64, "ap_rec_fault size");
AP_LAYOUT(ap_rec_fault, ts_ns, 0);
AP_LAYOUT(ap_rec_fault, addr, 8);
AP_LAYOUT(ap_rec_fault, ip, 16);
AP_LAYOUT(ap_rec_fault, vm_start, 24);
AP_LAYOUT(ap_rec_fault, vm_end, 32);
AP_LAYOUT(ap_rec_fault, vm_flags, 40);
AP_LAYOUT(ap_rec_fault, tid, 48);
AP_LAYOUT(ap_rec_fault, flags, 52);
AP_LAYOUT(ap_rec_fault, run, 56);
AP_LAYOUT(ap_rec_fault, op, 60);
_Static_assert(sizeof(struct ap_rec_mapping) == 56, "ap_rec_mapping size");
AP_LAYOUT(ap_rec_mapping, ts_ns, 0);
AP_LAYOUT(ap_rec_mapping, start, 8);
AP_LAYOUT(ap_rec_mapping, end, 16);
AP_LAYOUT(ap_rec_mapping, offset, 24);
AP_LAYOUT(ap_rec_mapping, inode, 32);
AP_LAYOUT(ap_rec_mapping, snapshot, 40);
AP_LAYOUT(ap_rec_mapping, prot, 44);
AP_LAYOUT(ap_rec_mapping, dev_major, 48);
AP_LAYOUT(ap_rec_mapping, dev_minor, 52);
_Static_assert(sizeof(struct ap_rec_marker) == 24, "ap_rec_marker size");
AP_LAYOUT(ap_rec_marker, ts_ns, 0);
AP_LAYOUT(ap_rec_marker, tid, 8);
AP_LAYOUT(ap_rec_marker, run, 12);
AP_LAYOUT(ap_rec_marker, op, 16);
AP_LAYOUT(ap_rec_marker, pad, 20);
_Static_assert(sizeof(struct ap_rec_sample) == 160, "ap_rec_sample size");
AP_LAYOUT(ap_rec_sample, ts_ns, 0);
AP_LAYOUT(ap_rec_sample, vm_rss, 8);
AP_LAYOUT(ap_rec_sample, vm_hwm, 16);
AP_LAYOUT(ap_rec_sample, rss_anon, 24);
AP_LAYOUT(ap_rec_sample, rss_file, 32);
AP_LAYOUT(ap_rec_sample, rss_shmem, 40);
AP_LAYOUT(ap_rec_sample, rss, 48);
AP_LAYOUT(ap_rec_sample, pss, 56);
AP_LAYOUT(ap_rec_sample, pss_anon, 64);
AP_LAYOUT(ap_rec_sample, pss_file, 72);
AP_LAYOUT(ap_rec_sample, pss_shmem, 80);
AP_LAYOUT(ap_rec_sample, anonymous, 88);
AP_LAYOUT(ap_rec_sample, anon_huge, 96);
AP_LAYOUT(ap_rec_sample, swap, 104);
AP_LAYOUT(ap_rec_sample, cg_current, 112);
AP_LAYOUT(ap_rec_sample, cg_peak, 120);
AP_LAYOUT(ap_rec_sample, psi_some_avg10, 128);
AP_LAYOUT(ap_rec_sample, psi_full_avg10, 136);
AP_LAYOUT(ap_rec_sample, psi_some_total, 144);
AP_LAYOUT(ap_rec_sample, psi_full_total, 152);
_Static_assert(sizeof(struct ap_rec_drops) == 40, "ap_rec_drops size");
AP_LAYOUT(ap_rec_drops, ts_ns, 0);
AP_LAYOUT(ap_rec_drops, events, 8);
AP_LAYOUT(ap_rec_drops, ringbuf_drops, 16);
AP_LAYOUT(ap_rec_drops, vma_misses, 24);
AP_LAYOUT(ap_rec_drops, retries, 32);
_Static_assert(sizeof(struct ap_rec_note) == 16, "ap_rec_note size");
AP_LAYOUT(ap_rec_note, ts_ns, 0);
AP_LAYOUT(ap_rec_note, level, 8);
AP_LAYOUT(ap_rec_note, pad, 12);
_Static_assert(sizeof(struct ap_rec_resident) == 32, "ap_rec_resident size");
AP_LAYOUT(ap_rec_resident, ts_ns, 0);
AP_LAYOUT(ap_rec_resident, start, 8);
AP_LAYOUT(ap_rec_resident, end, 16);
AP_LAYOUT(ap_rec_resident, present, 24);
_Static_assert(sizeof(struct ap_rec_end) == 24, "ap_rec_end size");
AP_LAYOUT(ap_rec_end, ts_ns, 0);
AP_LAYOUT(ap_rec_end, reason, 8);
AP_LAYOUT(ap_rec_end, exit_status, 12);
AP_LAYOUT(ap_rec_end, term_signal, 16);
AP_LAYOUT(ap_rec_end, runs, 20);
_Static_assert(sizeof(struct ap_rec_alloc) == 56, "ap_rec_alloc size");
AP_LAYOUT(ap_rec_alloc, ts_ns, 0);
AP_LAYOUT(ap_rec_alloc, ptr, 8);
AP_LAYOUT(ap_rec_alloc, size, 16);
AP_LAYOUT(ap_rec_alloc, align, 24);
AP_LAYOUT(ap_rec_alloc, caller, 32);
AP_LAYOUT(ap_rec_alloc, tid, 40);
AP_LAYOUT(ap_rec_alloc, fn, 44);
AP_LAYOUT(ap_rec_alloc, run, 48);
AP_LAYOUT(ap_rec_alloc, pad, 52);
AP_LAYOUT(ap_rec_dmabuf, bytes, 8);
AP_LAYOUT(ap_rec_dmabuf, sys_bytes, 40);
AP_LAYOUT(ap_rec_dmabuf, buffers, 48);
AP_LAYOUT(ap_rec_dmabuf, sys_buffers, 60);
AP_LAYOUT(ap_rec_dmabuf, events, 64);
_Static_assert(sizeof(struct ap_rec_dmabuf) == 72, "ap_rec_dmabuf size");
AP_LAYOUT(ap_rec_dmabuf_buf, inode, 8);
AP_LAYOUT(ap_rec_dmabuf_buf, mapped_rss, 32);
AP_LAYOUT(ap_rec_dmabuf_buf, fds, 40);
AP_LAYOUT(ap_rec_dmabuf_buf, pad, 52);
AP_LAYOUT(ap_rec_dmabuf_buf, exporter, 56);
AP_LAYOUT(ap_rec_dmabuf_buf, name, 88);
_Static_assert(sizeof(struct ap_rec_dmabuf_buf) == 120, "ap_rec_dmabuf_buf size");
AP_LAYOUT(ap_rec_run_obj, obj, 8);
AP_LAYOUT(ap_rec_run_obj, run, 16);
AP_LAYOUT(ap_rec_run_obj, tid, 20);
_Static_assert(sizeof(struct ap_rec_run_obj) == 24, "ap_rec_run_obj size");
AP_LAYOUT(ap_rec_dmabuf_ev, kind, 24);
AP_LAYOUT(ap_rec_dmabuf_ev, method, 32);
AP_LAYOUT(ap_rec_dmabuf_ev, exporter, 40);
_Static_assert(sizeof(struct ap_rec_dmabuf_ev) == 72, "ap_rec_dmabuf_ev size");
_Static_assert(AP_TRACE_MAX_PAYLOAD < UINT32_MAX - AP_TRACE_REC_HDR_LEN, "payload bound");

/*
 * Payload fields are swapped on a big-endian host. AP_TRACE_SWAP can be forced to 1 to
 * exercise that path on a little-endian one (the payload fields, not the headers, then
 * come out byte-reversed).
 */



/* The size of the struct at the start of a payload of this type; 0 for unknown types. */
size_t ap_trace_fixed_size(uint32_t type)
{
	switch (type) {
	case AP_REC_HEADER:
		return sizeof(struct ap_rec_header);
	case AP_REC_FAULT:
		return sizeof(struct ap_rec_fault);
	case AP_REC_MAPPING:
		return sizeof(struct ap_rec_mapping);
	case AP_REC_RUN_BEGIN:
	case AP_REC_RUN_END:
	case AP_REC_OP_BEGIN:
	case AP_REC_OP_END:
		return sizeof(struct ap_rec_marker);
	case AP_REC_SAMPLE:
		return sizeof(struct ap_rec_sample);
	case AP_REC_DROPS:
		return sizeof(struct ap_rec_drops);
	case AP_REC_NOTE:
		return sizeof(struct ap_rec_note);
	case AP_REC_RESIDENT:
		return sizeof(struct ap_rec_resident);
	case AP_REC_END:
		return sizeof(struct ap_rec_end);
	case AP_REC_ALLOC:
		return sizeof(struct ap_rec_alloc);
	case AP_REC_DMABUF:
		return sizeof(struct ap_rec_dmabuf);
	case AP_REC_DMABUF_BUF:
		return sizeof(struct ap_rec_dmabuf_buf);
	case AP_REC_RUN_OBJ:
		return sizeof(struct ap_rec_run_obj);
	case AP_REC_DMABUF_EV:
		return sizeof(struct ap_rec_dmabuf_ev);
	default:
		return 0;
	}
}

#define SW32(x) ((x) = (__typeof__(x))bswap_32((uint32_t)(x)))
#define SW64(x) ((x) = bswap_64(x))

/* Reverses the bytes of every field of a payload struct (both directions). */
void ap_trace_swap_fields(uint32_t type, union ap_payload *u)
{
	size_t i;

	switch (type) {
	case AP_REC_HEADER:
		SW32(u->header.page_size);
		SW32(u->header.flags);
		SW64(u->header.clock_base_ns);
		SW64(u->header.realtime_base_ns);
		SW32(u->header.pid);
		SW32(u->header.pad);
		break;
	case AP_REC_FAULT:
		SW64(u->fault.ts_ns);
		SW64(u->fault.addr);
		SW64(u->fault.ip);
		SW64(u->fault.vm_start);
		SW64(u->fault.vm_end);
		SW64(u->fault.vm_flags);
		SW32(u->fault.tid);
		SW32(u->fault.flags);
		SW32(u->fault.run);
		SW32(u->fault.op);
		break;
	case AP_REC_MAPPING:
		SW64(u->mapping.ts_ns);
		SW64(u->mapping.start);
		SW64(u->mapping.end);
		SW64(u->mapping.offset);
		SW64(u->mapping.inode);
		SW32(u->mapping.snapshot);
		SW32(u->mapping.prot);
		SW32(u->mapping.dev_major);
		SW32(u->mapping.dev_minor);
		break;
	case AP_REC_RUN_BEGIN:
	case AP_REC_RUN_END:
	case AP_REC_OP_BEGIN:
	case AP_REC_OP_END:
		SW64(u->marker.ts_ns);
		SW32(u->marker.tid);
		SW32(u->marker.run);
		SW32(u->marker.op);
		SW32(u->marker.pad);
		break;
	case AP_REC_SAMPLE:
		/* twenty u64: ts_ns and the counters */
		for (i = 0; i < sizeof(u->sample) / 8; i++) {
			uint64_t v;

			memcpy(&v, (char *)&u->sample + 8 * i, 8);
			SW64(v);
			memcpy((char *)&u->sample + 8 * i, &v, 8);
		}
		break;
	case AP_REC_DROPS:
		SW64(u->drops.ts_ns);
		SW64(u->drops.events);
		SW64(u->drops.ringbuf_drops);
		SW64(u->drops.vma_misses);
		SW64(u->drops.retries);
		break;
	case AP_REC_NOTE:
		SW64(u->note.ts_ns);
		SW32(u->note.level);
		SW32(u->note.pad);
		break;
	case AP_REC_RESIDENT:
		SW64(u->resident.ts_ns);
		SW64(u->resident.start);
		SW64(u->resident.end);
		SW64(u->resident.present);
		break;
	case AP_REC_END:
		SW64(u->end.ts_ns);
		SW32(u->end.reason);
		SW32(u->end.exit_status);
		SW32(u->end.term_signal);
		SW32(u->end.runs);
		break;
	case AP_REC_ALLOC:
		SW64(u->alloc.ts_ns);
		SW64(u->alloc.ptr);
		SW64(u->alloc.size);
		SW64(u->alloc.align);
		SW64(u->alloc.caller);
		SW32(u->alloc.tid);
		SW32(u->alloc.fn);
		SW32(u->alloc.run);
		SW32(u->alloc.pad);
		break;
	case AP_REC_DMABUF:
		for (i = 0; i < 6; i++)
			SW64((&u->dmabuf.ts_ns)[i]);
		SW32(u->dmabuf.buffers);
		SW32(u->dmabuf.source);
		SW32(u->dmabuf.interval_ms);
		SW32(u->dmabuf.sys_buffers);
		SW32(u->dmabuf.events);
		SW32(u->dmabuf.pad);
		break;
	case AP_REC_DMABUF_BUF:
		for (i = 0; i < 5; i++)
			SW64((&u->dmabuf_buf.ts_ns)[i]);
		SW32(u->dmabuf_buf.fds);
		SW32(u->dmabuf_buf.maps);
		SW32(u->dmabuf_buf.flags);
		SW32(u->dmabuf_buf.pad);
		break;	/* the names are bytes */
	case AP_REC_RUN_OBJ:
		SW64(u->run_obj.ts_ns);
		SW64(u->run_obj.obj);
		SW32(u->run_obj.run);
		SW32(u->run_obj.tid);
		break;
	case AP_REC_DMABUF_EV:
		for (i = 0; i < 3; i++)
			SW64((&u->dmabuf_ev.ts_ns)[i]);
		SW32(u->dmabuf_ev.kind);
		SW32(u->dmabuf_ev.tid);
		SW32(u->dmabuf_ev.method);
		SW32(u->dmabuf_ev.pad);
		break;	/* the name is bytes */
	}
}

_Static_assert(sizeof(struct ap_rec_sample) % 8 == 0, "ap_rec_sample is all u64");

/* Converts the struct part (the first n bytes) of a payload between host and file order. */
void ap_trace_swap_payload(uint32_t type, uint8_t *p, size_t n)
{
	union ap_payload u;

	if (!AP_TRACE_SWAP || !n)
		return;
	memset(&u, 0, sizeof(u));
	memcpy(&u, p, n);
	ap_trace_swap_fields(type, &u);
	memcpy(p, &u, n);
}

void ap_le32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

uint32_t ap_le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint32_t ap_trace_crc_add(uint32_t crc, const void *p, size_t n)
{
	if (!n)
		return crc;
	return ap_crc32(crc, p, n);
}
