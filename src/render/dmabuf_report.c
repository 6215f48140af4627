// SPDX-License-Identifier: Apache-2.0
/* dmabuf_report: the accelerator half of report, text and JSON (dmabuf_report.h). */
#include <inttypes.h>
#include <stdio.h>

#include "arenaprof/kernel/dmabuf.h"
#include "arenaprof/render/dmabuf_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

static double at_s(const struct ap_analysis *a, uint64_t ts)
{
	return ts > a->hdr.clock_base_ns ? (double)(ts - a->hdr.clock_base_ns) / 1e9 : 0;
}

static void run_of(char *buf, size_t len, const struct ap_analysis *a, int64_t run)
{
	if (run < 0 && !a->runs_begun)
		snprintf(buf, len, "no run in the trace");
	else if (run < 0)
		snprintf(buf, len, "before the first run");
	else
		snprintf(buf, len, "in run %" PRId64, run);
}

/* The verdict's line: device memory, apart from the CPU halves. */
void ap_dmabuf_summary_text(FILE *f, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	char run[48];

	if (!d->samples)
		return;
	run_of(run, sizeof(run), a, d->peak_run);
	fprintf(f, "device     dma-bufs %s at their peak (%u buffer%s, %s of them mapped and "
		"resident) at %.2f s, %s: device memory (DMA heaps, CMA, DRM/GEM, udmabuf), "
		"apart from the anonymous and file-backed halves above\n", B(d->peak_bytes),
		d->peak_buffers, d->peak_buffers == 1 ? "" : "s", B(d->peak_mapped_rss),
		at_s(a, d->peak_ns), run);
	if (d->cma_total != AP_NO_VALUE)
		fprintf(f, "           CMA %s, carved out of the board's DRAM at boot: %s free "
			"at the lowest\n", B(d->cma_total), B(d->cma_free_min));
	else
		fprintf(f, "           no CMA on this kernel (CmaTotal absent); where a board "
			"has it, it is carved out of its DRAM at boot\n");
}

static void buf_line(FILE *f, const struct ap_dmabuf_seen_buf *b)
{
	const char *kind = ap_dmabuf_exporter_kind(b->exporter);

	fprintf(f, "  %10" PRIu64 " %10s%s %10s %10s %3u %4u  %-10s %-18s %s%s\n", b->inode,
		b->size ? B(b->size) : "?", b->flags & AP_DMABUF_F_SIZE_FROM_MAP ? "*" : " ",
		B(b->mapped_bytes), B(b->mapped_rss), b->fds, b->maps,
		b->exporter[0] ? TS(b->exporter) : "?", kind[0] ? kind : "-",
		b->name[0] ? TS(b->name) : "-", b->at_peak ? "" : "  (not held at the peak)");
}

void ap_dmabuf_report_text(FILE *f, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	bool from_map = false;
	char run[48];

	if (!d->samples)
		return;
	run_of(run, sizeof(run), a, d->peak_run);
	fprintf(f, "\ndma-bufs   peak %s in %u buffer%s at %.2f s (%s), %s mapped and resident "
		"then (at most %s); at the end %s in %u\n", B(d->peak_bytes), d->peak_buffers,
		d->peak_buffers == 1 ? "" : "s", at_s(a, d->peak_ns), run,
		B(d->peak_mapped_rss), B(d->max_mapped_rss), B(d->last_bytes), d->last_buffers);
	fprintf(f, "           source %s, sampled every %u ms with the other samples (a buffer "
		"held for less may be missed); %u samples that changed\n",
		ap_dmabuf_source_name(d->source), d->interval_ms, d->samples);
	if (d->cma_total != AP_NO_VALUE)
		fprintf(f, "           CMA %s total, %s free at the end, %s at the lowest\n",
			B(d->cma_total), B(d->cma_free), B(d->cma_free_min));
	if (d->sys_bytes_peak != AP_NO_VALUE)
		fprintf(f, "           every process's dma-bufs: %s at most (bpf_iter)\n",
			B(d->sys_bytes_peak));
	fprintf(f, "  %10s %11s %10s %10s %3s %4s  %-10s %-18s %s\n", "inode", "size",
		"mapped", "mapped rss", "fds", "maps", "exporter", "kind", "name");
	for (uint32_t i = 0; i < d->n; i++) {
		buf_line(f, &d->b[i]);
		from_map |= d->b[i].flags & AP_DMABUF_F_SIZE_FROM_MAP;
	}
	if (from_map)
		fprintf(f, "  * mapped only (no fd held) and no iterator: its size is its "
			"mappings', the buffer may be larger\n");
}

static void json_or_null(struct ap_json *j, const char *key, uint64_t v)
{
	if (v == AP_NO_VALUE)
		ap_json_null(j, key);
	else
		ap_json_u64(j, key, v);
}

void ap_dmabuf_report_json(struct ap_json *j, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;

	if (!d->samples)
		return;
	ap_json_obj(j, "dmabuf");
	ap_json_str(j, "source", ap_dmabuf_source_name(d->source));
	ap_json_u64(j, "interval_ms", d->interval_ms);
	ap_json_u64(j, "samples", d->samples);
	ap_json_u64(j, "peak_bytes", d->peak_bytes);
	ap_json_u64(j, "peak_at_ns", d->peak_ns > a->hdr.clock_base_ns ?
		    d->peak_ns - a->hdr.clock_base_ns : 0);
	ap_json_u64(j, "peak_monotonic_ns", d->peak_ns);	/* CLOCK_MONOTONIC, as sampled */
	if (d->peak_run >= 0)
		ap_json_i64(j, "peak_run", d->peak_run);
	else
		ap_json_null(j, "peak_run");
	ap_json_u64(j, "peak_buffers", d->peak_buffers);
	ap_json_u64(j, "peak_mapped_rss", d->peak_mapped_rss);
	ap_json_u64(j, "max_mapped_rss", d->max_mapped_rss);
	ap_json_u64(j, "end_bytes", d->last_bytes);
	ap_json_u64(j, "end_buffers", d->last_buffers);
	json_or_null(j, "cma_total", d->cma_total);
	json_or_null(j, "cma_free", d->cma_free);
	json_or_null(j, "cma_free_min", d->cma_free_min);
	json_or_null(j, "system_bytes_peak", d->sys_bytes_peak);
	ap_json_arr(j, "buffers");
	for (uint32_t i = 0; i < d->n; i++) {
		const struct ap_dmabuf_seen_buf *b = &d->b[i];

		ap_json_obj(j, NULL);
		ap_json_u64(j, "inode", b->inode);
		ap_json_str(j, "exporter", b->exporter);
		ap_json_str(j, "kind", ap_dmabuf_exporter_kind(b->exporter));
		ap_json_str(j, "name", b->name);
		ap_json_u64(j, "size", b->size);
		ap_json_bool(j, "size_from_map", b->flags & AP_DMABUF_F_SIZE_FROM_MAP);
		ap_json_u64(j, "mapped_bytes", b->mapped_bytes);
		ap_json_u64(j, "mapped_rss", b->mapped_rss);
		ap_json_u64(j, "fds", b->fds);
		ap_json_u64(j, "maps", b->maps);
		ap_json_bool(j, "at_peak", b->at_peak);
		ap_json_u64(j, "first_ns", b->first_ns - a->hdr.clock_base_ns);
		ap_json_u64(j, "last_ns", b->last_ns - a->hdr.clock_base_ns);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_end_obj(j);
}
