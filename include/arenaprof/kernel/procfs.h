/* SPDX-License-Identifier: Apache-2.0 */
/*
 * procfs: what the samplers read from /proc/PID (docs/design.md, "Folders, bottom to top"):
 * status (VmRSS, VmHWM, ...), stat (state, kernel thread, a zombie's exit code),
 * smaps_rollup and one entry of smaps, maps, pagemap residency, and the VmHWM reset
 * through clear_refs. Used by record, the live TUI and run.
 *
 * Reading. Each file is read whole, with read() until EOF into one buffer that grows up to
 * a cap (AP_PROCFS_MAX_SMALL for status and smaps_rollup, AP_PROCFS_MAX_MAPS for maps),
 * and then parsed; nothing is re-read field by field. smaps (for ap_procfs_smaps_range) is
 * streamed line by line and reading stops after the wanted entry, because every entry
 * walks page tables. A maps read that does not parse is retried twice: a mapping that
 * changes between two read() calls of the kernel's seq_file can make entries overlap.
 *
 * Parsing is by key: fields vary by kernel. Unknown keys are ignored, an expected key that
 * is missing leaves AP_NO_VALUE (not an error), a repeated key: the last one counts. Sizes
 * ("<n> kB") are converted to bytes with an overflow check. Blank lines are skipped. An
 * empty status or smaps_rollup parses to all AP_NO_VALUE; an empty maps to no mappings.
 * Never crashes on garbage, truncated or unknown contents; an error is one line naming the
 * file and the line number: "/proc/123/status:7: VmRSS: 'abc' is not a number".
 *
 * Errors. Every int function returns 0 or a negative errno with a one-line message in err
 * (AP_ERR_LEN bytes, may be NULL), the output reset (all AP_NO_VALUE, no mappings, no
 * bitmap); the code says why:
 *   -ESRCH  "process 123 does not exist (exited?)" (the file or /proc/123 is gone, or the
 *           process is a zombie: no address space left, its maps and smaps are empty);
 *           "/proc/2/smaps_rollup: process 2 has no address space (a kernel thread, or
 *           exiting)";
 *   -EACCES "no permission to read /proc/123/smaps_rollup (run as root or the process
 *           owner)" (EACCES or EPERM from the kernel; "write" for clear_refs);
 *   -EINVAL contents that do not parse (the message has the line number), bad arguments;
 *   -ENXIO  ap_procfs_smaps_range: no mapping contains the address;
 *   -EFBIG  the file is larger than its cap; -ENOMEM; anything else as the kernel said.
 * A sampler stops cleanly on -ESRCH: the target has exited.
 */
#ifndef ARENAPROF_PROCFS_H
#define ARENAPROF_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef AP_NO_VALUE
#define AP_NO_VALUE UINT64_MAX	/* a field that is absent (same as trace.h) */
#endif

#define AP_PROCFS_MAX_SMALL (1u << 20)	/* status, smaps_rollup: 1 MiB */
#define AP_PROCFS_MAX_MAPS (64u << 20)	/* maps: 64 MiB */
#define AP_PROCFS_MAX_LINE (1u << 20)	/* longest smaps line when streaming */

/* ---- /proc/PID/status ---- */

/*
 * Sizes in bytes (the file says kB), AP_NO_VALUE when the key is absent (a kernel thread or
 * a zombie has no Vm* lines). threads: -1 when absent. state: the State letter ('R', 'S',
 * 'D', 'Z', ...), 0 when absent. name: the Name line as the kernel printed it (it escapes
 * control characters), cut to 63 bytes, "" when absent.
 * Before 6.16 the kernel reports VmRSS and Rss* from counters batched per CPU (6.2+) or
 * per thread: they can lag by tens of pages. smaps_rollup is exact, and costly.
 */
struct ap_status {
	uint64_t vm_peak;		/* VmPeak: peak virtual size */
	uint64_t vm_size;		/* VmSize */
	uint64_t vm_hwm;		/* VmHWM: peak RSS (clear_refs 5 resets it to vm_rss) */
	uint64_t vm_rss;		/* VmRSS = rss_anon + rss_file + rss_shmem */
	uint64_t rss_anon;		/* RssAnon (4.5+) */
	uint64_t rss_file;		/* RssFile (4.5+) */
	uint64_t rss_shmem;		/* RssShmem (4.5+) */
	uint64_t vm_data;		/* VmData */
	uint64_t vm_swap;		/* VmSwap */
	int threads;			/* Threads */
	char state;			/* State */
	char name[64];			/* Name */
};

int ap_procfs_status(int pid, struct ap_status *s, char *err);
/* Parses a buffer (need not be NUL-terminated); name is the file name used in messages. */
int ap_procfs_parse_status(const char *buf, size_t len, const char *name, struct ap_status *s,
			   char *err);

/* ---- /proc/PID/stat ---- */

#define AP_PF_KTHREAD 0x00200000u	/* the task's PF_KTHREAD flag: a kernel thread */

/*
 * The fields of one line of /proc/PID/stat that attaching needs. The command name (field
 * 2) is between the first '(' and the last ')': it may hold spaces and parentheses.
 */
struct ap_pstat {
	char state;			/* field 3: 'R', 'S', 'D', 'Z' (zombie), 'X', ... */
	int ppid;			/* field 4 */
	uint64_t flags;			/* field 9: PF_* (AP_PF_KTHREAD) */
	uint64_t start_time;		/* field 22: clock ticks after boot (a reused pid
					 * has another) */
	int64_t exit_code;		/* field 52 (3.5+): a zombie's wait status, as
					 * waitpid() gives it; -1 absent */
	char comm[64];
};

int ap_procfs_stat(int pid, struct ap_pstat *st, char *err);
int ap_procfs_parse_stat(const char *buf, size_t len, const char *name, struct ap_pstat *st,
			 char *err);

/* ---- /proc/PID/smaps_rollup and /proc/PID/smaps ---- */

/*
 * One smaps entry: smaps_rollup (4.14+: the sum over every mapping) or the entry of one
 * mapping in smaps. Sizes in bytes, AP_NO_VALUE when the key is absent (Pss_Anon, Pss_File
 * and Pss_Shmem: smaps_rollup only, 5.3+; Pss_Dirty 6.0+; KSM on recent kernels; Size,
 * KernelPageSize and MMUPageSize: per mapping only). start, end: the range of the entry's
 * header line (the mapping's, or for smaps_rollup the span from the first mapping's start
 * to the last one's end), AP_NO_VALUE when there is no header line.
 */
struct ap_smaps {
	uint64_t start, end;
	uint64_t size;			/* Size */
	uint64_t kernel_page_size;	/* KernelPageSize */
	uint64_t mmu_page_size;		/* MMUPageSize */
	uint64_t rss;			/* Rss */
	uint64_t pss;			/* Pss */
	uint64_t pss_dirty;		/* Pss_Dirty */
	uint64_t pss_anon;		/* Pss_Anon */
	uint64_t pss_file;		/* Pss_File */
	uint64_t pss_shmem;		/* Pss_Shmem */
	uint64_t shared_clean;		/* Shared_Clean */
	uint64_t shared_dirty;		/* Shared_Dirty */
	uint64_t private_clean;		/* Private_Clean */
	uint64_t private_dirty;		/* Private_Dirty */
	uint64_t referenced;		/* Referenced */
	uint64_t anonymous;		/* Anonymous */
	uint64_t ksm;			/* KSM */
	uint64_t lazy_free;		/* LazyFree */
	uint64_t anon_huge;		/* AnonHugePages */
	uint64_t shmem_pmd;		/* ShmemPmdMapped */
	uint64_t file_pmd;		/* FilePmdMapped */
	uint64_t shared_hugetlb;	/* Shared_Hugetlb */
	uint64_t private_hugetlb;	/* Private_Hugetlb */
	uint64_t swap;			/* Swap */
	uint64_t swap_pss;		/* SwapPss */
	uint64_t locked;		/* Locked */
};

/*
 * smaps_rollup. Reading it walks every page table of the process under the mmap read
 * lock: it perturbs what it measures, so rate-limit it.
 */
int ap_procfs_smaps_rollup(int pid, struct ap_smaps *s, char *err);
/*
 * Parses one entry: an optional header line (a maps line, e.g. "...-... ---p 00000000
 * 00:00 0 [rollup]") first, then "Key: value" lines. A second header line is an error (a
 * whole smaps file: use ap_procfs_parse_smaps_range).
 */
int ap_procfs_parse_smaps(const char *buf, size_t len, const char *name, struct ap_smaps *s,
			  char *err);

/*
 * The smaps entry of the mapping that contains addr (start <= addr < end), from
 * /proc/PID/smaps. Only that entry's lines are parsed; the others are skipped unread
 * except for their header lines. No such mapping: -ENXIO.
 */
int ap_procfs_smaps_range(int pid, uint64_t addr, struct ap_smaps *s, char *err);
int ap_procfs_parse_smaps_range(const char *buf, size_t len, const char *name, uint64_t addr,
				struct ap_smaps *s, char *err);

/* ---- /proc/PID/maps ---- */

enum ap_prot {
	AP_PROT_READ = 1,
	AP_PROT_WRITE = 2,
	AP_PROT_EXEC = 4,
	AP_PROT_SHARED = 8,		/* 's' in the fourth column, else 'p' (private) */
};

struct ap_map {
	uint64_t start, end;		/* [start, end) */
	uint64_t offset;		/* file offset */
	uint64_t inode;
	uint32_t prot;			/* enum ap_prot bits */
	uint32_t dev_major, dev_minor;
	/*
	 * As printed: "" for an anonymous mapping (no pathname), "[heap]", "[stack]",
	 * "[anon:NAME]", "/path/to/file", "/path (deleted)" (the suffix is kept). A path may
	 * hold spaces; the spaces that pad the column before it are not part of it (a path
	 * that starts with a space loses that space: the format cannot tell). Never NULL.
	 */
	char *path;
};

struct ap_maps {
	struct ap_map *m;		/* sorted by start, non-overlapping */
	size_t n;
	char *strs;			/* private: holds every path */
};

/*
 * Validated: hexadecimal start, end, offset and device numbers, decimal inode, permissions
 * [r-][w-][x-][ps], start < end, both multiples of 4 KiB (the smallest page size), and
 * every mapping starts at or after the previous end.
 * On error maps is empty ({NULL, 0}).
 */
int ap_procfs_maps(int pid, struct ap_maps *maps, char *err);
int ap_procfs_parse_maps(const char *buf, size_t len, const char *name, struct ap_maps *maps,
			 char *err);
void ap_maps_free(struct ap_maps *maps);
/* Same mappings (every field and path): record a new snapshot only on change. */
bool ap_maps_equal(const struct ap_maps *a, const struct ap_maps *b);
/* The mapping that contains addr, or NULL (binary search). */
const struct ap_map *ap_maps_find(const struct ap_maps *maps, uint64_t addr);
/*
 * Private anonymous memory (what RssAnon counts, and where an arena lives): a mapping
 * without a pathname, "[heap]", "[stack]", "[stack:TID]" (before 4.5) or "[anon:NAME]"
 * (named with PR_SET_VMA_ANON_NAME, 5.17+). Not counted: files, shared anonymous memory
 * ("/dev/zero (deleted)", "[anon_shmem:NAME]": shmem, in RssShmem), "[vdso]", "[vvar]",
 * "[vsyscall]", "[uprobes]" and any other bracketed name.
 */
bool ap_map_is_anon(const struct ap_map *m);

/* ---- /proc/PID/pagemap ---- */

/*
 * Residency of the pages of [start, end), start rounded down and end rounded up to pages:
 * pages = their count, present = entries with bit 63 (present in RAM), swapped = bit 62.
 * Pages that are not mapped count as neither, as do pages above the process's address
 * space (pagemap has no entries there: the vsyscall page). bitmap: bit i (byte i / 8,
 * bit i % 8, LSB first) is page i's present bit, ceil(pages / 8) bytes, malloc'd when
 * want_bitmap and pages > 0 (free() it), else NULL. Cost: 8 bytes of pagemap per page,
 * read in chunks of 8 KiB.
 */
struct ap_residency {
	uint64_t start;			/* first page's address */
	uint64_t page_size;
	uint64_t pages, present, swapped;
	uint8_t *bitmap;
};

int ap_procfs_residency(int pid, uint64_t start, uint64_t end, bool want_bitmap,
			struct ap_residency *r, char *err);

/* ---- /proc/PID/clear_refs ---- */

/*
 * Writes "5": resets VmHWM to the current VmRSS (not to zero), 4.0+. Takes the target's
 * mmap lock for writing, briefly.
 */
int ap_procfs_reset_hwm(int pid, char *err);

#endif
