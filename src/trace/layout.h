/* SPDX-License-Identifier: Apache-2.0 */
/*
 * layout: what the trace writer and reader share (layout.c): the records' byte order, the
 * size of each payload's struct, the record header's fields and their crc. Private to
 * src/trace/.
 */
#ifndef ARENAPROF_TRACE_LAYOUT_H
#define ARENAPROF_TRACE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "arenaprof/trace/trace.h"

#ifndef AP_TRACE_SWAP
#define AP_TRACE_SWAP (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
#endif

union ap_payload {
	struct ap_rec_header header;
	struct ap_rec_fault fault;
	struct ap_rec_mapping mapping;
	struct ap_rec_marker marker;
	struct ap_rec_sample sample;
	struct ap_rec_drops drops;
	struct ap_rec_note note;
	struct ap_rec_resident resident;
	struct ap_rec_end end;
	struct ap_rec_alloc alloc;
	struct ap_rec_dmabuf dmabuf;
	struct ap_rec_dmabuf_buf dmabuf_buf;
	struct ap_rec_run_obj run_obj;
	struct ap_rec_dmabuf_ev dmabuf_ev;
};

/* The size of the struct at the start of a payload of this type; 0 for unknown types. */
size_t ap_trace_fixed_size(uint32_t type);
/* Swaps the fields of a payload's struct, in place (AP_TRACE_SWAP hosts). */
void ap_trace_swap_fields(uint32_t type, union ap_payload *u);
/* Converts the struct part (the first n bytes) of a payload between host and file order. */
void ap_trace_swap_payload(uint32_t type, uint8_t *p, size_t n);
void ap_le32_put(uint8_t *p, uint32_t v);
uint32_t ap_le32_get(const uint8_t *p);
/* ap_crc32 that takes 0 bytes as nothing to add. */
uint32_t ap_trace_crc_add(uint32_t crc, const void *p, size_t n);

#endif
