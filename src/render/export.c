// SPDX-License-Identifier: Apache-2.0
/* export: Chrome trace-event JSON and per-fault CSV, streamed (export.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/event.h"
#include "arenaprof/render/export.h"
#include "arenaprof/analyze/replay.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/json.h"

#define RESIDENT_EVERY_NS 50000	/* the arena-resident counter at most every 50 us */

static const char *short_tensor(const struct ap_corr_all *x, int32_t t, char *buf)
{
	if (!x->have_plan || t < 0 || (uint32_t)t >= x->plan.n)
		return "";
	return ap_corr_short_name(x->plan.t[t].name, buf, 64);
}

static int write_error(FILE *f, char *err)
{
	if (fflush(f) || ferror(f)) {
		ap_seterr(err, "write error: %s", strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
}

/* ---- chrome ---- */

struct thread {
	uint32_t tid;
	int32_t op;		/* open operator slice, -2 none */
};

/*
 * Faults per operator slice (thread, run, operator), counted in a pass of their own by
 * the faults' own run and operator: the recorder batches faults per CPU, so a slice's
 * faults may come after its end in the trace.
 */
struct slice {
	uint32_t tid;
	int32_t run, op;
	bool used;
	uint64_t faults, arena_faults;
};

struct slices {
	struct slice *s;
	uint32_t n, cap;	/* cap a power of two, at most half full */
};

struct chrome {
	struct ap_json j;
	const struct ap_corr_all *x;
	uint64_t base_ns;
	int32_t pid;
	bool instants;
	struct thread *th;
	uint32_t n_th, cap_th;
	uint64_t last_ts;	/* the latest fault's time */
	uint64_t resident, resident_shown, resident_ts;
	struct slices sl;
};

static uint32_t slice_hash(uint32_t tid, int32_t run, int32_t op)
{
	return tid * 2654435761u ^ (uint32_t)run * 40503u ^ (uint32_t)op * 2246822519u;
}

/* The slice of (tid, run, op): found, else added when add (NULL: not there, or no memory). */
static struct slice *slice_at(struct slices *t, uint32_t tid, int32_t run, int32_t op,
			      bool add)
{
	uint32_t i;

	if (add && 2 * (t->n + 1) > t->cap) {
		struct slices g = { .cap = t->cap ? 2 * t->cap : 1024 };

		g.s = calloc(g.cap, sizeof(*g.s));
		if (!g.s)
			return NULL;
		for (uint32_t k = 0; k < t->cap; k++)
			if (t->s[k].used)
				*slice_at(&g, t->s[k].tid, t->s[k].run, t->s[k].op, true) = t->s[k];
		free(t->s);
		*t = g;
	}
	if (!t->cap)
		return NULL;
	for (i = slice_hash(tid, run, op) & (t->cap - 1); t->s[i].used; i = (i + 1) & (t->cap - 1))
		if (t->s[i].tid == tid && t->s[i].run == run && t->s[i].op == op)
			return &t->s[i];
	if (!add)
		return NULL;
	t->s[i] = (struct slice){ .tid = tid, .run = run, .op = op, .used = true };
	t->n++;
	return &t->s[i];
}

static int count_fault(void *ctx, const struct ap_corr_fault *cf)
{
	struct slice *s;

	if (cf->f->op < 0)	/* outside every operator: no slice */
		return 0;
	s = slice_at(ctx, cf->f->tid, cf->f->run, cf->f->op, true);
	if (!s)
		return -ENOMEM;
	s->faults++;
	s->arena_faults += cf->in_arena;
	return 0;
}

/* Opens an event: {"ph", "ts" (microseconds, to the nanosecond), "pid", "tid", name}. */
static void ev_start(struct chrome *c, const char *ph, uint64_t ts_ns, uint32_t tid,
		     const char *name)
{
	/* ns -> us, sign and magnitude: any two u64 times (a trace's are any) */
	bool neg = ts_ns < c->base_ns;
	uint64_t d = neg ? c->base_ns - ts_ns : ts_ns - c->base_ns;
	char ts[48];

	snprintf(ts, sizeof(ts), "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", d / 1000, d % 1000);
	fputc('\n', c->j.f);
	ap_json_obj(&c->j, NULL);
	ap_json_str(&c->j, "ph", ph);
	ap_json_num(&c->j, "ts", ts);
	ap_json_i64(&c->j, "pid", c->pid);
	ap_json_u64(&c->j, "tid", tid);
	if (name)
		ap_json_str(&c->j, "name", name);
}

/* Closes the event's "args" object and the event. */
static void ev_end_args(struct chrome *c)
{
	ap_json_end_obj(&c->j);
	ap_json_end_obj(&c->j);
}

static struct thread *thread_of(struct chrome *c, uint32_t tid, uint64_t ts)
{
	char name[48];

	for (uint32_t i = 0; i < c->n_th; i++)
		if (c->th[i].tid == tid)
			return &c->th[i];
	if (ap_grow32(&c->th, &c->cap_th, c->n_th, sizeof(*c->th), 16))
		return NULL;
	c->th[c->n_th] = (struct thread){ .tid = tid, .op = -2 };
	ev_start(c, "M", ts, tid, "thread_name");
	snprintf(name, sizeof(name), "%s %u", (int32_t)tid == c->pid ? "main thread" : "thread",
		 tid);
	ap_json_obj(&c->j, "args");
	ap_json_str(&c->j, "name", name);
	ev_end_args(c);
	return &c->th[c->n_th++];
}

static void counter(struct chrome *c, uint64_t ts, const char *name, const char *key,
		    uint64_t v)
{
	ev_start(c, "C", ts, (uint32_t)c->pid, name);
	ap_json_obj(&c->j, "args");
	ap_json_u64(&c->j, key, v);
	ev_end_args(c);
}

/* "#12 CONV_2D", or "op 12" without a plan (a custom name from the model, escaped). */
static const char *op_name(const struct chrome *c, int32_t op, char *name, size_t len)
{
	const struct ap_tplan *p = &c->x->plan;

	if (c->x->have_plan && op >= 0 && (uint32_t)op < p->n_ops)
		snprintf(name, len, "#%d %s", op, p->ops[op].opname);
	else
		snprintf(name, len, "op %d", op);
	return name;
}

static int on_marker(void *ctx, uint32_t type, const struct ap_rec_marker *mk)
{
	struct chrome *c = ctx;
	const struct ap_tplan *p = &c->x->plan;
	const struct ap_rec_marker m = *mk;
	struct thread *t;
	const struct slice *sl;
	bool begin = type == AP_REC_RUN_BEGIN || type == AP_REC_OP_BEGIN;
	bool run = type == AP_REC_RUN_BEGIN || type == AP_REC_RUN_END;
	char name[300];

	t = thread_of(c, m.tid, m.ts_ns);
	if (!t)
		return -ENOMEM;
	if (run)
		snprintf(name, sizeof(name), "run %d", m.run);
	else
		op_name(c, m.op, name, sizeof(name));
	ev_start(c, begin ? "B" : "E", m.ts_ns, m.tid, NULL);
	ap_json_str(&c->j, "cat", run ? "run" : "op");
	ap_json_str(&c->j, "name", name);
	ap_json_obj(&c->j, "args");
	if (run) {
		ap_json_i64(&c->j, "run", m.run);
		ev_end_args(c);
		return 0;
	}
	if (begin) {
		ap_json_i64(&c->j, "op", m.op);
		ap_json_i64(&c->j, "run", m.run);
		if (c->x->have_plan && m.op >= 0 && (uint32_t)m.op < p->n_ops)
			ap_json_str(&c->j, "output", p->ops[m.op].out_name);
		ev_end_args(c);
		t->op = m.op;
		return 0;
	}
	sl = slice_at(&c->sl, m.tid, m.run, m.op, false);
	ap_json_u64(&c->j, "faults", sl ? sl->faults : 0);
	ap_json_u64(&c->j, "arena_faults", sl ? sl->arena_faults : 0);
	ev_end_args(c);
	if (!c->instants && sl && sl->faults)
		counter(c, m.ts_ns, "faults per operator", "faults", sl->faults);
	t->op = -2;
	return 0;
}

/* One fault as an instant event. */
static void fault_instant(struct chrome *c, const struct ap_corr_fault *cf)
{
	const struct ap_rec_fault *f = cf->f;
	char name[64], addr[24], b[64];

	snprintf(name, sizeof(name), "fault %s", ap_group_name(cf->group));
	snprintf(addr, sizeof(addr), "0x%" PRIx64, f->addr);
	ev_start(c, "i", f->ts_ns, f->tid, NULL);
	ap_json_str(&c->j, "s", "t");
	ap_json_str(&c->j, "cat", "fault");
	ap_json_str(&c->j, "name", name);
	ap_json_obj(&c->j, "args");
	ap_json_str(&c->j, "addr", addr);
	ap_json_i64(&c->j, "run", f->run);
	ap_json_i64(&c->j, "op_marker", f->op);
	ap_json_bool(&c->j, "write", f->flags & AP_FF_WRITE);
	if (cf->group == AP_GROUP_ARENA && c->x->c.page_op) {
		ap_json_bool(&c->j, "first_touch", cf->in_arena && cf->first);
		ap_json_i64(&c->j, "offset", (int64_t)(f->addr - c->x->c.base));
		if (cf->plan_op != AP_OP_NONE) {
			ap_json_i64(&c->j, "op_plan", cf->plan_op);
			ap_json_str(&c->j, "tensor", short_tensor(c->x, cf->tensor, b));
		}
	}
	ev_end_args(c);
}

static int on_fault(void *ctx, const struct ap_corr_fault *cf)
{
	struct chrome *c = ctx;
	const struct ap_rec_fault *f = cf->f;
	struct thread *t = thread_of(c, f->tid, f->ts_ns);
	bool first = cf->in_arena && cf->first;

	if (!t)
		return -ENOMEM;
	c->last_ts = f->ts_ns > c->last_ts ? f->ts_ns : c->last_ts;
	if (first)
		c->resident += c->x->c.page_size;
	if (c->instants)
		fault_instant(c, cf);
	if (first && (f->ts_ns >= c->resident_ts + RESIDENT_EVERY_NS || !c->resident_shown)) {
		counter(c, f->ts_ns, "arena resident", "bytes", c->resident);
		c->resident_shown = c->resident;
		c->resident_ts = f->ts_ns;
	}
	return 0;
}

static int on_sample(void *ctx, const struct ap_rec_sample *sp)
{
	struct chrome *c = ctx;
	const struct ap_rec_sample s = *sp;

	if (s.vm_rss != AP_NO_VALUE)
		counter(c, s.ts_ns, "VmRSS", "bytes", s.vm_rss);
	if (s.pss_anon != AP_NO_VALUE)
		counter(c, s.ts_ns, "Pss_Anon", "bytes", s.pss_anon);
	if (s.cg_current != AP_NO_VALUE && s.cg_current)
		counter(c, s.ts_ns, "memory.current", "bytes", s.cg_current);
	if (s.psi_some_avg10 != AP_NO_VALUE || s.psi_full_avg10 != AP_NO_VALUE) {
		ev_start(c, "C", s.ts_ns, (uint32_t)c->pid, "PSI memory avg10 %");
		ap_json_obj(&c->j, "args");
		if (s.psi_some_avg10 != AP_NO_VALUE)
			ap_json_f64(&c->j, "some", (double)s.psi_some_avg10 / 100);
		if (s.psi_full_avg10 != AP_NO_VALUE)
			ap_json_f64(&c->j, "full", (double)s.psi_full_avg10 / 100);
		ev_end_args(c);
	}
	return 0;
}

/* The document's head: what was traced, then the process's name as the first event. */
static void chrome_head(struct chrome *c, const char *trace)
{
	const struct ap_analysis *a = &c->x->a;
	const char *cmd = a->strings[AP_HS_CMDLINE];

	ap_json_obj(&c->j, NULL);
	ap_json_str(&c->j, "displayTimeUnit", "ms");
	ap_json_obj(&c->j, "otherData");
	ap_json_u64(&c->j, "schema_version", AP_CHROME_SCHEMA);
	ap_json_str(&c->j, "tool", "arenaprof");
	ap_json_str(&c->j, "trace", trace);
	ap_json_str(&c->j, "command", cmd);
	ap_json_str(&c->j, "fault_events", c->instants ? "instants" :
		    "per-operator counts (too many faults for instants)");
	ap_json_end_obj(&c->j);
	ap_json_arr(&c->j, "traceEvents");
	ev_start(c, "M", c->base_ns, (uint32_t)c->pid, "process_name");
	ap_json_obj(&c->j, "args");
	ap_json_str(&c->j, "name", cmd[0] ? cmd : "target");
	ev_end_args(c);
}

static int on_note(void *ctx, const struct ap_rec_note *n, const char *text)
{
	struct chrome *c = ctx;

	ev_start(c, "i", n->ts_ns, (uint32_t)c->pid, "note");
	ap_json_str(&c->j, "s", "g");
	ap_json_str(&c->j, "cat", "note");
	ap_json_obj(&c->j, "args");
	ap_json_str(&c->j, "text", text);
	ev_end_args(c);
	return 0;
}

static int on_drops(void *ctx, const struct ap_rec_drops *d)
{
	struct chrome *c = ctx;

	counter(c, d->ts_ns, "dropped events", "events", d->ringbuf_drops);
	return 0;
}

int ap_export_chrome(const struct ap_corr_all *x, const char *trace, FILE *f,
		     const struct ap_export_opts *o, char *err)
{
	const struct ap_analysis *a = &x->a;
	struct chrome c = { .x = x, .pid = a->hdr.pid, .base_ns = a->hdr.clock_base_ns };
	uint64_t max = o && o->max_instants ? o->max_instants : AP_EXPORT_MAX_INSTANTS;
	struct ap_trace_consumer rest = {
		.marker = on_marker, .sample = on_sample, .drops = on_drops, .note = on_note,
		.ctx = &c,
	};
	struct ap_trace_consumer count = { .ctx = &c.sl };
	int rc;

	c.instants = a->faults <= max;
	c.last_ts = c.base_ns;
	rc = ap_corr_replay(x, trace, count_fault, &count, err);
	if (rc) {
		free(c.sl.s);
		if (rc == -ENOMEM)
			ap_seterr(err, "out of memory");
		return rc;
	}
	ap_json_init(&c.j, f);
	chrome_head(&c, trace);
	rc = ap_corr_replay(x, trace, on_fault, &rest, err);
	if (!rc && c.resident != c.resident_shown)
		counter(&c, c.last_ts, "arena resident", "bytes", c.resident);
	fputc('\n', f);
	ap_json_end_arr(&c.j);
	ap_json_end_obj(&c.j);
	ap_json_finish(&c.j);
	free(c.th);
	free(c.sl.s);
	if (rc == -ENOMEM)
		ap_seterr(err, "out of memory");
	return rc ? rc : write_error(f, err);
}

/* ---- csv ---- */

struct csv {
	const struct ap_corr_all *x;
	FILE *f;
};

static int csv_fault(void *ctx, const struct ap_corr_fault *cf)
{
	const struct csv *c = ctx;
	const struct ap_analysis *a = &c->x->a;
	const struct ap_rec_fault *fr = cf->f;
	FILE *f = c->f;
	char b[64];

	fprintf(f, "%" PRIu64 ",%.9f,%u,0x%" PRIx64 ",%s,", fr->ts_ns,
		fr->ts_ns >= a->hdr.clock_base_ns ?
		(double)(fr->ts_ns - a->hdr.clock_base_ns) / 1e9 :
		-(double)(a->hdr.clock_base_ns - fr->ts_ns) / 1e9, fr->tid,
		fr->addr, ap_group_name(cf->group));
	ap_fput_csv(f, cf->map >= 0 ? a->as.maps[cf->map].path : "");
	fprintf(f, ",%d,%d,%d,%d,%d,", cf->first, !!(fr->flags & AP_FF_WRITE),
		!!(fr->flags & AP_FF_MAJOR), fr->run, fr->op);
	if (!cf->in_arena || !c->x->c.page_op) {
		fputs(",,,\n", f);
		return 0;
	}
	fprintf(f, "%" PRId64 ",", cf->offset);
	if (cf->plan_op == AP_OP_NONE) {
		fputs(",,\n", f);
		return 0;
	}
	fprintf(f, "%d,", cf->plan_op);
	/* a custom operator's name is the model's: a comma or quote in it is data (the
	 * names are printable already: escape.h, ap_name_clean) */
	ap_fput_csv(f, cf->plan_op < 0 ? "(input)" : c->x->plan.ops[cf->plan_op].opname);
	fputc(',', f);
	ap_fput_csv(f, short_tensor(c->x, cf->tensor, b));
	fputc('\n', f);
	return 0;
}

int ap_export_csv(const struct ap_corr_all *x, const char *trace, FILE *f, char *err)
{
	struct csv c = { .x = x, .f = f };
	struct ap_trace_consumer rest = { .ctx = &c };
	int rc;

	fputs("ts_ns,t_s,tid,addr,group,mapping,first_touch,write,major,run,op_marker,"
	      "arena_offset,op_plan,opcode_plan,tensor_plan\n", f);
	rc = ap_corr_replay(x, trace, csv_fault, &rest, err);
	return rc ? rc : write_error(f, err);
}
