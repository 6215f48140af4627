// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the /proc parsers (procfs.c): status, smaps_rollup (one entry),
 * smaps (the entry of one address) and maps, all four on every input; and dmabuf.c's: a
 * dma-buf's fdinfo, meminfo's CMA lines and the BPF iterator's lines. Any input must parse
 * or fail with a one-line message that names the file, never crash, leak or read outside
 * the input; what parses must keep the promises of procfs.h, else we trap.
 * Built and run by tests/fuzz/run-fuzz (target procfs), seeded with tests/fixtures/procfs/.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/kernel/dmabuf.h"
#include "arenaprof/kernel/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fz"

/* A message is one printable line that starts with the file name. */
static int good_err(const char *s)
{
	if (strncmp(s, NAME ":", 3))
		return 0;
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	}
	return 1;
}

/* Every size is absent or a whole number of KiB. */
static int sizes_ok(const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] != AP_NO_VALUE && v[i] % 1024)
			return 0;
	}
	return 1;
}

static int all_absent(const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] != AP_NO_VALUE)
			return 0;
	}
	return 1;
}

static void status(const char *buf, size_t len)
{
	char err[AP_ERR_LEN] = "";
	struct ap_status s;
	int rc = ap_procfs_parse_status(buf, len, NAME, &s, err);
	const uint64_t v[9] = {
		s.vm_peak, s.vm_size, s.vm_hwm, s.vm_rss, s.rss_anon, s.rss_file, s.rss_shmem,
		s.vm_data, s.vm_swap
	};

	if (rc) {
		if (!good_err(err) || !all_absent(v, 9) || s.threads != -1 || s.name[0] ||
		    s.state)
			__builtin_trap();
		return;
	}
	if (!sizes_ok(v, 9) || s.threads < -1 || strlen(s.name) > 63)
		__builtin_trap();
}

/* struct ap_smaps holds only uint64_t: start, end, then sizes */
#define SMAPS_N (sizeof(struct ap_smaps) / sizeof(uint64_t))

static void smaps(const char *buf, size_t len, uint64_t addr, bool range)
{
	char err[AP_ERR_LEN] = "";
	struct ap_smaps s;
	uint64_t v[SMAPS_N];
	int rc;

	if (range)
		rc = ap_procfs_parse_smaps_range(buf, len, NAME, addr, &s, err);
	else
		rc = ap_procfs_parse_smaps(buf, len, NAME, &s, err);
	memcpy(v, &s, sizeof(v));
	if (rc) {
		if (!good_err(err) || !all_absent(v, SMAPS_N))
			__builtin_trap();
		return;
	}
	if (!sizes_ok(v + 2, SMAPS_N - 2) || (s.start == AP_NO_VALUE) != (s.end == AP_NO_VALUE))
		__builtin_trap();
	if (range && !(s.start <= addr && addr < s.end))
		__builtin_trap();
	if (!range && s.start != AP_NO_VALUE && s.start > s.end)
		__builtin_trap();
}

/* Parses maps; returns an address inside the first mapping (or 0x1000) for smaps. */
static uint64_t maps(const char *buf, size_t len)
{
	char err[AP_ERR_LEN] = "";
	struct ap_maps m;
	uint64_t addr = 0x1000;
	size_t i;

	if (ap_procfs_parse_maps(buf, len, NAME, &m, err)) {
		if (!good_err(err) || m.m || m.n || m.strs)
			__builtin_trap();
		return addr;
	}
	for (i = 0; i < m.n; i++) {
		const struct ap_map *x = &m.m[i];

		if (!x->path || x->start >= x->end || (i && x->start < m.m[i - 1].end) ||
		    strlen(x->path) > len || x->prot > 15 ||
		    ap_maps_find(&m, x->start) != x || ap_maps_find(&m, x->end - 1) != x)
			__builtin_trap();
		ap_map_is_anon(x);
	}
	if (!ap_maps_equal(&m, &m))
		__builtin_trap();
	if (m.n)
		addr = m.m[m.n / 2].start + (m.m[m.n / 2].end - m.m[m.n / 2].start) / 2;
	ap_maps_free(&m);
	return addr;
}

/* dmabuf.c's parsers: an error leaves everything absent; names stay within their fields */
static void dmabuf(const char *buf, size_t len)
{
	char err[AP_ERR_LEN] = "";
	struct ap_dmabuf_set set = { 0 };
	struct ap_dmabuf_fdinfo fi;
	struct ap_cma c;
	uint64_t sum = 0;

	if (ap_dmabuf_parse_fdinfo(buf, len, NAME, &fi, err)) {
		if (!good_err(err) || fi.size != AP_NO_VALUE || fi.exp_name[0] || fi.name[0])
			__builtin_trap();
	} else if (fi.size == AP_NO_VALUE || strlen(fi.exp_name) >= AP_DMABUF_NAME_LEN ||
		   strlen(fi.name) >= AP_DMABUF_NAME_LEN) {
		__builtin_trap();
	}
	if (ap_dmabuf_parse_meminfo(buf, len, NAME, &c, err)) {
		if (!good_err(err) || c.total != AP_NO_VALUE || c.free != AP_NO_VALUE)
			__builtin_trap();
	} else if ((c.total != AP_NO_VALUE && c.total % 1024) ||
		   (c.free != AP_NO_VALUE && c.free % 1024)) {
		__builtin_trap();
	}
	if (ap_dmabuf_parse_iter(buf, len, NAME, &set, err)) {
		if (!good_err(err) || set.n)
			__builtin_trap();
	}
	for (uint32_t i = 0; i < set.n; i++) {
		if ((i && set.b[i].inode <= set.b[i - 1].inode) ||
		    strlen(set.b[i].exporter) >= AP_DMABUF_NAME_LEN)
			__builtin_trap();
		sum += set.b[i].size;
	}
	if (sum != set.bytes)
		__builtin_trap();
	ap_dmabuf_free(&set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	uint64_t addr;

	status(buf, size);
	smaps(buf, size, 0, false);
	addr = maps(buf, size);
	smaps(buf, size, addr, true);
	smaps(buf, size, 0x1000, true);
	dmabuf(buf, size);
	return 0;
}
