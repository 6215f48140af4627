// SPDX-License-Identifier: Apache-2.0
/* xnn_blocks: XNNPACK's blocks in a trace, classified and named by operator (xnn_blocks.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/symname.h"
#include "arenaprof/analyze/xnn_blocks.h"
#include "arenaprof/record/symbols.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

const char *ap_xnn_class_name(enum ap_xnn_class c)
{
	static const char *const n[AP_XNN_N_CLASSES] = {
		"packed weights", "workspace", "operator buffers", "runtime objects",
	};

	return c < AP_XNN_N_CLASSES ? n[c] : "?";
}

const char *ap_xnn_class_key(enum ap_xnn_class c)
{
	static const char *const n[AP_XNN_N_CLASSES] = {
		"packed_weights_bytes", "workspace_bytes", "scratch_bytes", "other_bytes",
	};

	return c < AP_XNN_N_CLASSES ? n[c] : "?";
}

static int by_map_off(const void *x, const void *y)
{
	const struct ap_xnn_addr *a = x, *b = y;

	if (a->map != b->map)
		return AP_CMP(a->map, b->map);
	return AP_CMP(a->off, b->off);
}

static int by_addr(const void *x, const void *y)
{
	const struct ap_xnn_addr *a = x, *b = y;

	return AP_CMP(a->addr, b->addr);
}

int ap_xnn_name_addrs(const struct ap_aspace *as, struct ap_xnn_addr *an, size_t n)
{
	uint64_t *off = calloc(n + 1, sizeof(*off));
	char **names = calloc(n + 1, sizeof(*names));
	size_t i = 0;

	if (!off || !names) {
		free(off);
		free(names);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		const struct ap_amap *m;

		an[k].map = ap_as_file_at(as, an[k].addr);
		m = an[k].map >= 0 ? &as->maps[an[k].map] : NULL;
		an[k].off = m ? an[k].addr - m->start + m->offset : 0;
	}
	ap_qsort(an, n, sizeof(*an), by_map_off);
	while (i < n) {
		size_t j = i;
		const struct ap_amap *m = an[i].map >= 0 ? &as->maps[an[i].map] : NULL;

		while (j < n && an[j].map == an[i].map)
			j++;
		for (size_t k = i; k < j; k++)
			off[k - i] = an[k].off;
		if (m && !ap_symbols_names_at(m->path, m->inode, off, j - i, names))
			for (size_t k = i; k < j; k++) {
				char dm[256];

				if (names[k - i])
					an[k].name = strdup(ap_demangle(names[k - i], dm,
									sizeof(dm)));
				free(names[k - i]);
			}
		i = j;
	}
	free(off);
	free(names);
	ap_qsort(an, n, sizeof(*an), by_addr);
	return 0;
}

const char *ap_xnn_addr_name(const struct ap_xnn_addr *an, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (an[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && an[lo].addr == addr && an[lo].name ? an[lo].name : "";
}

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/*
 * The class from the allocating function (first) and its caller (up), as XNNPACK 8388bd78
 * names them (docs/xnnpack-private.md): the workspace grows in xnn_plan_memory (its
 * initializer inlined there) or under xnn_reshape_runtime; packed weights come through
 * the weights-cache interface (xnn_get_pointer_to_write_weights) or a packing function;
 * reshape_* sizes indirection buffers; the runtime and the workspace objects are the
 * runtime's; every other create_* block is an operator's.
 */
static enum ap_xnn_class classify(const char *first, const char *up)
{
	if (!strcmp(first, "xnn_plan_memory") ||
	    (strstr(first, "workspace") && !starts(first, "xnn_create_workspace")))
		return AP_XNN_WORKSPACE;
	if (strstr(first, "pointer_to_write_weights") || strstr(first, "xnn_pack") ||
	    strstr(first, "pack_weights") || strstr(first, "reserve_space") ||
	    strstr(up, "pointer_to_write_weights"))
		return AP_XNN_PACKED;
	if (starts(first, "xnn_create_runtime") || starts(first, "xnn_create_workspace") ||
	    starts(first, "xnn_create_subgraph") || starts(first, "xnn_define_") ||
	    starts(first, "xnn_subgraph") || strstr(first, "xnnpack::"))
		return AP_XNN_OTHER;
	return AP_XNN_SCRATCH;
}

enum ap_xnn_class ap_xnn_site_class(const char **first, const char **up)
{
	/* XNNPACK's wrappers around its allocator (zeroed blocks, extra parameters) are
	 * functions of their own: the allocating function is one frame up */
	if (starts(*first, "xnn_allocate_")) {
		*first = *up;
		*up = "";
	}
	return classify(*first, *up);
}

/* Live at the end of the first run (runs begun minus 1 at the time: 0 is the first). */
static bool live_after_run0(const struct ap_block *b, bool have_runs)
{
	if (!have_runs)
		return !b->t_free;
	return b->run_alloc <= 0 && (!b->t_free || b->run_free >= 1);
}

static int collect(const struct ap_analysis *a, struct ap_xnn_measured *m)
{
	const struct ap_allocs *al = a->allocs;
	bool have_runs = a->runs_completed > 0;
	struct ap_xnn_addr *an;
	size_t n_an = 0;

	m->b = calloc(al->n + 1, sizeof(*m->b));
	an = calloc(2 * (size_t)al->n + 1, sizeof(*an));
	if (!m->b || !an) {
		free(an);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < al->n; i++) {
		const struct ap_block *b = &al->b[i];

		if (!ap_alloc_fn_xnn(b->fn))
			continue;
		m->probed = true;
		if (!live_after_run0(b, have_runs))
			continue;
		m->b[m->n].size = b->size;
		m->b[m->n++].block = i;
		an[n_an++].addr = b->caller;
		an[n_an++].addr = b->caller_up;
	}
	if (ap_xnn_name_addrs(&a->as, an, n_an)) {
		for (size_t k = 0; k < n_an; k++)
			free(an[k].name);
		free(an);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < m->n; k++) {
		struct ap_xnn_mblock *x = &m->b[k];
		const struct ap_block *b = &al->b[x->block];
		const char *first = ap_xnn_addr_name(an, n_an, b->caller);
		const char *up = ap_xnn_addr_name(an, n_an, b->caller_up);

		x->cls = ap_xnn_site_class(&first, &up);
		x->op = -1;
		snprintf(x->site, sizeof(x->site), "%s < %s", *first ? first : "?",
			 *up ? up : "?");
		m->blocks_bytes += b->size;
		m->bytes[x->cls] += b->size;
	}
	for (size_t k = 0; k < n_an; k++)
		free(an[k].name);
	free(an);
	return 0;
}

/* The reshape-time share of the operator buffers: what reshape_* (XNNPACK's) sized. */
static bool reshape_site(const char *site)
{
	return starts(site, "reshape_") || starts(site, "xnn_reshape_") ||
	       strstr(site, "indirection");
}

/*
 * Deals the blocks of one kind (cls, and for operator buffers reshape or not) to the
 * operators in creation order, each taking blocks up to want[op]. Returns false when an
 * operator's blocks did not sum to its figure (the rest named by order only).
 */
static bool deal(struct ap_xnn_measured *m, const struct ap_analysis *a,
		 const struct ap_xnn_plan *x, enum ap_xnn_class cls, int reshape,
		 const uint64_t *want, uint64_t *got)
{
	bool exact = true;
	uint32_t p = 0, i = 0, k;

	for (k = 0; k < m->n; k++) {
		struct ap_xnn_mblock *b = &m->b[k];
		uint64_t size = a->allocs->b[b->block].size;
		int32_t op = -1;

		if (b->cls != cls || (reshape >= 0 && reshape_site(b->site) != !!reshape))
			continue;
		/* the next operator still owed bytes, in partition then node order */
		while (p < x->n_parts) {
			if (i < x->parts[p].n_ops) {
				op = x->parts[p].ops[i];
				if (op >= 0 && (uint32_t)op < x->n_ops && got[op] < want[op])
					break;
				i++;
				continue;
			}
			p++;
			i = 0;
		}
		if (p == x->n_parts)
			return false;	/* more blocks than planned */
		b->op = op;
		got[op] += size;
		b->exact = exact && got[op] <= want[op];
		if (got[op] > want[op])
			exact = false;
	}
	return exact;
}

static int attribute(struct ap_xnn_measured *m, const struct ap_analysis *a,
		     const struct ap_xnn_plan *x)
{
	uint64_t *want_create = calloc(x->n_ops + 1, sizeof(uint64_t));
	uint64_t *want_reshape = calloc(x->n_ops + 1, sizeof(uint64_t));
	uint64_t *want_packed = calloc(x->n_ops + 1, sizeof(uint64_t));
	uint64_t *got_create = calloc(x->n_ops + 1, sizeof(uint64_t));
	bool ok[3];
	int rc = -ENOMEM;

	m->op_packed = calloc(x->n_ops + 1, sizeof(uint64_t));
	m->op_scratch = calloc(x->n_ops + 1, sizeof(uint64_t));
	if (!want_create || !want_reshape || !want_packed || !got_create || !m->op_packed ||
	    !m->op_scratch)
		goto out;
	for (uint32_t k = 0; k < x->n_ops; k++) {
		const struct ap_xnn_op *o = &x->ops[k];

		if (!o->delegated)
			continue;
		want_packed[k] = o->packed_bytes;
		want_reshape[k] = o->reshape_bytes;
		want_create[k] = o->private_bytes - o->reshape_bytes;
	}
	ok[0] = deal(m, a, x, AP_XNN_PACKED, -1, want_packed, m->op_packed);
	ok[1] = deal(m, a, x, AP_XNN_SCRATCH, 0, want_create, got_create);
	ok[2] = deal(m, a, x, AP_XNN_SCRATCH, 1, want_reshape, m->op_scratch);
	for (uint32_t k = 0; k < x->n_ops; k++) {
		m->op_scratch[k] += got_create[k];
		if (!x->ops[k].delegated || !(want_packed[k] + want_create[k] + want_reshape[k]))
			continue;
		m->ops_planned++;
		m->ops_exact += m->op_packed[k] == want_packed[k] &&
				m->op_scratch[k] == want_create[k] + want_reshape[k];
	}
	for (uint32_t k = 0; k < m->n; k++) {
		const struct ap_xnn_mblock *b = &m->b[k];

		if (b->op >= 0 || b->cls == AP_XNN_WORKSPACE || b->cls == AP_XNN_OTHER)
			m->attributed_bytes += a->allocs->b[b->block].size;
	}
	if (!ok[0] || !ok[1] || !ok[2])
		snprintf(m->how, sizeof(m->how), "%s%s%s do not sum as planned operator by "
			 "operator: from the first that differs on, named by creation order only",
			 ok[0] ? "" : "packed weights", !ok[0] && (!ok[1] || !ok[2]) ? " and " : "",
			 ok[1] && ok[2] ? "" : "operator buffers");
	m->attributed = true;
	rc = 0;
out:
	free(want_create);
	free(want_reshape);
	free(want_packed);
	free(got_create);
	return rc;
}

/* The plan's side, kept for the report: totals, each operator's figures and name. */
static int keep_plan(struct ap_xnn_measured *m, const struct ap_xnn_plan *x,
		     const struct ap_tplan *names)
{
	m->planned[AP_XNN_PACKED] = x->packed_weights_bytes;
	m->planned[AP_XNN_WORKSPACE] = x->workspace_bytes;
	m->planned[AP_XNN_SCRATCH] = x->scratch_bytes;
	m->planned[AP_XNN_OTHER] = x->other_bytes;
	m->plan_packed = calloc(x->n_ops + 1, sizeof(uint64_t));
	m->plan_scratch = calloc(x->n_ops + 1, sizeof(uint64_t));
	m->op_names = calloc(x->n_ops + 1, sizeof(char *));
	if (!m->plan_packed || !m->plan_scratch || !m->op_names)
		return -ENOMEM;
	m->n_ops = x->n_ops;
	for (uint32_t k = 0; k < x->n_ops; k++) {
		m->plan_packed[k] = x->ops[k].packed_bytes;
		m->plan_scratch[k] = x->ops[k].private_bytes;
		if (names && k < names->n_ops && names->ops[k].opname &&
		    !(m->op_names[k] = strdup(names->ops[k].opname)))
			return -ENOMEM;
	}
	return 0;
}

int ap_xnn_measure(const struct ap_analysis *a, const struct ap_xnn_plan *x,
		   const struct ap_tplan *names, struct ap_xnn_measured *m)
{
	int rc;

	memset(m, 0, sizeof(*m));
	if (!a->allocs)
		return 0;
	rc = collect(a, m);
	if (rc || !m->probed)
		return rc;
	if (!x) {
		/* without a plan: the classes are named, the operators are not */
		m->attributed_bytes = m->bytes[AP_XNN_WORKSPACE] + m->bytes[AP_XNN_OTHER];
		return 0;
	}
	rc = keep_plan(m, x, names);
	return rc ? rc : attribute(m, a, x);
}

void ap_xnn_measured_free(struct ap_xnn_measured *m)
{
	free(m->b);
	free(m->op_packed);
	free(m->op_scratch);
	free(m->plan_packed);
	free(m->plan_scratch);
	for (uint32_t k = 0; m->op_names && k < m->n_ops; k++)
		free(m->op_names[k]);
	free(m->op_names);
	memset(m, 0, sizeof(*m));
}
