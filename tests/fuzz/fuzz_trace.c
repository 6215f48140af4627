// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the trace reader: any input, read from memory through a stream,
 * must open and read to its end or fail with a one-line message, never crash, leak, hang
 * or read outside what it was given. What the reader returns must keep its promises:
 * bounded lengths, a NUL after every payload, known record types only, header strings.
 * Built and run by tests/fuzz/run-fuzz.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/trace/trace.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a consumer does with a record: copy its struct, read its string. */
static void use(const struct ap_trace_rec *rec)
{
	static const size_t sizes[] = { 0, 8, 16, 24, 32, 56, 64, 120, 160, 4096 };
	union {
		struct ap_rec_sample s;
		uint8_t big[4096];
	} u;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const char *s;

		ap_trace_get(rec, &u, sizes[i]);
		s = ap_trace_str(rec, sizes[i]);
		if (strlen(s) >= rec->len + 1u)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[AP_ERR_LEN];
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	uint64_t end;
	FILE *f;
	int rc, i;

	/* fmemopen wants a size; an empty input reads as /dev/null */
	f = size ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
	if (!f)
		return 0;
	err[0] = 0;
	if (ap_trace_open_stream(&r, f, "fuzz", err)) {
		if (!fuzz_one_line(err) || r.f || r.buf || r.strings[AP_HS_ARCH])
			__builtin_trap();
		return 0;
	}
	for (i = 0; i < 6; i++) {
		if (!r.strings[i])
			__builtin_trap();
	}
	if (r.version < 1 || r.version > AP_TRACE_VERSION || r.offset > size)
		__builtin_trap();
	for (;;) {
		uint64_t before = r.offset;

		rc = ap_trace_next(&r, &rec, err);
		if (rc != 1)
			break;
		/* an unpacked entry comes from a PACKED record read whole: at or before offset */
		if (rec.len > AP_TRACE_MAX_PAYLOAD || rec.type < 1 || rec.type == AP_REC_PACKED ||
		    rec.type > AP_REC_MAX ||
		    rec.payload[rec.len] != 0 || r.offset > size || r.offset < before ||
		    (!rec.packed && r.offset - before < AP_TRACE_REC_HDR_LEN + (uint64_t)rec.len))
			__builtin_trap();
		use(&rec);
	}
	end = r.offset;
	if (rc == -1 && !fuzz_one_line(err))
		__builtin_trap();
	/* a clean end is the end of the input; a truncated one stops short of it */
	if (rc == 0 && (r.truncated ? end >= size : end != size))
		__builtin_trap();
	/* the end is sticky */
	if (ap_trace_next(&r, &rec, err) != rc)
		__builtin_trap();
	ap_trace_reader_close(&r);
	return 0;
}
