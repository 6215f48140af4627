/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace: the arenaprof trace file (man arenaprof-trace(5)). Little-endian, append-only:
 * a 16-byte file header { "APTRACE\0", u32 version, u32 flags (0, reserved) }, then
 * records, each a 12-byte record header { u32 type, u32 len, u32 crc } and len payload
 * bytes. crc is zlib's crc32 over the record's type and len (8 bytes, as stored) and then
 * its payload, so a flipped type or length is caught like a flipped payload byte. A
 * reader stops at the last whole record of a file cut short and says so.
 *
 * Format 2 packs faults and markers into PACKED records (src/trace/pack.h); format 4
 * packs every record of types 2 to 13 but those over 4 KiB, mapping snapshots as copies of
 * the one before. The reader returns them unpacked, so callers only ever see the structs
 * below. Versions 1 and 2 still read; there is no version 3 (one flipped bit from 2 or 4).
 *
 * Payloads are the structs below, every field little-endian, no implicit padding (layout.c
 * checks sizes and offsets). Fixed-only payloads may grow at the end in later versions:
 * readers take min(len, sizeof) and zero the rest (rec->len tells what a writer wrote).
 * Payloads with a variable part after the struct (HEADER, MAPPING, NOTE, RESIDENT) keep
 * their struct at its version-1 size; new fields for them go in a new record type.
 *
 * Times (ts_ns, clock_base_ns) are CLOCK_MONOTONIC nanoseconds, the clock of
 * bpf_ktime_get_ns(); wall time = realtime_base_ns + (ts_ns - clock_base_ns). Sizes are
 * bytes. err arguments are buffers of AP_ERR_LEN bytes (err.h). A writer or reader is
 * used by one thread at a time.
 */
#ifndef ARENAPROF_TRACE_H
#define ARENAPROF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AP_TRACE_MAGIC "APTRACE\0"	/* 8 bytes */
#define AP_TRACE_VERSION 4		/* major: a reader refuses a newer one */
#define AP_TRACE_MAX_PAYLOAD (16u << 20)
#define AP_TRACE_FILE_HDR_LEN 16
#define AP_TRACE_REC_HDR_LEN 12

enum ap_rec_type {
	AP_REC_HEADER = 1,	/* first record: struct ap_rec_header + strings */
	AP_REC_FAULT = 2,	/* struct ap_rec_fault */
	AP_REC_MAPPING = 3,	/* struct ap_rec_mapping + path (NUL-terminated) */
	AP_REC_RUN_BEGIN = 4,	/* struct ap_rec_marker */
	AP_REC_RUN_END = 5,
	AP_REC_OP_BEGIN = 6,
	AP_REC_OP_END = 7,
	AP_REC_SAMPLE = 8,	/* struct ap_rec_sample */
	AP_REC_DROPS = 9,	/* struct ap_rec_drops: counters so far (cumulative) */
	AP_REC_NOTE = 10,	/* struct ap_rec_note + text */
	AP_REC_RESIDENT = 11,	/* struct ap_rec_resident + bitmap: pages resident at attach */
	AP_REC_END = 12,	/* struct ap_rec_end: the recorder finished cleanly */
	AP_REC_ALLOC = 13,	/* struct ap_rec_alloc: an allocation (or its free) */
	/*
	 * Records packed into one (src/trace/pack.h): faults and markers in format 2, any
	 * type in format 4. The writer packs them; the reader returns them unpacked, as the
	 * records they were, and never returns a PACKED record itself.
	 */
	AP_REC_PACKED = 14,
	/*
	 * The target's dma-bufs at one poll (struct ap_rec_dmabuf), then one record for
	 * each buffer (struct ap_rec_dmabuf_buf). Never packed: a reader of before these
	 * types skips them as unknown records.
	 */
	AP_REC_DMABUF = 15,
	AP_REC_DMABUF_BUF = 16,
	/*
	 * After a RUN_BEGIN whose object differs from the last one written: the object the
	 * run probe's function was called on (its first argument: the interpreter, compiled
	 * model or XNNPACK runtime), so the runs of several models in one process are told
	 * apart (struct ap_rec_run_obj). Each run's object is the last one written before
	 * it. A reader of before this type skips it.
	 */
	AP_REC_RUN_OBJ = 17,
	/*
	 * A dma-buf the target exported, or the release of one, when it happened (struct
	 * ap_rec_dmabuf_ev). Never packed; a reader of before this type skips it.
	 */
	AP_REC_DMABUF_EV = 18,
	AP_REC_MAX = AP_REC_DMABUF_EV, /* types above are unknown to this version: skipped */
};

/*
 * Strings after struct ap_rec_header, each NUL-terminated, in this order: arch, kernel
 * release, attach method ("tp", "fentry", "perf"), target command line (arguments
 * separated by spaces), run probe ("" if none), op probe ("" if none).
 */
enum ap_hdr_str {
	AP_HS_ARCH,		/* uname machine: "x86_64", "aarch64" */
	AP_HS_KERNEL,		/* uname release */
	AP_HS_METHOD,		/* "tp", "fentry", "perf" */
	AP_HS_CMDLINE,
	AP_HS_RUN_PROBE,
	AP_HS_OP_PROBE,
	AP_HS_COUNT,
};
struct ap_rec_header {
	uint32_t page_size;
	uint32_t flags;			/* AP_HDR_* */
	uint64_t clock_base_ns;		/* CLOCK_MONOTONIC at start (fault timestamps' clock) */
	uint64_t realtime_base_ns;	/* CLOCK_REALTIME at the same instant */
	int32_t pid;			/* target tgid */
	uint32_t pad;
};

enum ap_hdr_flag {
	AP_HDR_ATTACHED = 1 << 0,	/* -p: attached to a running process */
	AP_HDR_STARTED = 1 << 1,	/* record -- CMD: started by the recorder */
};

/* One page fault: the fields of struct ap_event (event.h) of type AP_EV_FAULT. */
struct ap_rec_fault {
	uint64_t ts_ns;
	uint64_t addr;			/* faulting address (0 unknown) */
	uint64_t ip;			/* user instruction pointer */
	uint64_t vm_start, vm_end;	/* the vma, when known (0, 0 unknown) */
	uint64_t vm_flags;		/* the kernel's vma flags (VM_READ 0x1, ...), 0 unknown */
	uint32_t tid;
	uint32_t flags;			/* enum ap_fault_flag (event.h) */
	int32_t run;			/* runs begun so far minus 1 (-1: none yet) */
	int32_t op;			/* the thread's current operator (-1: none) */
};

/* One mapping of a /proc/PID/maps snapshot; records of one snapshot share its number. */
struct ap_rec_mapping {
	uint64_t ts_ns;
	uint64_t start, end, offset;
	uint64_t inode;
	uint32_t snapshot;
	uint32_t prot;			/* 1 r, 2 w, 4 x, 8 shared */
	uint32_t dev_major, dev_minor;
};

struct ap_rec_marker {
	uint64_t ts_ns;
	uint32_t tid;
	int32_t run;
	int32_t op;			/* op markers; -1 for runs */
	uint32_t pad;
};

struct ap_rec_run_obj {
	uint64_t ts_ns;			/* the RUN_BEGIN's */
	uint64_t obj;			/* the run probe's first argument */
	int32_t run;
	uint32_t tid;
};

#define AP_NO_VALUE UINT64_MAX	/* a sample field that could not be read */

/* Every field in bytes except PSI; AP_NO_VALUE where it could not be read. */
struct ap_rec_sample {
	uint64_t ts_ns;
	/* /proc/PID/status: VmRSS, VmHWM, RssAnon, RssFile, RssShmem */
	uint64_t vm_rss, vm_hwm, rss_anon, rss_file, rss_shmem;
	/* /proc/PID/smaps_rollup: Rss, Pss, Pss_Anon, ..., Anonymous, AnonHugePages, Swap */
	uint64_t rss, pss, pss_anon, pss_file, pss_shmem, anonymous, anon_huge, swap;
	/* cgroup v2 (issue 4): memory.current, memory.peak */
	uint64_t cg_current, cg_peak;
	/* PSI memory, system: some/full avg10 x 100 and totals (us) */
	uint64_t psi_some_avg10, psi_full_avg10, psi_some_total, psi_full_total;
};

struct ap_rec_drops {
	uint64_t ts_ns;
	uint64_t events, ringbuf_drops, vma_misses, retries;
};

/* A note's level: how the recording was set up (the probes attached, the fault source
 * chosen), information a reader need not repeat. */
#define AP_NOTE_SETUP 3

struct ap_rec_note {
	uint64_t ts_ns;
	uint32_t level;			/* 0 info, 1 warning, 2 error, 3 set-up */
	uint32_t pad;
};

/*
 * Followed by a bitmap of (end - start) / page_size bits, rounded up to whole bytes: bit i
 * (byte i / 8, bit i % 8, least significant first) set = page start + i * page_size was
 * resident.
 */
struct ap_rec_resident {
	uint64_t ts_ns;
	uint64_t start, end;		/* a mapping */
	uint64_t present;		/* count of set bits */
};

enum ap_end_reason {
	AP_END_TARGET_EXIT = 1, AP_END_RUNS = 2, AP_END_DURATION = 3, AP_END_SIGNAL = 4,
	AP_END_ERROR = 5,
};

struct ap_rec_end {
	uint64_t ts_ns;
	uint32_t reason;		/* enum ap_end_reason */
	int32_t exit_status;		/* target's, when it exited (-1 unknown) */
	int32_t term_signal;		/* signal that ended the target, 0 none */
	uint32_t runs;			/* completed runs */
};

/*
 * One event of the allocation probe (record --arena auto): a C library allocation whose
 * size was in the recorder's window, with the pointer it returned, or the free of such a
 * block (fn AP_ALLOC_FREE, size the block's). fn is enum ap_alloc_fn (event.h);
 * AP_ALLOC_GIVEN is no call but the recorder's --arena ADDR (ptr), written once at start.
 */
struct ap_rec_alloc {
	uint64_t ts_ns;
	uint64_t ptr;			/* the block: returned, freed, or --arena's address */
	uint64_t size;			/* bytes requested (calloc: n * size) */
	uint64_t align;			/* aligned_alloc, memalign, posix_memalign; else 0 */
	uint64_t caller;		/* return address into the caller, 0 unknown */
	uint32_t tid;
	uint32_t fn;			/* enum ap_alloc_fn, or AP_ALLOC_GIVEN */
	int32_t run;			/* runs begun so far minus 1 (-1: none yet) */
	uint32_t pad;
};

/*
 * The target's dma-bufs (kernel/dmabuf.h) at one poll, written when they changed since the
 * last one written (the first only when the target holds any); `buffers` AP_REC_DMABUF_BUF
 * records of the same ts_ns follow. bytes: the sum of the buffers' sizes, one per inode;
 * mapped_rss: the Rss of their mappings. cma_total, cma_free: /proc/meminfo's, AP_NO_VALUE
 * without CMA. sys_bytes, sys_buffers: every dma-buf of the system (the iterator's source
 * only, else AP_NO_VALUE and 0). interval_ms: the poll rate. events: how the target's
 * exports and releases were traced besides (AP_DMABUF_EVENTS_*; 0 in traces of before it,
 * whose records are 64 bytes long).
 */
struct ap_rec_dmabuf {
	uint64_t ts_ns;
	uint64_t bytes, mapped_rss;
	uint64_t cma_total, cma_free;
	uint64_t sys_bytes;
	uint32_t buffers;
	uint32_t source;		/* enum ap_dmabuf_source: 1 fdinfo, 2 bpf_iter */
	uint32_t interval_ms;
	uint32_t sys_buffers;
	uint32_t events;		/* AP_DMABUF_EVENTS_* */
	uint32_t pad;
};

#define AP_DMABUF_EVENTS_NONE 0		/* polled only */
#define AP_DMABUF_EVENTS_FENTRY 1	/* fexit dma_buf_export, fentry dma_buf_release */

/*
 * A dma-buf the target's threads exported (dma_buf_export returned it), or the release
 * of such a buffer (dma_buf_release freed it, in whichever task dropped its last
 * reference), at ts_ns. inode and size are the buffer's at export; exporter its exp_name
 * there ("" in a release). tid: the task that exported or released it.
 */
struct ap_rec_dmabuf_ev {
	uint64_t ts_ns;
	uint64_t inode, size;
	uint32_t kind;			/* AP_DMABUF_EV_EXPORTED, AP_DMABUF_EV_RELEASED */
	uint32_t tid;
	uint32_t method;		/* AP_DMABUF_EVENTS_* */
	uint32_t pad;
	char exporter[32];
};

#define AP_DMABUF_EV_EXPORTED 1		/* ap_rec_dmabuf_ev.kind */
#define AP_DMABUF_EV_RELEASED 2

/* One buffer of an AP_REC_DMABUF; names NUL-padded, cleaned as any trace string. */
struct ap_rec_dmabuf_buf {
	uint64_t ts_ns;
	uint64_t inode, size;		/* size 0: unknown */
	uint64_t mapped_bytes, mapped_rss;
	uint32_t fds, maps;		/* the target's fds and mappings of it */
	uint32_t flags;			/* AP_DMABUF_F_* */
	uint32_t pad;
	char exporter[32];		/* exp_name: "system", "udmabuf", "drm", ... */
	char name[32];			/* DMA_BUF_SET_NAME's, "" none */
};

#define AP_DMABUF_F_SIZE_FROM_MAP 1	/* size only its mappings' (no fd, no iterator) */

#define AP_ALLOC_GIVEN 100		/* ap_rec_alloc.fn: record --arena ADDR */

/* ---- writer ---- */

struct ap_trace_block;
struct ap_trace_unpack;

/*
 * Records go into PACKED records: a block is open until it is full, a record too large
 * for one is written, or the writer flushes, so records stay in the order written.
 */
struct ap_trace_writer {
	FILE *f;
	char *path;
	/* written so far, the file header included in bytes, the open block counted */
	uint64_t records, bytes;
	bool failed;			/* a write failed: later writes are refused */
	int error;			/* errno of that failure */
	bool plain;			/* set after create: no packing, a record each */
	struct ap_trace_block *blk;	/* private: the block being packed */
};

/*
 * The writer's functions return 0 or a negative errno with err: -EINVAL for what the
 * caller got wrong (a record too large, no payload, a writer not open, a rewind past what
 * was written), -ENOMEM, and for a failed write -error (the failed call's errno, EIO when
 * it gave none; every later write returns it again).
 *
 * Creates (or truncates) path and writes the file header and the header record, and
 * flushes them. strings may be NULL, and so may any of them: "". On failure the writer
 * is closed with failed set (ap_trace_close is then a no-op); an output refused returns
 * ap_outfile_open's code.
 */
int ap_trace_create(struct ap_trace_writer *w, const char *path,
		    const struct ap_rec_header *h, const char *const strings[AP_HS_COUNT],
		    char *err);
int ap_trace_write(struct ap_trace_writer *w, uint32_t type, const void *payload,
		   uint32_t len, char *err);
/* write a fixed struct followed by a NUL-terminated string */
int ap_trace_write_str(struct ap_trace_writer *w, uint32_t type, const void *payload,
		       uint32_t len, const char *s, char *err);
/*
 * fflush + fdatasync-free durability point: whole records reach the file. A write error
 * (here or in an earlier write) sets failed and returns -error: the file then ends with its
 * last whole record, perhaps followed by part of one, which readers treat as truncation.
 */
int ap_trace_flush(struct ap_trace_writer *w, char *err);
/*
 * Flushes, and what is written next reads without what came before (a key block, the
 * next mapping snapshot whole): the live view's ring saves a segment's records from
 * here on after another segment.
 */
int ap_trace_cut(struct ap_trace_writer *w, char *err);
/*
 * Flushes, then cuts the file back to its first `bytes` bytes, which must end a record
 * (w->bytes as it was after `records` records), and writes on from there: the live view's
 * ring (record/session_trace.c) reuses a segment from just after its header record.
 */
int ap_trace_rewind(struct ap_trace_writer *w, uint64_t bytes, uint64_t records, char *err);
/* Flushes and closes; -error if the trace is incomplete (any write failed). Keeps the
 * counts. */
int ap_trace_close(struct ap_trace_writer *w, char *err);

/* ---- reader ---- */

struct ap_trace_reader {
	FILE *f;
	char *path;
	struct ap_rec_header hdr;
	char *strings[AP_HS_COUNT];	/* enum ap_hdr_str */
	uint32_t version;
	uint64_t offset;		/* file offset of the next record */
	bool truncated;			/* ended in a partial record */
	bool saw_end;			/* an AP_REC_END record was read */
	uint8_t *buf;
	uint32_t cap;
	uint8_t *win;			/* private: the file, a window at a time */
	uint32_t win_len, pos;
	int state;			/* private: reading, ended, failed */
	int error;			/* private: what a failed reader returns again */
	/*
	 * Salvage (set after opening; man arenaprof-trace(5), SALVAGE): a record that fails
	 * its check is skipped with the bytes up to the next record that passes, instead of
	 * ending the pass with an error. salvaged_bytes are the bytes skipped;
	 * salvaged_records an estimate of the records they held (by the mean size of the
	 * records read); salvage_gaps the runs of skipped bytes.
	 */
	bool salvage;
	uint64_t salvaged_bytes, salvaged_records, salvage_gaps;
	/*
	 * Set after opening: a run of mappings a snapshot copies from the one before is
	 * returned as its first mapping alone (the rest have the same time and repeat
	 * mappings already returned), for passes that want each mapping once: a trace of
	 * many copies of a big snapshot is then read in the time of its records.
	 */
	bool fold_map_copies;
	uint64_t good_records, good_bytes;	/* private: read and checked */
	uint64_t salvage_crc;		/* private: bytes checked while resynchronising */
	struct ap_trace_unpack *unpack;	/* private: the PACKED record being returned */
};

struct ap_trace_rec {
	uint32_t type;
	uint32_t len;			/* payload bytes as stored (unpacked: the struct's) */
	bool packed;			/* unpacked from the PACKED record ending at r->offset */
	const uint8_t *payload;		/* valid until the next call */
};

/*
 * Opens a file for one sequential pass (read a MiB at a time) and reads the header record.
 * 0, or a negative errno with err: -EINVAL not a trace, a newer version, a corrupt or cut
 * header; -ENOMEM; the open's or the read's own error (-ENOENT, -EACCES, -EIO...).
 */
int ap_trace_open(struct ap_trace_reader *r, const char *path, char *err);
/* The same from a stream read sequentially (a pipe, fmemopen); takes f, name for messages */
int ap_trace_open_stream(struct ap_trace_reader *r, FILE *f, const char *name, char *err);
/*
 * 1: a record (types this version does not know are skipped); 0: end of file
 * (r->truncated says if it was cut); a negative errno with err: -EINVAL corrupt (with
 * salvage set, a record that fails its check is skipped instead: see above), -ENOMEM, or
 * the read's own error (-EIO when it gave none). After 0 or an error, later calls return
 * the same. The payload is followed by a NUL byte.
 */
int ap_trace_next(struct ap_trace_reader *r, struct ap_trace_rec *rec, char *err);
/*
 * ap_trace_next for a pass that needs only the record types in `types` (a mask of
 * 1 << type): the others are skipped unchecked (no CRC), so a corrupt one may end the scan
 * in an error later than ap_trace_next would. For a pre-pass that a full pass follows.
 */
int ap_trace_scan(struct ap_trace_reader *r, struct ap_trace_rec *rec, uint64_t types,
		  char *err);
/* Copies a payload into a struct of size sz, zero-filling what an older writer lacked. */
void ap_trace_get(const struct ap_trace_rec *rec, void *dst, size_t sz);
/* The NUL-terminated string after a fixed struct of size sz ("" if absent or unterminated) */
const char *ap_trace_str(const struct ap_trace_rec *rec, size_t sz);
void ap_trace_reader_close(struct ap_trace_reader *r);

/* An END record's reason (enum ap_end_reason) in words: "the target exited", ... */
const char *ap_trace_end_reason(uint32_t reason);

#endif
