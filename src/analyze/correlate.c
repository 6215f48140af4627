// SPDX-License-Identifier: Apache-2.0
/* correlate: arena base, plan and marker attribution, groups, verdict (correlate.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/event.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/analyze/xnn_workspace.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/plan/plan_build.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/sort.h"

/* Below these the plan is said not to describe the trace (see corr_verdict). */
#define AGREE_MIN 0.5		/* plan vs marker agreement over first-touch pages */
#define ORDER_MIN 0.8		/* without markers: first touches in plan order */
#define PRETOUCH_MIN 0.5	/* ... unless this many came outside every run */
#define UNEXPLAINED_MAX 0.1	/* first touches no planned tensor covers */
#define COVER_MIN 0.5		/* of the plan's pages, first-touched or resident at attach */

static const char *const group_names[AP_GROUP_COUNT] = {
	[AP_GROUP_ARENA] = "arena", [AP_GROUP_WEIGHTS] = "weights", [AP_GROUP_HEAP] = "heap",
	[AP_GROUP_STACK] = "stack", [AP_GROUP_ANON] = "other anonymous",
	[AP_GROUP_FILES] = "code and other files",
};

const char *ap_group_name(enum ap_group g)
{
	return g < AP_GROUP_COUNT ? group_names[g] : "?";
}

enum ap_group ap_corr_group_of(const struct ap_analysis *a, int32_t mi)
{
	const char *role;

	if (mi < 0 || (uint32_t)mi >= a->as.n_maps)
		return AP_GROUP_FILES;
	role = a->as.maps[mi].role;
	if (mi == a->id.map || !strcmp(role, AP_ROLE_MODEL_ARENA))
		return AP_GROUP_ARENA;
	if (!strcmp(role, "weights"))
		return AP_GROUP_WEIGHTS;
	if (!strcmp(role, "heap"))
		return AP_GROUP_HEAP;
	if (!strcmp(role, "stack"))
		return AP_GROUP_STACK;
	if (a->as.maps[mi].anon)
		return AP_GROUP_ANON;
	return AP_GROUP_FILES;
}

int32_t ap_corr_writer(const struct ap_tplan *p, const struct ap_ptensor *t)
{
	if (t->offset < 0 || !t->bytes)
		return AP_OP_NONE;
	if (t->kind == AP_KIND_INPUT)
		return -1;
	if ((t->kind == AP_KIND_ARENA || t->kind == AP_KIND_OUTPUT ||
	     t->kind == AP_KIND_TEMPORARY) && t->first >= 0 && (uint32_t)t->first < p->n_ops)
		return t->first;
	return AP_OP_NONE;
}

const char *ap_corr_op_label(const struct ap_tplan *p, int32_t op, char *buf, int len)
{
	if (op == -1)
		snprintf(buf, (size_t)len, "-1 input");
	else if (p && op >= 0 && (uint32_t)op < p->n_ops)
		snprintf(buf, (size_t)len, "%d %s", op,
			 ap_text_safe(p->ops[op].opname, (char[128]){ 0 }, 128));
	else if (op == AP_OP_NONE)
		snprintf(buf, (size_t)len, "none");
	else
		snprintf(buf, (size_t)len, "%d", op);
	return buf;
}

uint64_t ap_corr_peak(const struct ap_corr_all *x, bool *from_hwm)
{
	uint64_t hwm = AP_SAMPLE_MAX(&x->a, vm_hwm), all = 0;

	for (int k = 0; k < AP_GROUP_COUNT; k++)
		all += x->c.groups[k].resident_bytes;
	if (from_hwm)
		*from_hwm = hwm >= all;
	return hwm >= all ? hwm : all;
}

double ap_corr_agreement(const struct ap_corr *c)
{
	return c->compared ? (double)c->agree / (double)c->compared : 0;
}

uint64_t ap_corr_attributed(const struct ap_corr *c, uint32_t *n_ops)
{
	uint64_t n = 0;
	uint32_t k_ops = 0;

	for (uint32_t k = 0; c->ops && k <= c->n_ops; k++) {
		n += c->ops[k].plan_pages;
		k_ops += c->ops[k].plan_pages > 0;
	}
	if (n_ops)
		*n_ops = k_ops;
	return n;
}

static void reason(struct ap_corr *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reason(struct ap_corr *c, const char *fmt, ...)
{
	va_list ap;

	c->mismatch = true;
	if (c->n_reasons >= AP_CORR_MAX_REASONS)
		return;
	va_start(ap, fmt);
	vsnprintf(c->reasons[c->n_reasons++], sizeof(c->reasons[0]), fmt, ap);
	va_end(ap);
}

static void groups(const struct ap_analysis *a, struct ap_corr *c)
{
	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		const struct ap_amap *m = &a->as.maps[i];
		struct ap_corr_group *g = &c->groups[ap_corr_group_of(a, (int32_t)i)];

		if (!m->faults && !m->resident_at_attach)
			continue;
		g->mappings++;
		g->faults += m->faults;
		g->first_touch_pages += m->first_touch_pages;
		g->resident_bytes += (m->first_touch_pages + m->resident_at_attach) *
				     a->hdr.page_size;
	}
}

/* The tensor that names each page's plan attribution (its writer is the page's). */
static void page_tensors(const struct ap_tplan *p, uint64_t ps, uint64_t n_pages,
			 int64_t delta, const int32_t *op, int32_t *tensor)
{
	for (uint64_t j = 0; j < n_pages; j++)
		tensor[j] = -1;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct ap_ptensor *t = &p->t[i];
		int32_t w = ap_corr_writer(p, t);
		uint64_t lo, hi;

		if (w == AP_OP_NONE)
			continue;
		lo = (uint64_t)t->offset + (uint64_t)delta;
		hi = lo + t->bytes - 1;
		for (uint64_t pg = lo / ps; pg <= hi / ps && pg < n_pages; pg++)
			if (tensor[pg] < 0 && op[pg] == w)
				tensor[pg] = (int32_t)i;
	}
}

static int add_dis(struct ap_corr *c, uint64_t *cap, const struct ap_corr_disagree *d)
{
	if (ap_grow(&c->dis, cap, c->n_dis, sizeof(*c->dis), 64))
		return -ENOMEM;
	c->dis[c->n_dis++] = *d;
	return 0;
}

/* A first touch of the arena: in its mapping, and in its block when it is one. */
static bool in_arena(const struct ap_corr *c, const struct ap_touch *t)
{
	return (int32_t)t->map == c->arena && t->page >= c->page_lo && t->page < c->page_hi;
}

static int attribute(const struct ap_analysis *a, struct ap_corr *c)
{
	uint64_t cap = 0;

	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];
		int32_t po;

		if (!in_arena(c, t))
			continue;
		po = t->page < c->n_pages ? c->page_op[t->page] : AP_OP_NONE;
		if (po != AP_OP_NONE)
			c->ops[po + 1].plan_pages++;
		else if (t->page >= c->plan_pages)
			c->beyond_pages++;
		else
			c->unplanned_pages++;
		if (!c->have_markers)
			continue;
		if (t->op >= -1 && t->op < (int32_t)c->n_ops)
			c->ops[t->op + 1].marker_pages++;
		else
			c->marker_other_pages++;
		c->compared++;
		if (po == t->op) {
			c->agree++;
		} else {
			struct ap_corr_disagree d = {
				.page = t->page, .run = t->run, .plan_op = po, .marker_op = t->op,
				.tensor = t->page < c->n_pages ? c->page_tensor[t->page] : -1,
			};

			if (add_dis(c, &cap, &d))
				return -ENOMEM;
		}
	}
	return 0;
}

static void verdict(const struct ap_analysis *a, const struct ap_arena_id *id,
		    const struct ap_tplan *p, unsigned flags, struct ap_corr *c)
{
	uint64_t ps = c->page_size, map_bytes = c->map_end - c->map_start;
	uint64_t extent = p->arena_bytes + (uint64_t)c->delta;
	uint64_t extent_pages = (extent + ps - 1) / ps, seen, planned;

	if (extent > map_bytes)
		reason(c, "arena size mismatch: the plan's %" PRIu64 "-byte arena does not fit "
		       "in the %" PRIu64 "-byte mapping", p->arena_bytes, map_bytes);
	else if (!ap_arena_is_block(id) &&	/* not in [heap] */
		 map_bytes > (extent_pages + 2) * ps)
		reason(c, "arena size mismatch: the mapping (%" PRIu64 " bytes) is larger than "
		       "the plan's arena (%" PRIu64 " bytes) and its malloc slack",
		       map_bytes, p->arena_bytes);
	if (!c->ft_pages)
		return;
	/* a few touches agree with any plan: an inference touches most of its arena */
	seen = c->ft_pages + a->as.maps[c->arena].resident_at_attach;
	/* the pages a planned tensor lies on (a gap no tensor takes need not be touched),
	 * less those of inputs and outputs the runtime keeps elsewhere */
	planned = 0;
	for (uint64_t pg = c->page_lo; pg < c->plan_pages && pg < c->n_pages; pg++) {
		int32_t t = c->page_tensor[pg];

		if (c->page_op[pg] == AP_OP_NONE)
			continue;
		planned += !(flags & AP_CORR_IO_OPTIONAL) || t < 0 ||
			   (p->t[t].kind != AP_KIND_INPUT && p->t[t].kind != AP_KIND_OUTPUT);
	}
	if ((double)seen < COVER_MIN * (double)planned)
		reason(c, "only %" PRIu64 " of the plan's %" PRIu64 " arena pages were touched or "
		       "resident: too few to tell whether the plan describes this trace", seen,
		       planned);
	if (c->have_markers && ap_corr_agreement(c) < AGREE_MIN)
		reason(c, "plan and marker attribution agree on only %.1f %% of %" PRIu64
		       " first-touch pages", 100 * ap_corr_agreement(c), c->compared);
	c->pretouched = !c->have_markers && c->runs_seen &&
			(double)c->order_ok < ORDER_MIN * (double)c->ft_pages &&
			(double)c->outside_runs >= PRETOUCH_MIN * (double)c->ft_pages;
	if (!c->have_markers && !c->pretouched &&
	    (double)c->order_ok < ORDER_MIN * (double)c->ft_pages)
		reason(c, "only %" PRIu64 " of %" PRIu64 " first touches follow the plan's "
		       "operator order", c->order_ok, c->ft_pages);
	if ((double)(c->unplanned_pages + c->beyond_pages) >
	    UNEXPLAINED_MAX * (double)c->ft_pages)
		reason(c, "%" PRIu64 " of %" PRIu64 " first-touch pages lie where the plan "
		       "puts no tensor (%" PRIu64 " past its end)",
		       c->unplanned_pages + c->beyond_pages, c->ft_pages, c->beyond_pages);
}

int ap_corr_build(const struct ap_analysis *a, const struct ap_tplan *p, struct ap_corr *c,
		  char *err)
{
	return ap_corr_build_at(a, &a->id, p, 0, c, err);
}

int ap_corr_build_at(const struct ap_analysis *a, const struct ap_arena_id *id,
		     const struct ap_tplan *p, unsigned flags, struct ap_corr *c, char *err)
{
	struct ap_profile pr;
	const struct ap_amap *m;
	int32_t *blk = NULL;
	uint64_t *tails = NULL;
	uint64_t gran;
	int64_t n_blk;

	memset(c, 0, sizeof(*c));
	c->arena = id->map;
	c->widest_op = -1;
	c->page_size = a->hdr.page_size ? a->hdr.page_size : 4096;
	c->have_markers = a->op_events > 0 ||
			  (a->strings[AP_HS_OP_PROBE] && a->strings[AP_HS_OP_PROBE][0]);
	groups(a, c);
	if (!p)
		return 0;
	c->have_plan = true;
	c->n_ops = p->n_ops;
	c->ops = calloc(p->n_ops + 1, sizeof(*c->ops));
	if (!c->ops)
		goto oom;
	if (!ap_profile_compute(p, &pr)) {
		c->widest_op = pr.widest_op;
		c->widest_bytes = pr.lower_bound;
		ap_profile_free(&pr);
	}
	if (id->map < 0) {
		reason(c, "no arena mapping in the trace: %s", id->why);
		return 0;
	}
	m = &a->as.maps[id->map];
	c->map_start = m->start;
	c->map_end = m->end;
	/*
	 * The tables cover the plan's extent past the base (and a page), not the whole
	 * mapping: their memory follows the plan, never a vma size a trace names. Pages
	 * past them are past the plan's end.
	 */
	c->base = id->base;
	c->delta = (int64_t)(id->base - m->start);
	c->n_pages = (m->end - m->start) / c->page_size;
	if (c->n_pages > ((uint64_t)c->delta + p->arena_bytes) / c->page_size + 2)
		c->n_pages = ((uint64_t)c->delta + p->arena_bytes) / c->page_size + 2;
	c->page_lo = 0;
	c->page_hi = UINT64_MAX;
	if (ap_arena_is_block(id)) {
		c->page_lo = (uint64_t)c->delta / c->page_size;
		c->page_hi = ((uint64_t)c->delta + p->arena_bytes + c->page_size - 1) /
			     c->page_size;
	}
	for (uint64_t i = 0; i < a->as.n_touches; i++)
		if (in_arena(c, &a->as.touches[i])) {
			c->ft_pages++;
			c->outside_runs += !ap_analysis_in_run(a, &a->as.touches[i]);
		}
	c->runs_seen = a->n_run_ns > 0;
	c->page_op = malloc((c->n_pages + 1) * sizeof(*c->page_op));
	c->page_tensor = malloc((c->n_pages + 1) * sizeof(*c->page_tensor));
	tails = malloc((c->ft_pages + 1) * sizeof(*tails));
	/* 8-byte blocks (a base past a malloc header shifts the owners exactly), coarser
	 * for huge arenas */
	for (gran = 8; p->arena_bytes / gran > (2u << 20); gran *= 2)
		;
	n_blk = ap_arena_page_owners(p, gran, &blk);
	if (!c->page_op || !c->page_tensor || !tails || n_blk < 0)
		goto oom;
	c->plan_pages = ap_arena_page_table(p, blk, (uint64_t)n_blk, gran, c->page_size,
					    c->n_pages, c->delta, c->page_op);
	page_tensors(p, c->page_size, c->n_pages, c->delta, c->page_op, c->page_tensor);
	c->order_ok = ap_arena_in_order(a, id->map, c->page_op, c->n_pages, tails);
	if (attribute(a, c))
		goto oom;
	verdict(a, id, p, flags, c);
	free(tails);
	free(blk);
	return 0;
oom:
	free(tails);
	free(blk);
	ap_corr_free(c);
	ap_seterr(err, "out of memory correlating the trace with the plan");
	return -ENOMEM;
}

void ap_corr_free(struct ap_corr *c)
{
	free(c->page_op);
	free(c->page_tensor);
	free(c->ops);
	free(c->dis);
	memset(c, 0, sizeof(*c));
	c->arena = -1;
	c->widest_op = -1;
}

/* The trace has blocks of XNNPACK's allocator (record probes it where it is mapped). */
static bool xnn_ran(const struct ap_allocs *al)
{
	for (uint32_t i = 0; al && i < al->n; i++)
		if (ap_alloc_fn_xnn(al->b[i].fn))
			return true;
	return false;
}

/*
 * CompiledModel ran: a block from LiteRtTensorBufferT::CreateManagedOnHostMemory (its
 * TensorBuffers: posix_memalign(64, bytes + XNN_EXTRA_BYTES), one per input and output of
 * a page or more).
 */
static bool is_tensor_buffer(const struct ap_analysis *a, const struct ap_block *b)
{
	char who[240];

	if (b->fn != AP_ALLOC_POSIX_MEMALIGN)
		return false;
	ap_as_addr_name(&a->as, b->caller, who, sizeof(who));
	return !strncmp(who, "LiteRtTensorBufferT::CreateManagedOnHostMemory", 46);
}

#define AP_XNN_EXTRA_BYTES 16	/* the slack CreateManagedOnHostMemory adds */

/* The TensorBuffers the trace has, and those no tensor of CompiledModel's plan binds. */
static void tensor_buffers(struct ap_corr_all *x)
{
	for (uint32_t i = 0; x->a.allocs && i < x->a.allocs->n; i++) {
		const struct ap_block *b = &x->a.allocs->b[i];
		bool bound = false;

		if (!is_tensor_buffer(&x->a, b))
			continue;
		x->tb_blocks++;
		x->tb_bytes += b->size;
		for (uint32_t k = 0; x->compiled && k < x->plan.n && !bound; k++)
			bound = x->plan.t[k].kind == AP_KIND_PARENT &&
				x->plan.t[k].bytes + AP_XNN_EXTRA_BYTES == b->size;
		x->tb_unbound += !bound;
	}
}

static bool compiled_ran(const struct ap_analysis *a)
{
	for (uint32_t i = 0; a->allocs && i < a->allocs->n; i++)
		if (is_tensor_buffer(a, &a->allocs->b[i]))
			return true;
	return false;
}

/*
 * --delegate auto: a model has two plans, the builtin kernels' arena and the TFLite arena
 * left on LiteRT's default path (XNNPACK takes its partitions). The allocation probe saw
 * which one the runtime took: a first pass reads the blocks; XNNPACK's allocator called
 * means the default path, else the plan whose size one of the blocks has is the trace's
 * (the builtin one when neither or both are). *reuse: that pass, when it is the one the
 * caller would run (the builtin plan, no fault callback).
 */
static int choose_delegate(const struct ap_corr_in *in, struct ap_corr_all *x,
			   struct ap_analysis *pre, bool *reuse, char *err)
{
	struct ap_analysis_opts po = { .plan = &x->plan, .model_path = in->plan_path,
				       .arena_addr = in->arena_addr, .salvage = in->salvage };
	struct ap_tplan xp = { 0 };
	char ignored[AP_ERR_LEN];
	struct ap_arid r;
	int rc;

	*reuse = false;
	/* an import, or a model the XNNPACK side cannot plan: the one plan there is */
	if (ap_plan_load_for(in->plan_path, AP_DELEGATE_XNNPACK, x->rt.id, &xp, ignored))
		return 0;
	rc = ap_analysis_run(in->trace, &po, pre, err);
	if (rc) {
		ap_tplan_free(&xp);
		return rc;
	}
	ap_arid_find(pre->allocs, x->plan.arena_bytes, &r);
	if (xnn_ran(pre->allocs)) {	/* XNNPACK's allocator was called: its path ran */
		struct ap_tplan cp = { 0 };
		bool cm = compiled_ran(pre), x_sized;

		ap_arid_find(pre->allocs, xp.arena_bytes, &r);
		x_sized = r.rule == AP_ARID_PLAN_SIZE;
		/* CompiledModel's TensorBuffers, or no block of the Interpreter's size:
		 * CompiledModel's arena, inputs and outputs apart (it may be empty)? */
		if ((cm || !x_sized) &&
		    !ap_plan_load_compiled(in->plan_path, x->rt.id, &cp, ignored)) {
			ap_arid_find(pre->allocs, cp.arena_bytes, &r);
			if ((cm && !x_sized) || (cp.arena_bytes && r.rule == AP_ARID_PLAN_SIZE)) {
				ap_tplan_free(&xp);
				xp = cp;
				x->compiled = true;
				x->no_arena = !xp.arena_bytes;
			} else {
				ap_tplan_free(&cp);
			}
		}
		/* TensorBuffers, and the Interpreter's arena allocated whole: CompiledModel
		 * bound its inputs and outputs after planning (litert-benchmark), their
		 * arena bytes left unused */
		if (cm && x_sized && !x->compiled)
			x->compiled = x->io_late = true;
		ap_tplan_free(&x->plan);
		x->plan = xp;
		xp = (struct ap_tplan){ 0 };
		x->delegate = AP_DELEGATE_XNNPACK;
	} else if (r.rule != AP_ARID_PLAN_SIZE && xp.arena_bytes != x->plan.arena_bytes) {
		ap_arid_find(pre->allocs, xp.arena_bytes, &r);
		if (r.rule == AP_ARID_PLAN_SIZE) {
			ap_tplan_free(&x->plan);
			x->plan = xp;
			xp = (struct ap_tplan){ 0 };
			x->delegate = AP_DELEGATE_XNNPACK;
		}
	}
	ap_tplan_free(&xp);
	*reuse = x->delegate == AP_DELEGATE_NONE && !in->on_fault;
	if (!*reuse)
		ap_analysis_free(pre);
	return 0;
}

/*
 * XNNPACK's blocks, named by operator with the model's default-path plan when --plan is
 * a model the delegate was planned for (an import, or --delegate none: classes only).
 */
static int measure_xnn(const struct ap_corr_in *in, struct ap_corr_all *x, char *err)
{
	struct ap_plan_req rq = { .path = in->plan_path, .src = AP_PLAN_MODEL,
				  .strat = AP_STRAT_TFLITE,
				  .delegate = AP_DELEGATE_XNNPACK,
				  .gopts.runtime = x->rt.id };
	struct ap_plan_set s = { 0 };
	char ignored[AP_ERR_LEN];
	bool planned = false;
	int rc;

	/* several models: XNNPACK's blocks are all of theirs, one model's plan names none */
	if (x->have_plan && x->delegate == AP_DELEGATE_XNNPACK && in->plan_path &&
	    !in->n_more && x->a.allocs && x->a.allocs->n)
		planned = !ap_plan_build(&rq, &s, ignored) && s.have_xnn;
	rc = ap_xnn_measure(&x->a, planned ? &s.xnn : NULL, planned ? &s.plan : NULL, &x->xm);
	x->xm.several_models = in->n_more > 0;
	if (planned) {	/* the file's pages by reader; what a weight cache would move */
		ap_wsplit_measure(&x->a, s.wranges, s.n_wranges, &x->wsplit);
		x->wcache = s.wcache;
		x->have_xnn_weights = true;
	}
	if (planned && s.have_xnn_ws) {	/* the workspace's plan, kept for its pages */
		x->ws_plan = s.xnn_ws;
		s.have_xnn_ws = false;
		x->have_ws = true;
	}
	ap_plan_set_free(&s);
	if (rc)
		ap_seterr(err, "out of memory");
	return rc;
}

/*
 * CompiledModel's plan leaves no TFLite arena: none is looked for (a.id names none), and
 * the plan fails only if the trace has LiteRT's arena call (rule 2's: aligned_alloc or
 * memalign with 64-byte alignment, a page or more).
 */
static int corr_no_arena(struct ap_corr_all *x, char *err)
{
	const struct ap_allocs *al = x->a.allocs;
	struct ap_corr *c = &x->c;
	int rc = ap_corr_build(&x->a, NULL, c, err);

	if (rc)
		return rc;
	c->have_plan = true;
	c->n_ops = x->plan.n_ops;
	c->ops = calloc(c->n_ops + 1, sizeof(*c->ops));
	if (!c->ops) {
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; al && i < al->n; i++) {
		const struct ap_block *b = &al->b[i];
		char call[96], who[240];

		if ((b->fn != AP_ALLOC_ALIGNED_ALLOC && b->fn != AP_ALLOC_MEMALIGN) ||
		    b->align != AP_ARENA_ALIGN)
			continue;
		reason(c, "CompiledModel's plan leaves no TFLite arena, but LiteRT's arena call "
		       "%s ran (from %s)", ap_block_call(b, call, sizeof(call)),
		       ap_as_addr_name(&x->a.as, b->caller, who, sizeof(who)));
		break;
	}
	return 0;
}

static void id_no_arena(struct ap_arena_id *id)
{
	memset(id, 0, sizeof(*id));
	id->map = -1;
	id->block = -1;
	snprintf(id->why, sizeof(id->why), "CompiledModel leaves no TFLite arena beside "
		 "XNNPACK: every tensor outside XNNPACK's partitions is a model input or output, "
		 "bound to CompiledModel's TensorBuffers");
}

/* The runtime path the trace ran (one process, one path), as the first model's plan says:
 * every other model is planned for it. */
struct run_path {
	bool compiled;			/* CompiledModel's arena (inputs and outputs apart) */
	enum ap_delegate delegate;	/* else the Interpreter's, for this delegate */
	enum ap_runtime_id runtime;	/* by these rules (the trace's runtime, or given) */
};

static struct run_path trace_path(const struct ap_corr_all *x)
{
	return (struct run_path){ .compiled = x->compiled && !x->io_late,
				  .delegate = x->delegate, .runtime = x->rt.id };
}

/*
 * The models after the first: planned for the trace's path, each arena found among the
 * blocks no model before it took, kept apart before the groups are counted.
 */
static int load_more(const struct ap_corr_in *in, const struct run_path *path,
		     struct ap_corr_all *x, char *err)
{
	int32_t taken[AP_MAX_MODELS];
	uint32_t n_taken = 0;
	int rc;

	if (x->a.id.block >= 0)
		taken[n_taken++] = x->a.id.block;
	for (uint32_t i = 0; i < in->n_more; i++) {
		struct ap_more_model *m = &x->more[i];

		rc = path->compiled ?
		     ap_plan_load_compiled(in->more_plans[i], path->runtime, &m->plan, err) :
		     ap_plan_load_for(in->more_plans[i], path->delegate, path->runtime, &m->plan,
				      err);
		if (rc)
			return rc;
		x->model_path[x->n_models++] = in->more_plans[i];
		if (ap_model_arena_locate(&x->a, in->more_plans[i], &m->plan, taken, n_taken,
					  &m->id))
			taken[n_taken++] = m->id.block;
	}
	return 0;
}

/* Each model's correlation after the first's, and every model's runs and weights. */
static int corr_more(struct ap_corr_all *x, char *err)
{
	const struct ap_arena_id *ids[AP_MAX_MODELS] = { &x->a.id };
	int rc;

	for (uint32_t i = 1; i < x->n_models; i++) {
		struct ap_more_model *m = &x->more[i - 1];

		rc = ap_corr_build_at(&x->a, &m->id, &m->plan,
				      x->io_late ? AP_CORR_IO_OPTIONAL : 0, &m->c, err);
		if (rc)
			return rc;
		ids[i] = &m->id;
	}
	ap_models_runs(&x->a, ids, x->n_models, x->runs);
	for (uint32_t i = 0; i < x->n_models; i++)
		ap_model_weights_find(&x->a, x->model_path[i], &x->weights[i]);
	return 0;
}

void ap_corr_model(const struct ap_corr_all *x, uint32_t i, struct ap_corr_model *m)
{
	*m = (struct ap_corr_model){ .path = x->model_path[i], .runs = &x->runs[i],
				     .weights = &x->weights[i] };
	if (!i) {
		m->plan = &x->plan;
		m->id = &x->a.id;
		m->c = &x->c;
	} else {
		m->plan = &x->more[i - 1].plan;
		m->id = &x->more[i - 1].id;
		m->c = &x->more[i - 1].c;
	}
}

/*
 * The first plan: its rules from --runtime or the trace's runtime notes (read first: the
 * plan is needed for the pass), for --delegate's path; TFLite Micro has no XNNPACK, so
 * its plan is the builtin kernels' whatever the trace ran.
 */
static int load_plan(const struct ap_corr_in *in, struct ap_corr_all *x, char *err)
{
	int rc = ap_trace_runtime_scan(in->trace, in->salvage, &x->rt, err);
	bool one = ap_runtime_get(x->rt.id)->one_arena;

	if (rc)
		return rc;
	x->delegate = in->delegate == AP_CORR_XNNPACK ? AP_DELEGATE_XNNPACK :
		      AP_DELEGATE_NONE;
	rc = ap_plan_load_for(in->plan_path, x->delegate, x->rt.id, &x->plan, err);
	if (rc)
		return rc;
	x->have_plan = true;
	x->model_path[x->n_models++] = in->plan_path;
	x->delegate_auto = in->delegate == AP_CORR_AUTO && !one;
	if (in->runtime_given && !strncmp(x->plan.strategy, "import:", 7))
		return ap_fail(err, -EINVAL, "--runtime needs a MODEL: %s is an imported plan, "
			       "planned already", in->plan_path);
	return 0;
}

int ap_corr_load(const struct ap_corr_in *in, struct ap_corr_all *x, char *err)
{
	struct ap_analysis_opts ao = { 0 };
	bool reuse = false;
	int rc;

	memset(x, 0, sizeof(*x));
	x->a.id.map = -1;
	x->c.arena = -1;
	x->rt.id = in->runtime;
	x->rt.given = in->runtime_given;
	if (in->plan_path) {
		rc = load_plan(in, x, err);
		if (rc)
			return rc;
		if (x->delegate_auto) {
			rc = choose_delegate(in, x, &x->a, &reuse, err);
			if (rc)
				return rc;
		}
		x->rt.xnn_unmodelled = x->delegate == AP_DELEGATE_XNNPACK &&
				       !ap_runtime_get(x->rt.id)->xnnpack_modelled;
		ao.plan = &x->plan;
		ao.model_path = in->plan_path;
		if (in->on_plan)
			in->on_plan(in->ctx, &x->plan);
	}
	ao.arena_addr = in->arena_addr;
	ao.on_fault = in->on_fault;
	ao.ctx = in->ctx;
	ao.salvage = in->salvage;
	rc = reuse ? 0 : ap_analysis_run(in->trace, &ao, &x->a, err);
	if (rc)
		return rc;
	/* no model planned: the runtime named, from the notes the pass read */
	for (uint32_t i = 0; !in->plan_path && i < x->a.n_notes; i++)
		ap_trace_runtime_add(&x->rt, x->a.notes[i]);
	if (!in->plan_path)
		ap_trace_runtime_pick(&x->rt);
	if (x->no_arena && !in->arena_addr)
		id_no_arena(&x->a.id);
	if (in->arena_addr && x->a.id.map < 0) {
		ap_seterr(err, "--arena 0x%" PRIx64 " is in no mapping of the trace",
			  in->arena_addr);
		return -EINVAL;
	}
	rc = measure_xnn(in, x, err);
	if (rc)
		return rc;
	tensor_buffers(x);
	/* the workspace's and the other models' pages apart before the groups are counted */
	if (x->have_ws)
		x->have_ws = ap_xnn_ws_locate(&x->a, &x->xm, x->ws_plan.arena_bytes, &x->ws_id);
	if (x->have_plan) {
		struct run_path path = trace_path(x);	/* decided once, for every model */

		rc = load_more(in, &path, x, err);
	}
	if (rc)
		return rc;
	rc = x->no_arena && x->a.id.map < 0 ? corr_no_arena(x, err) :
	     ap_corr_build_at(&x->a, &x->a.id, x->have_plan ? &x->plan : NULL,
			      x->io_late ? AP_CORR_IO_OPTIONAL : 0, &x->c, err);
	if (!rc && x->have_plan)
		rc = corr_more(x, err);
	if (rc || !x->have_ws)
		return rc;
	/* named by its values' plan as the arena's pages are by the arena plan */
	return ap_corr_build_at(&x->a, &x->ws_id, &x->ws_plan, 0, &x->ws, err);
}

void ap_corr_all_free(struct ap_corr_all *x)
{
	for (uint32_t i = 1; i < x->n_models; i++) {
		ap_corr_free(&x->more[i - 1].c);
		ap_tplan_free(&x->more[i - 1].plan);
	}
	ap_corr_free(&x->c);
	ap_corr_free(&x->ws);
	ap_tplan_free(&x->ws_plan);
	ap_xnn_measured_free(&x->xm);
	ap_analysis_free(&x->a);
	if (x->have_plan)
		ap_tplan_free(&x->plan);
	memset(x, 0, sizeof(*x));
}

const char *ap_corr_short_name(const char *name, char *buf, size_t len)
{
	size_t n = strcspn(name ? name : "", ";"), k;
	char part[512], whole[1024];

	if (!len)
		return "";
	if (n >= sizeof(part))
		n = sizeof(part) - 1;
	memcpy(part, name ? name : "", n);
	part[n] = '\0';
	ap_text_safe(part, whole, sizeof(whole));
	k = strlen(whole);
	if (k < len || len <= 4) {
		ap_text_safe(whole, buf, len);
		return buf;
	}
	/* cut at a character boundary, then "..." */
	ap_text_safe(whole, buf, len - 3);
	strcat(buf, "...");
	return buf;
}

