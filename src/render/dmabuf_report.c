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

static bool started(const struct ap_analysis *a)
{
	return a->hdr.flags & AP_HDR_STARTED;
}

bool ap_dmabuf_device(const struct ap_analysis *a, struct ap_dmabuf_peak *p)
{
	ap_dmabuf_seen_device(&a->dmabuf, started(a), p);
	return ap_dmabuf_seen_any(&a->dmabuf);
}

/* The verdict's line: device memory, apart from the CPU halves. */
void ap_dmabuf_summary_text(FILE *f, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	struct ap_dmabuf_peak p;
	char run[48], how[64];

	if (!ap_dmabuf_device(a, &p))
		return;
	run_of(run, sizeof(run), a, p.run);
	if (p.events)
		snprintf(how, sizeof(how), "exported and not yet freed");
	else
		snprintf(how, sizeof(how), "%s of them mapped and resident",
			 B(d->peak_mapped_rss));
	fprintf(f, "device     dma-bufs %s at their peak (%u buffer%s, %s) at %.*f s, %s, %s: "
		"device memory (DMA heaps, CMA, DRM/GEM, udmabuf), apart from the anonymous and "
		"file-backed halves above\n", B(p.bytes), p.buffers, p.buffers == 1 ? "" : "s",
		how, p.events ? 3 : 2, at_s(a, p.ns), run,
		p.events ? "by the export and release events" : "by the samples");
	if (!d->samples)
		return;	/* no poll read CMA */
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
	char note[80] = "";

	if (!b->sampled && b->released)
		snprintf(note, sizeof(note), "  (no sample saw it: held %.3f ms)",
			 (double)(b->release_ns - b->export_ns) / 1e6);
	else if (!b->sampled)
		snprintf(note, sizeof(note), "  (no sample saw it: not freed by the target)");
	else if (!b->at_peak)
		snprintf(note, sizeof(note), "  (not held at the peak)");
	fprintf(f, "  %10" PRIu64 " %10s%s %10s %10s %3u %4u  %-10s %-18s %s%s\n", b->inode,
		b->size ? B(b->size) : "?", b->flags & AP_DMABUF_F_SIZE_FROM_MAP ? "*" : " ",
		B(b->mapped_bytes), B(b->mapped_rss), b->fds, b->maps,
		b->exporter[0] ? TS(b->exporter) : "?", kind[0] ? kind : "-",
		b->name[0] ? TS(b->name) : "-", note);
}

/* The samples' lines: what was held, its source and rate, CMA and the system's. */
static void samples_text(FILE *f, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	char run[48];

	if (!d->samples) {
		fprintf(f, "\ndma-bufs   no sample held any: each buffer was freed before the next "
			"sample\n");
		return;
	}
	run_of(run, sizeof(run), a, d->peak_run);
	fprintf(f, "\ndma-bufs   peak %s in %u buffer%s at %.2f s (%s), %s mapped and resident "
		"then (at most %s); at the end %s in %u\n", B(d->peak_bytes), d->peak_buffers,
		d->peak_buffers == 1 ? "" : "s", at_s(a, d->peak_ns), run,
		B(d->peak_mapped_rss), B(d->max_mapped_rss), B(d->last_bytes), d->last_buffers);
	fprintf(f, "           source %s, sampled every %u ms with the other samples%s; %u "
		"samples that changed\n", ap_dmabuf_source_name(d->source), d->interval_ms,
		d->ev_method ? "" : " (no events: a buffer held for less may be missed)",
		d->samples);
	if (d->cma_total != AP_NO_VALUE)
		fprintf(f, "           CMA %s total, %s free at the end, %s at the lowest\n",
			B(d->cma_total), B(d->cma_free), B(d->cma_free_min));
	if (d->sys_bytes_peak != AP_NO_VALUE)
		fprintf(f, "           every process's dma-bufs: %s at most (bpf_iter)\n",
			B(d->sys_bytes_peak));
}

/* The events' line: exports and releases at their times, the live bytes' peak. */
static void events_text(FILE *f, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	char run[48];

	if (!d->ev_method)
		return;
	run_of(run, sizeof(run), a, d->ev_peak_run);
	fprintf(f, "           events %s: %u exported by the target, %u of them released; "
		"exported and not freed: peak %s in %u at %.3f s (%s), %s at the end; %u no "
		"sample saw\n", ap_dmabuf_events_name(d->ev_method), d->ev_exports,
		d->ev_releases, B(d->ev_peak_bytes), d->ev_peak_buffers, at_s(a, d->ev_peak_ns),
		run, B(d->ev_live_bytes), d->ev_unsampled);
}

void ap_dmabuf_report_text(FILE *f, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	bool from_map = false;

	if (!ap_dmabuf_seen_any(d))
		return;
	samples_text(f, a);
	events_text(f, a);
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

/* A time in the trace (ns since its start), null when the event did not happen. */
static void json_at(struct ap_json *j, const struct ap_analysis *a, const char *key, bool had,
		    uint64_t ts)
{
	if (!had)
		ap_json_null(j, key);
	else
		ap_json_u64(j, key, ts > a->hdr.clock_base_ns ? ts - a->hdr.clock_base_ns : 0);
}

static void json_run(struct ap_json *j, const char *key, int64_t run)
{
	if (run >= 0)
		ap_json_i64(j, key, run);
	else
		ap_json_null(j, key);
}

static void json_events(struct ap_json *j, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;

	if (!d->ev_method) {
		ap_json_null(j, "events");
		return;
	}
	ap_json_obj(j, "events");
	ap_json_str(j, "method", ap_dmabuf_events_name(d->ev_method));
	ap_json_u64(j, "exported", d->ev_exports);
	ap_json_u64(j, "released", d->ev_releases);
	ap_json_u64(j, "peak_bytes", d->ev_peak_bytes);
	ap_json_u64(j, "peak_buffers", d->ev_peak_buffers);
	json_at(j, a, "peak_at_ns", d->ev_exports, d->ev_peak_ns);
	ap_json_u64(j, "peak_monotonic_ns", d->ev_peak_ns);
	json_run(j, "peak_run", d->ev_peak_run);
	ap_json_u64(j, "end_bytes", d->ev_live_bytes);
	ap_json_u64(j, "end_buffers", d->ev_live);
	ap_json_u64(j, "unsampled", d->ev_unsampled);
	ap_json_end_obj(j);
}

static void json_buf(struct ap_json *j, const struct ap_analysis *a,
		     const struct ap_dmabuf_seen_buf *b)
{
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
	ap_json_bool(j, "sampled", b->sampled);
	json_at(j, a, "first_ns", b->sampled, b->first_ns);
	json_at(j, a, "last_ns", b->sampled, b->last_ns);
	json_at(j, a, "exported_ns", b->exported, b->export_ns);
	json_at(j, a, "released_ns", b->released, b->release_ns);
	ap_json_bool(j, "at_events_peak", b->at_ev_peak);
	ap_json_end_obj(j);
}

void ap_dmabuf_report_json(struct ap_json *j, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	struct ap_dmabuf_peak p;

	if (!ap_dmabuf_device(a, &p))
		return;
	ap_json_obj(j, "dmabuf");
	ap_json_u64(j, "device_peak_bytes", p.bytes);
	ap_json_str(j, "device_peak_from", p.events ? "events" : "samples");
	ap_json_str(j, "source", ap_dmabuf_source_name(d->source));
	ap_json_u64(j, "interval_ms", d->interval_ms);
	ap_json_u64(j, "samples", d->samples);
	ap_json_u64(j, "peak_bytes", d->peak_bytes);
	json_at(j, a, "peak_at_ns", d->samples, d->peak_ns);
	ap_json_u64(j, "peak_monotonic_ns", d->peak_ns);	/* CLOCK_MONOTONIC, as sampled */
	json_run(j, "peak_run", d->peak_run);
	ap_json_u64(j, "peak_buffers", d->peak_buffers);
	ap_json_u64(j, "peak_mapped_rss", d->peak_mapped_rss);
	ap_json_u64(j, "max_mapped_rss", d->max_mapped_rss);
	ap_json_u64(j, "end_bytes", d->last_bytes);
	ap_json_u64(j, "end_buffers", d->last_buffers);
	json_or_null(j, "cma_total", d->cma_total);
	json_or_null(j, "cma_free", d->cma_free);
	json_or_null(j, "cma_free_min", d->cma_free_min);
	json_or_null(j, "system_bytes_peak", d->sys_bytes_peak);
	json_events(j, a);
	ap_json_arr(j, "buffers");
	for (uint32_t i = 0; i < d->n; i++)
		json_buf(j, a, &d->b[i]);
	ap_json_end_arr(j);
	ap_json_end_obj(j);
}
