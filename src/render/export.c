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
#include "arenaprof/analyze/pageset.h"

#define MAP_BITS 40		/* page key: mapping << 40 | page, as the analysis keys them */
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
		return AP_EXIT_RUNTIME;
	}
	return 0;
}

/* ---- chrome ---- */

struct thread {
	uint32_t tid;
	int32_t op;		/* open operator slice, -2 none */
	uint64_t faults, arena_faults;	/* during it */
};

struct chrome {
	FILE *f;
	const struct ap_corr_all *x;
	uint64_t base_ns;
	int32_t pid;
	bool first;
	bool instants;
	struct thread *th;
	uint32_t n_th, cap_th;
	uint8_t *seen;		/* arena pages first-touched so far (bitmap) */
	uint64_t resident, resident_shown, resident_ts;
};

static void ev_start(struct chrome *c, const char *ph, uint64_t ts_ns, uint32_t tid)
{
	/* ns -> us, sign and magnitude: any two u64 times (a trace's are any) */
	bool neg = ts_ns < c->base_ns;
	uint64_t d = neg ? c->base_ns - ts_ns : ts_ns - c->base_ns;

	fprintf(c->f, "%s\n{\"ph\":\"%s\",\"ts\":%s%" PRIu64 ".%03" PRIu64 ",\"pid\":%d,\"tid\":%u",
		c->first ? "" : ",", ph, neg ? "-" : "", d / 1000, d % 1000, c->pid, tid);
	c->first = false;
}

static struct thread *thread_of(struct chrome *c, uint32_t tid, uint64_t ts)
{
	for (uint32_t i = 0; i < c->n_th; i++)
		if (c->th[i].tid == tid)
			return &c->th[i];
	if (c->n_th == c->cap_th) {
		uint32_t n = c->cap_th ? 2 * c->cap_th : 16;
		struct thread *t = realloc(c->th, n * sizeof(*t));

		if (!t)
			return NULL;
		c->th = t;
		c->cap_th = n;
	}
	c->th[c->n_th] = (struct thread){ .tid = tid, .op = -2 };
	ev_start(c, "M", ts, tid);
	fprintf(c->f, ",\"name\":\"thread_name\",\"args\":{\"name\":\"%s %u\"}}",
		(int32_t)tid == c->pid ? "main thread" : "thread", tid);
	return &c->th[c->n_th++];
}

static void counter(struct chrome *c, uint64_t ts, const char *name, const char *key,
		    uint64_t v)
{
	ev_start(c, "C", ts, (uint32_t)c->pid);
	fprintf(c->f, ",\"name\":\"%s\",\"args\":{\"%s\":%" PRIu64 "}}", name, key, v);
}

static void op_name(struct chrome *c, int32_t op)
{
	const struct ap_tplan *p = &c->x->plan;
	char name[300];

	if (c->x->have_plan && op >= 0 && (uint32_t)op < p->n_ops)
		snprintf(name, sizeof(name), "#%d %s", op, p->ops[op].opname);
	else
		snprintf(name, sizeof(name), "op %d", op);
	/* a custom operator's name comes from the model: escaped like every string */
	fputs(",\"name\":", c->f);
	ap_fput_json_str(c->f, name);
}

static int on_marker(struct chrome *c, const struct ap_trace_rec *rec)
{
	struct ap_rec_marker m;
	struct thread *t;
	bool begin = rec->type == AP_REC_RUN_BEGIN || rec->type == AP_REC_OP_BEGIN;
	bool run = rec->type == AP_REC_RUN_BEGIN || rec->type == AP_REC_RUN_END;

	ap_trace_get(rec, &m, sizeof(m));
	t = thread_of(c, m.tid, m.ts_ns);
	if (!t)
		return -1;
	ev_start(c, begin ? "B" : "E", m.ts_ns, m.tid);
	if (run) {
		fprintf(c->f, ",\"cat\":\"run\",\"name\":\"run %d\",\"args\":{\"run\":%d}}", m.run,
			m.run);
		return 0;
	}
	fputs(",\"cat\":\"op\"", c->f);
	op_name(c, m.op);
	if (begin) {
		const struct ap_tplan *p = &c->x->plan;

		fprintf(c->f, ",\"args\":{\"op\":%d,\"run\":%d", m.op, m.run);
		if (c->x->have_plan && m.op >= 0 && (uint32_t)m.op < p->n_ops) {
			fputs(",\"output\":", c->f);
			ap_fput_json_str(c->f, p->ops[m.op].out_name);
		}
		fputs("}}", c->f);
		t->op = m.op;
		t->faults = t->arena_faults = 0;
		return 0;
	}
	fprintf(c->f, ",\"args\":{\"faults\":%" PRIu64 ",\"arena_faults\":%" PRIu64 "}}",
		t->faults, t->arena_faults);
	if (!c->instants && t->faults)
		counter(c, m.ts_ns, "faults per operator", "faults", t->faults);
	t->op = -2;
	return 0;
}

static int on_fault(struct chrome *c, const struct ap_rec_fault *f)
{
	const struct ap_corr *co = &c->x->c;
	const struct ap_analysis *a = &c->x->a;
	int32_t mi = ap_analysis_map_of(a, f);
	enum ap_group g = ap_corr_group_of(a, mi);
	struct thread *t = thread_of(c, f->tid, f->ts_ns);
	bool first = false;
	uint64_t page = 0;

	if (!t)
		return -1;
	t->faults++;
	if (g == AP_GROUP_ARENA && f->addr >= co->map_start && f->addr < co->map_end) {
		page = (f->addr - co->map_start) / co->page_size;
		t->arena_faults++;
		if (c->seen && !(c->seen[page / 8] & (1u << (page % 8)))) {
			c->seen[page / 8] |= (uint8_t)(1u << (page % 8));
			c->resident += co->page_size;
			first = true;
		}
	}
	if (c->instants) {
		char b[64];

		ev_start(c, "i", f->ts_ns, f->tid);
		fprintf(c->f, ",\"s\":\"t\",\"cat\":\"fault\",\"name\":\"fault %s\",\"args\":{"
			"\"addr\":\"0x%" PRIx64 "\",\"run\":%d,\"op_marker\":%d,\"write\":%s",
			ap_group_name(g), f->addr, f->run, f->op,
			f->flags & AP_FF_WRITE ? "true" : "false");
		if (g == AP_GROUP_ARENA && co->page_op) {
			int32_t po = ap_corr_plan_op_at(co, f->addr);

			fprintf(c->f, ",\"first_touch\":%s,\"offset\":%" PRId64, first ? "true" :
				"false", (int64_t)(f->addr - co->base));
			if (po != AP_OP_NONE) {
				fprintf(c->f, ",\"op_plan\":%d,\"tensor\":", po);
				ap_fput_json_str(c->f, short_tensor(c->x, co->page_tensor[page], b));
			}
		}
		fputs("}}", c->f);
	}
	if (first && (f->ts_ns >= c->resident_ts + RESIDENT_EVERY_NS || !c->resident_shown)) {
		counter(c, f->ts_ns, "arena resident", "bytes", c->resident);
		c->resident_shown = c->resident;
		c->resident_ts = f->ts_ns;
	}
	return 0;
}

static void on_sample(struct chrome *c, const struct ap_trace_rec *rec)
{
	struct ap_rec_sample s;

	ap_trace_get(rec, &s, sizeof(s));
	if (s.vm_rss != AP_NO_VALUE)
		counter(c, s.ts_ns, "VmRSS", "bytes", s.vm_rss);
	if (s.pss_anon != AP_NO_VALUE)
		counter(c, s.ts_ns, "Pss_Anon", "bytes", s.pss_anon);
	if (s.cg_current != AP_NO_VALUE && s.cg_current)
		counter(c, s.ts_ns, "memory.current", "bytes", s.cg_current);
	if (s.psi_some_avg10 != AP_NO_VALUE || s.psi_full_avg10 != AP_NO_VALUE) {
		ev_start(c, "C", s.ts_ns, (uint32_t)c->pid);
		fputs(",\"name\":\"PSI memory avg10 %\",\"args\":{", c->f);
		if (s.psi_some_avg10 != AP_NO_VALUE)
			fprintf(c->f, "\"some\":%.2f", (double)s.psi_some_avg10 / 100);
		if (s.psi_full_avg10 != AP_NO_VALUE)
			fprintf(c->f, "%s\"full\":%.2f", s.psi_some_avg10 != AP_NO_VALUE ? "," : "",
				(double)s.psi_full_avg10 / 100);
		fputs("}}", c->f);
	}
}

int ap_export_chrome(const struct ap_corr_all *x, const char *trace, FILE *f,
		     const struct ap_export_opts *o, char *err)
{
	const struct ap_analysis *a = &x->a;
	struct chrome c = { .f = f, .x = x, .first = true, .pid = a->hdr.pid,
			    .base_ns = a->hdr.clock_base_ns };
	uint64_t max = o && o->max_instants ? o->max_instants : AP_EXPORT_MAX_INSTANTS;
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	uint64_t last_ts = c.base_ns;
	int rc, bad = 0;

	c.instants = a->faults <= max;
	if (x->c.arena >= 0 && x->c.n_pages) {
		c.seen = calloc(x->c.n_pages / 8 + 1, 1);
		if (!c.seen) {
			ap_seterr(err, "out of memory");
			return AP_EXIT_RUNTIME;
		}
	}
	if (ap_trace_open(&r, trace, err)) {
		free(c.seen);
		return AP_EXIT_USAGE;
	}
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"arenaprof\",\"trace\":", f);
	ap_fput_json_str(f, trace);
	fputs(",\"command\":", f);
	ap_fput_json_str(f, a->strings[AP_HS_CMDLINE]);
	fprintf(f, ",\"fault_events\":\"%s\"},\"traceEvents\":[",
		c.instants ? "instants" : "per-operator counts (too many faults for instants)");
	ev_start(&c, "M", c.base_ns, (uint32_t)c.pid);
	fputs(",\"name\":\"process_name\",\"args\":{\"name\":", f);
	ap_fput_json_str(f, a->strings[AP_HS_CMDLINE][0] ? a->strings[AP_HS_CMDLINE] : "target");
	fputs("}}", f);
	while (!bad && (rc = ap_trace_next(&r, &rec, err)) == 1) {
		switch (rec.type) {
		case AP_REC_FAULT: {
			struct ap_rec_fault fr;

			ap_trace_get(&rec, &fr, sizeof(fr));
			bad = on_fault(&c, &fr);
			last_ts = fr.ts_ns > last_ts ? fr.ts_ns : last_ts;
			break;
		}
		case AP_REC_RUN_BEGIN:
		case AP_REC_RUN_END:
		case AP_REC_OP_BEGIN:
		case AP_REC_OP_END:
			bad = on_marker(&c, &rec);
			break;
		case AP_REC_SAMPLE:
			on_sample(&c, &rec);
			break;
		case AP_REC_NOTE: {
			struct ap_rec_note n;

			ap_trace_get(&rec, &n, sizeof(n));
			ev_start(&c, "i", n.ts_ns, (uint32_t)c.pid);
			fputs(",\"s\":\"g\",\"cat\":\"note\",\"name\":\"note\","
			      "\"args\":{\"text\":", f);
			ap_fput_json_str(f, ap_trace_str(&rec, sizeof(n)));
			fputs("}}", f);
			break;
		}
		case AP_REC_DROPS: {
			struct ap_rec_drops d;

			ap_trace_get(&rec, &d, sizeof(d));
			counter(&c, d.ts_ns, "dropped events", "events", d.ringbuf_drops);
			break;
		}
		default:
			break;
		}
	}
	if (!bad && c.resident != c.resident_shown)
		counter(&c, last_ts, "arena resident", "bytes", c.resident);
	fputs("\n]}\n", f);
	ap_trace_reader_close(&r);
	free(c.seen);
	free(c.th);
	if (bad) {
		ap_seterr(err, "out of memory");
		return AP_EXIT_RUNTIME;
	}
	if (rc < 0)
		return AP_EXIT_USAGE;
	return write_error(f, err);
}

/* ---- csv ---- */

int ap_export_csv(const struct ap_corr_all *x, const char *trace, FILE *f, char *err)
{
	const struct ap_analysis *a = &x->a;
	const struct ap_corr *co = &x->c;
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	struct ap_pageset seen;
	int rc;

	if (ap_trace_open(&r, trace, err))
		return AP_EXIT_USAGE;
	ap_pageset_init(&seen);
	fputs("ts_ns,t_s,tid,addr,group,mapping,first_touch,write,major,run,op_marker,"
	      "arena_offset,op_plan,opcode_plan,tensor_plan\n", f);
	while ((rc = ap_trace_next(&r, &rec, err)) == 1) {
		struct ap_rec_fault fr;
		int32_t mi;
		int added = 0;

		if (rec.type != AP_REC_FAULT)
			continue;
		ap_trace_get(&rec, &fr, sizeof(fr));
		mi = ap_analysis_map_of(a, &fr);
		if (mi >= 0 && fr.addr >= a->maps[mi].start && fr.addr < a->maps[mi].end) {
			added = ap_pageset_add(&seen, (uint64_t)mi << MAP_BITS |
					       ((fr.addr - a->maps[mi].start) / a->hdr.page_size));
			if (added < 0) {
				rc = -2;
				break;
			}
		}
		fprintf(f, "%" PRIu64 ",%.9f,%u,0x%" PRIx64 ",%s,", fr.ts_ns,
			fr.ts_ns >= a->hdr.clock_base_ns ?
			(double)(fr.ts_ns - a->hdr.clock_base_ns) / 1e9 :
			-(double)(a->hdr.clock_base_ns - fr.ts_ns) / 1e9, fr.tid,
			fr.addr, ap_group_name(ap_corr_group_of(a, mi)));
		ap_fput_csv(f, mi >= 0 ? a->maps[mi].path : "");
		fprintf(f, ",%d,%d,%d,%d,%d,", added, !!(fr.flags & AP_FF_WRITE),
			!!(fr.flags & AP_FF_MAJOR), fr.run, fr.op);
		if (mi >= 0 && mi == co->arena && co->page_op && fr.addr >= co->map_start &&
		    fr.addr < co->map_end) {
			uint64_t page = (fr.addr - co->map_start) / co->page_size;
			int32_t po = co->page_op[page];
			char b[64];

			fprintf(f, "%" PRId64 ",", (int64_t)(fr.addr - co->base));
			if (po == AP_OP_NONE) {
				fputs(",,\n", f);
				continue;
			}
			fprintf(f, "%d,%s,", po, po < 0 ? "(input)" : x->plan.ops[po].opname);
			ap_fput_csv(f, short_tensor(x, co->page_tensor[page], b));
			fputc('\n', f);
		} else {
			fputs(",,,\n", f);
		}
	}
	ap_trace_reader_close(&r);
	ap_pageset_free(&seen);
	if (rc == -2) {
		ap_seterr(err, "out of memory");
		return AP_EXIT_RUNTIME;
	}
	if (rc < 0)
		return AP_EXIT_USAGE;
	return write_error(f, err);
}
