// SPDX-License-Identifier: Apache-2.0
/*
 * plan_import: LiteRT's PrintInterpreterState (docs/design.md, "Imported plans").
 *
 * import:litert, PrintInterpreterState (current format, tflite/optional_debug_tools.cc):
 *  - Only the first dump in the file is read (benchmark_model may print a pre- and a
 *    post-invoke dump): reading stops at "Memory Arena Status End", at a second
 *    "Interpreter has" line or at a second Subgraph-0 header. Only subgraph 0 is imported;
 *    other subgraphs are skipped, as is the planner's "=== Beginning of" ... "===End of"
 *    dump (§2). Lines may carry an "INFO: " prefix; unknown lines are ignored.
 *  - "<k> Inputs: [ids]" and "<k> Outputs: [ids]" are required before the table. Lists are
 *    "[a,b-c,...]" (runs collapsed, "a-b" inclusive; "-1-1" is -1..1), "[]" or "(null)";
 *    the printed count must equal the number of entries; -1 entries are skipped.
 *  - Tensor lines are parsed from the right, so any column widths work and names may hold
 *    spaces: the last 8 space-separated tokens are type, alloc type, bytes, "/", MB, shape,
 *    "[start," and "end)"; the name is what lies between "Tensor <id> " and the type, with
 *    trailing spaces removed (a name cut to "...": kept as printed; "(nil)": ""). Tensor ids
 *    must be 0, 1, 2, ... in order, and their count must match the subgraph header. The
 *    range must be [-1, -1) or [start, start + bytes); bytes, start + bytes and the sum
 *    of all bytes at most 2^56 (AP_PLAN_MAX_BYTES).
 *  - Alloc type (matched on its tail, so truncated names work): ...ArenaRw -> arena (input
 *    or output when listed in the subgraph's Inputs/Outputs; input wins), offset = start;
 *    ...RwPersistent -> variable, offset = start in the persistent arena; ...MmapRo ->
 *    weights, offset -1; ...Dynamic -> dynamic, offset -1; anything else -> unplanned,
 *    offset -1. "[-1, -1)" -> offset -1.
 *  - Nodes: "Node <id> Operator Builtin Code <c> <NAME> <status>" or "... Custom Name
 *    <name> <status>", ids 0, 1, 2, ... in order; status "(not delegated)", "(delegated by
 *    node k)" or empty. Then "  <n> Input|Output|Intermediate|Temporary Tensors:[ids]".
 *    "Execution plan as the list of <n> nodes invoked in-order: [ids]" maps execution
 *    index -> node (no such line: identity, and every node runs). Delegated nodes are not
 *    in the execution plan, so only the delegate node counts.
 *  - How lifetimes, kinds, sharing, sizes and ops follow from what is read: at the top of
 *    import_litert_build.c.
 *  - The TF <= 2.6 format ("Interpreter has <T> tensors and <N> nodes") has no offsets and
 *    is refused.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_import.h"
#include "import_priv.h"
#include "import_litert.h"

static void rlist_free(struct rlist *l)
{
	free(l->r);
	memset(l, 0, sizeof(*l));
}

static void litert_free(struct litert *L)
{
	size_t i;

	for (i = 0; i < L->nt; i++)
		free(L->t[i].name);
	free(L->t);
	for (i = 0; i < L->nn; i++) {
		free(L->nodes[i].opname);
		rlist_free(&L->nodes[i].in);
		rlist_free(&L->nodes[i].out);
		rlist_free(&L->nodes[i].tmp);
	}
	free(L->nodes);
	rlist_free(&L->inputs);
	rlist_free(&L->outputs);
	free(L->exec);
}

/* "[a,b-c,...]", "[]" or "(null)" at *sp, appended to l. */
static int parse_list(struct reader *r, const char **sp, struct rlist *l, const char *what)
{
	const char *s = *sp;

	l->line = r->lineno;
	if (eat_lit(&s, "(null)")) {
		*sp = s;
		return 0;
	}
	if (*s++ != '[')
		return fail(r, "%s: expected '[' or '(null)'", what);
	if (*s == ']') {
		*sp = s + 1;
		return 0;
	}
	for (;;) {
		int64_t a, b;

		if (imp_eat_int(&s, &a) != NUM_OK)
			return fail(r, "%s: expected a number in the list (truncated line?)", what);
		b = a;
		if (*s == '-') {
			s++;
			if (imp_eat_int(&s, &b) != NUM_OK)
				return fail(r, "%s: expected a number after '-' in the list", what);
		}
		if (a < -1 || b < a)
			return fail(r, "%s: bad list entry %" PRId64 "-%" PRId64, what, a, b);
		if (l->n == l->cap) {
			void *np = imp_grow(l->r, &l->cap, sizeof(*l->r));

			if (!np)
				return imp_oom(r);
			l->r = np;
		}
		l->r[l->n].lo = a;
		l->r[l->n].hi = b;
		l->n++;
		if (b - a >= INT64_MAX - l->count)
			l->count = INT64_MAX;
		else
			l->count += b - a + 1;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == ']')
			break;
		return fail(r, "%s: unterminated list (truncated line?)", what);
	}
	*sp = s + 1;
	return 0;
}

/* Every entry of l is -1 or an index below n. */
static int check_list(struct reader *r, const struct rlist *l, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->r[i].hi >= (int64_t)n)
			return imp_fail_at(r, l->line, "%s: tensor %" PRId64 " does not exist "
					   "(subgraph 0 has %zu tensors)", what, l->r[i].hi, n);
	}
	return 0;
}

enum { SG_NONE, SG_HEADER, SG_DONE, SG_BAD };

/*
 * "-----------Subgraph-<i> has <T> tensors and <N> nodes------------" -> SG_HEADER,
 * "--------------Subgraph-<i> dump has completed--------------" -> SG_DONE.
 */
static int subgraph_line(const char *s, int64_t *sg, int64_t *nt, int64_t *nn)
{
	if (*s != '-')
		return SG_NONE;
	while (*s == '-')
		s++;
	if (!eat_lit(&s, "Subgraph-") || imp_eat_int(&s, sg) != NUM_OK)
		return SG_NONE;
	if (eat_lit(&s, " dump has completed"))
		return SG_DONE;
	if (!eat_lit(&s, " has "))
		return SG_NONE;
	if (imp_eat_int(&s, nt) != NUM_OK || !eat_lit(&s, " tensors and ") ||
	    imp_eat_int(&s, nn) != NUM_OK || !eat_lit(&s, " nodes") || *nt < 0 || *nn < 0)
		return SG_BAD;
	return SG_HEADER;
}

static const char *strip_info(const char *s)
{
	return starts(s, "INFO: ") ? s + 6 : s;
}

bool imp_litert_marker(const char *s)
{
	int64_t a, b, c;

	s = strip_info(s);
	return starts(s, "Interpreter has ") || subgraph_line(s, &a, &b, &c) == SG_HEADER;
}

/* What follows "Tensor" and its spaces, NULL when s does not start with "Tensor ". */
static const char *after_tensor(const char *s)
{
	if (!starts(s, "Tensor "))
		return NULL;
	s += 7;
	while (*s == ' ')
		s++;
	return s;
}

/* "Tensor", spaces, then a digit. */
static bool is_tensor_line(const char *s)
{
	s = after_tensor(s);
	return s && isdigit((unsigned char)*s);
}

static bool is_table_header(const char *s)
{
	s = after_tensor(s);
	return s && (starts(s, "ID ") || !strcmp(s, "ID"));
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

static bool is_mb(const char *s, size_t n)
{
	size_t i;
	bool dot = false;

	for (i = 0; i < n; i++) {
		if (s[i] == '.' && !dot)
			dot = true;
		else if (!isdigit((unsigned char)s[i]))
			return false;
	}
	return n > 0;
}

/* Tensors and nodes come numbered 0, 1, 2, ...: id must be the next of have. */
static int check_next(struct reader *r, const char *what, int64_t id, size_t have,
		      int64_t want, int max)
{
	if (id < (int64_t)have)
		return fail(r, "duplicate %s %" PRId64 " (expected %s %zu)", what, id, what, have);
	if (id > (int64_t)have)
		return fail(r, "%s %" PRId64 " out of order (expected %s %zu)", what, id, what,
			    have);
	if (id >= want || id >= max)
		return fail(r, "%s %" PRId64 ": the subgraph header says %" PRId64 " %ss (at "
			    "most %d)", what, id, want, what, max);
	return 0;
}

/* The last 8 space-separated tokens of a tensor line, [tok[i], end[i]), the name before. */
static int tensor_tokens(struct reader *r, int64_t idx, const char *name, const char **tok,
			 const char **end)
{
	const char *e = name + strlen(name);
	int i;

	for (i = 7; i >= 0; i--) {
		while (e > name && e[-1] == ' ')
			e--;
		end[i] = e;
		while (e > name && e[-1] != ' ')
			e--;
		tok[i] = e;
		if (tok[i] == end[i] || (i > 0 && e == name))
			return fail(r, "tensor %" PRId64 ": truncated tensor line", idx);
	}
	return 0;
}

/*
 * The size, shape and offset range columns: tok 2 bytes, 3 "/", 4 MB, 5 shape, 6 "[start,",
 * 7 "end)". The range must be [-1, -1) or [start, start + bytes).
 */
static int tensor_range(struct reader *r, int64_t idx, const char *const *tok,
			const char *const *end, uint64_t *bytes, int64_t *start)
{
	char qb[QUOTE_LEN];
	const char *q;
	int64_t stop;

	if (end[3] - tok[3] != 1 || *tok[3] != '/' || !is_mb(tok[4], end[4] - tok[4]))
		return fail(r, "tensor %" PRId64 ": malformed size column", idx);
	q = tok[2];
	if (imp_eat_u64(&q, bytes) != NUM_OK || q != end[2])
		return fail(r, "tensor %" PRId64 ": size '%s' is not a number", idx,
			    imp_quote(qb, tok[2], end[2] - tok[2]));
	if (!((*tok[5] == '[' && end[5][-1] == ']') ||
	      (end[5] - tok[5] == 6 && !memcmp(tok[5], "(null)", 6))))
		return fail(r, "tensor %" PRId64 ": malformed shape '%s'", idx,
			    imp_quote(qb, tok[5], end[5] - tok[5]));
	q = tok[6];
	if (*q++ != '[' || imp_eat_int(&q, start) != NUM_OK || *q != ',' || q + 1 != end[6])
		return fail(r, "tensor %" PRId64 ": malformed offset range start '%s'", idx,
			    imp_quote(qb, tok[6], end[6] - tok[6]));
	q = tok[7];
	if (imp_eat_int(&q, &stop) != NUM_OK || *q != ')' || q + 1 != end[7])
		return fail(r, "tensor %" PRId64 ": malformed offset range end '%s'", idx,
			    imp_quote(qb, tok[7], end[7] - tok[7]));
	if (*start == -1) {
		if (stop != -1)
			return fail(r, "tensor %" PRId64 ": bad offset range [-1, %" PRId64 ")",
				    idx, stop);
	} else if (*start < 0 || *bytes > (uint64_t)(INT64_MAX - *start) ||
		   stop != *start + (int64_t)*bytes) {
		return fail(r, "tensor %" PRId64 ": offset range [%" PRId64 ", %" PRId64
			    ") does not match its size %" PRIu64, idx, *start, stop, *bytes);
	}
	return 0;
}

/* The kind an alloc type column s[0..n) stands for, matched on its tail. */
static enum ap_kind alloc_kind(const char *s, size_t n)
{
	if (ends_with(s, n, "RwPersistent"))
		return AP_KIND_VARIABLE;
	if (ends_with(s, n, "ArenaRw"))
		return AP_KIND_ARENA;
	if (ends_with(s, n, "MmapRo"))
		return AP_KIND_WEIGHTS;
	if (ends_with(s, n, "Dynamic"))
		return AP_KIND_DYNAMIC;
	return AP_KIND_UNPLANNED;
}

static int litert_tensor(struct litert *L, const char *s)
{
	struct reader *r = L->r;
	const char *tok[8], *end[8], *p, *name, *e;
	struct ap_ptensor *t;
	int64_t idx, start;
	uint64_t bytes;
	size_t name_len;
	enum ap_kind kind;

	p = s + 6;
	skip_spaces(&p);
	if (imp_eat_int(&p, &idx) != NUM_OK || *p != ' ')
		return fail(r, "malformed tensor line");
	name = p + 1;
	/* tok: 0 type, 1 alloc type, 2 bytes, 3 "/", 4 MB, 5 shape, 6 "[start,", 7 "end)" */
	if (tensor_tokens(r, idx, name, tok, end) ||
	    tensor_range(r, idx, tok, end, &bytes, &start))
		return -1;
	kind = alloc_kind(tok[1], end[1] - tok[1]);
	if (imp_check_bytes(r, r->lineno, "tensor", idx, start, bytes))
		return -1;

	if (check_next(r, "tensor", idx, L->nt, L->want_tensors, AP_IMPORT_MAX_TENSORS))
		return -1;
	if (L->nt == L->cap_t) {
		void *np = imp_grow(L->t, &L->cap_t, sizeof(*L->t));

		if (!np)
			return imp_oom(r);
		L->t = np;
	}

	/* the name: between "Tensor <id> " and the type column, trailing spaces dropped */
	e = tok[0];
	while (e > name && e[-1] == ' ')
		e--;
	name_len = e - name;
	if (name_len == 5 && !memcmp(name, "(nil)", 5))
		name_len = 0;
	t = &L->t[L->nt];
	memset(t, 0, sizeof(*t));
	t->name = imp_dup_n(name, name_len);
	if (!t->name)
		return imp_oom(r);
	L->nt++;
	t->index = (int32_t)idx;
	t->bytes = bytes;
	t->kind = kind;
	t->offset = (kind == AP_KIND_ARENA || kind == AP_KIND_VARIABLE) ? start : -1;
	t->first = t->last = -1;
	t->share_root = -1;
	return 0;
}

static int litert_end_table(struct litert *L)
{
	struct reader *r = L->r;

	L->st = L_BODY;
	if ((int64_t)L->nt != L->want_tensors)
		return fail(r, "the tensor table of subgraph 0 has %zu tensors, its header says %"
			    PRId64, L->nt, L->want_tensors);
	if (check_list(r, &L->inputs, L->nt, "Inputs") ||
	    check_list(r, &L->outputs, L->nt, "Outputs"))
		return -1;
	return 0;
}

static int litert_head(struct litert *L, const char *s)
{
	struct reader *r = L->r;
	const char *p = s, *what = NULL;
	struct rlist *l = NULL;
	int64_t n;

	if (imp_eat_int(&p, &n) == NUM_OK) {
		if (eat_lit(&p, " Inputs: ")) {
			l = &L->inputs;
			what = "Inputs";
		} else if (eat_lit(&p, " Outputs: ")) {
			l = &L->outputs;
			what = "Outputs";
		}
	}
	if (l) {
		if (l->line)
			return fail(r, "second %s line in subgraph 0", what);
		if (parse_list(r, &p, l, what))
			return -1;
		if (l->count != n)
			return fail(r, "%s: the list has %" PRId64 " entries, the line says %"
				    PRId64, what, l->count, n);
		return 0;
	}
	if (is_table_header(s)) {
		if (!L->inputs.line || !L->outputs.line)
			return fail(r, "subgraph 0 has no '<n> Inputs:' or '<n> Outputs:' line "
				    "before its tensor table");
		L->st = L_TABLE;
	}
	return 0;
}

/* "Node <id> Operator Builtin Code <c> <NAME> <status>" or "... Custom Name <name> ..." */
static int litert_node(struct litert *L, const char *s)
{
	struct reader *r = L->r;
	const char *p = s + 4, *name, *e;
	struct lnode *nd;
	int64_t id, code;

	skip_spaces(&p);
	if (imp_eat_int(&p, &id) != NUM_OK || !eat_lit(&p, " Operator "))
		return 0;	/* not a node line (e.g. "Node 3: ..." of a planner dump) */
	if (eat_lit(&p, "Builtin Code ")) {
		skip_spaces(&p);
		if (imp_eat_int(&p, &code) != NUM_OK || *p != ' ')
			return fail(r, "node %" PRId64 ": malformed builtin code", id);
		p++;
	} else if (!eat_lit(&p, "Custom Name ")) {
		return fail(r, "node %" PRId64 ": expected 'Builtin Code' or 'Custom Name'", id);
	}
	name = p;
	e = p + strlen(p);
	while (e > name && e[-1] == ' ')
		e--;
	if (ends_with(name, e - name, "(not delegated)")) {
		e -= strlen("(not delegated)");
	} else if (e > name && e[-1] == ')') {
		const char *q = e - 1, *d;

		while (q > name && isdigit((unsigned char)q[-1]))
			q--;
		d = q - strlen("(delegated by node ");
		if (q < e - 1 && d >= name && ends_with(name, q - name, "(delegated by node "))
			e = d;
	}
	while (e > name && e[-1] == ' ')
		e--;

	if (check_next(r, "node", id, L->nn, L->want_nodes, AP_IMPORT_MAX_NODES))
		return -1;
	if (L->nn == L->cap_n) {
		void *np = imp_grow(L->nodes, &L->cap_n, sizeof(*L->nodes));

		if (!np)
			return imp_oom(r);
		L->nodes = np;
	}
	nd = &L->nodes[L->nn];
	memset(nd, 0, sizeof(*nd));
	L->nn++;
	nd->opname = imp_dup_n(name, e - name);
	if (!nd->opname)
		return imp_oom(r);
	return 0;
}

/* "  <n> Input Tensors:[ids] -> <b>B (<mb>MB)", also Output, Intermediate, Temporary. */
static int litert_lists(struct litert *L, const char *s)
{
	static const char *const labels[] = {
		"Input Tensors", "Output Tensors", "Intermediate Tensors", "Temporary Tensors",
	};
	struct reader *r = L->r;
	struct lnode *nd;
	const char *p = s;
	int64_t n;

	if (!L->nn)
		return fail(r, "tensor list before the first Node line");
	nd = &L->nodes[L->nn - 1];
	for (;;) {
		struct rlist scratch = { 0 }, *l;
		unsigned int k;
		int ret;

		skip_spaces(&p);
		if (!*p)
			return 0;
		if (imp_eat_int(&p, &n) != NUM_OK || n < 0 || *p++ != ' ')
			return fail(r, "node %zu: malformed tensor list line", L->nn - 1);
		for (k = 0; k < 4; k++)
			if (eat_lit(&p, labels[k]) && eat_lit(&p, ":"))
				break;
		if (k == 4)
			return fail(r, "node %zu: expected Input, Output, Intermediate or "
				    "Temporary Tensors", L->nn - 1);
		l = k == 0 ? &nd->in : k == 1 ? &nd->out : k == 3 ? &nd->tmp : &scratch;
		if (l->line)
			return fail(r, "node %zu: second %s line", L->nn - 1, labels[k]);
		l->line = r->lineno;
		ret = 0;
		if (*p == '[' || starts(p, "(null)"))
			ret = parse_list(r, &p, l, labels[k]);
		if (!ret && l->count != n)
			ret = fail(r, "node %zu: %s: the list has %" PRId64 " entries, the line "
				   "says %" PRId64, L->nn - 1, labels[k], l->count, n);
		if (!ret) {
			char what[48];

			snprintf(what, sizeof(what), "node %zu: %s", L->nn - 1, labels[k]);
			ret = check_list(r, l, L->nt, what);
		}
		rlist_free(&scratch);
		if (ret)
			return -1;
		if (starts(p, " -> ")) {
			const char *q = strchr(p, ')');

			p = q ? q + 1 : p + strlen(p);
		}
	}
}

static int litert_exec(struct litert *L, const char *s)
{
	struct reader *r = L->r;
	struct rlist l = { 0 };
	const char *p = s;
	uint8_t *seen = NULL;
	int64_t n, id;
	size_t i;
	int ret = -1;

	if (L->have_exec)
		return fail(r, "second execution plan line in subgraph 0");
	if (imp_eat_int(&p, &n) != NUM_OK || n < 0 || !eat_lit(&p, " nodes invoked in-order: "))
		return fail(r, "malformed execution plan line");
	if (parse_list(r, &p, &l, "execution plan"))
		goto out;
	if (l.count != n) {
		fail(r, "execution plan: the list has %" PRId64 " entries, the line says %" PRId64,
		     l.count, n);
		goto out;
	}
	if ((int64_t)L->nn != L->want_nodes) {
		fail(r, "subgraph 0 has %zu Node lines, its header says %" PRId64 " nodes",
		     L->nn, L->want_nodes);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		if (l.r[i].lo < 0 || l.r[i].hi >= (int64_t)L->nn) {
			fail(r, "execution plan: node %" PRId64 " does not exist",
			     l.r[i].lo < 0 ? l.r[i].lo : l.r[i].hi);
			goto out;
		}
	}
	if (n > (int64_t)L->nn) {
		fail(r, "execution plan: %" PRId64 " entries for %zu nodes", n, L->nn);
		goto out;
	}
	seen = calloc(L->nn + 1, 1);
	L->exec = malloc(((size_t)n + 1) * sizeof(*L->exec));
	if (!seen || !L->exec) {
		imp_oom(r);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		for (id = l.r[i].lo; id <= l.r[i].hi; id++) {
			if (seen[id]) {
				fail(r, "execution plan: node %" PRId64 " appears twice", id);
				goto out;
			}
			seen[id] = 1;
			L->exec[L->n_exec++] = (int32_t)id;
		}
	}
	L->have_exec = true;
	ret = 0;
out:
	free(seen);
	rlist_free(&l);
	return ret;
}

/* "Subgraph#<i>   Arena (Normal)        <bytes> (<pct>%)" */
static int litert_status(struct litert *L, const char *s)
{
	const char *p = s;
	int64_t sg;
	uint64_t v;
	bool normal;

	if (!eat_lit(&p, "Subgraph#") || imp_eat_int(&p, &sg) != NUM_OK)
		return 0;
	skip_spaces(&p);
	if (eat_lit(&p, "Arena (Normal)"))
		normal = true;
	else if (eat_lit(&p, "Arena (Persistent)"))
		normal = false;
	else
		return 0;
	skip_spaces(&p);
	if (imp_eat_u64(&p, &v) != NUM_OK)
		return fail(L->r, "malformed arena status line");
	if (sg != 0)
		return 0;
	if (normal) {
		L->status_normal = v;
		L->have_status_normal = true;
	} else {
		L->status_persistent = v;
		L->have_status_persistent = true;
	}
	return 0;
}

/* A line of the part of the dump that L->st says we are in. */
static int litert_content(struct litert *L, const char *s)
{
	switch (L->st) {
	case L_HEAD:
		return litert_head(L, s);
	case L_TABLE:
		if (is_tensor_line(s))
			return litert_tensor(L, s);
		if (litert_end_table(L))
			return -1;
		/* fall through */
	case L_BODY:
		if (starts(s, "Node "))
			return litert_node(L, s);
		if (s[0] == ' ' && s[1] == ' ' && isdigit((unsigned char)s[2]))
			return litert_lists(L, s);
		if (eat_lit(&s, "Execution plan as the list of "))
			return litert_exec(L, s);
		return 0;
	case L_STATUS:
		return litert_status(L, s);
	default:
		return 0;
	}
}

/* The first dump is over. */
static int litert_done(struct litert *L)
{
	if (L->st == L_TABLE && litert_end_table(L))
		return -1;
	L->st = L_DONE;
	return 0;
}

static int litert_line(struct litert *L)
{
	struct reader *r = L->r;
	const char *s = strip_info(r->line);
	int64_t sg, nt, nn;
	int k;

	if (L->st == L_DONE || r->has_nul)
		return 0;
	if (L->in_dump) {
		if (starts(s, "===End of "))
			L->in_dump = false;
		return 0;
	}
	if (starts(s, "=== Beginning of ")) {
		L->in_dump = true;
		return 0;
	}
	if (starts(s, "Interpreter has ")) {
		if (strstr(s, " tensors and "))
			return fail(r, "this PrintInterpreterState dump is in the TensorFlow "
				    "<= 2.6 format, which has no tensor offsets");
		if (L->seen_sg0)
			return litert_done(L);
		return 0;
	}
	k = subgraph_line(s, &sg, &nt, &nn);
	if (k == SG_BAD)
		return fail(r, "malformed subgraph header");
	if (k == SG_HEADER || k == SG_DONE) {
		if (L->st == L_TABLE && litert_end_table(L))
			return -1;
		if (k == SG_HEADER && sg == 0) {
			if (L->seen_sg0)
				return litert_done(L);
			L->seen_sg0 = true;
			L->want_tensors = nt;
			L->want_nodes = nn;
			L->st = L_HEAD;
			return 0;
		}
		if (L->st == L_HEAD)
			return fail(r, "subgraph 0 has no tensor table");
		L->st = L_SKIP;
		return 0;
	}
	if (starts(s, "--------------Memory Arena Status Start")) {
		if (L->st == L_TABLE && litert_end_table(L))
			return -1;
		L->st = L_STATUS;
		return 0;
	}
	if (starts(s, "--------------Memory Arena Status End")) {
		if (L->seen_sg0)
			return litert_done(L);
		L->st = L_START;
		return 0;
	}
	return litert_content(L, s);
}

int imp_litert_import(struct reader *r, struct ap_tplan *p)
{
	struct litert L = { .r = r, .st = L_START };
	int ret = -1, k = 1;

	/* the current line is the first marker */
	while (k > 0) {
		if (litert_line(&L))
			goto out;
		if (L.st == L_DONE)
			break;
		k = imp_next_line(r);
	}
	if (k < 0)
		goto out;
	if (L.st == L_TABLE && litert_end_table(&L))
		goto out;
	if (!L.seen_sg0) {
		fail(r, "this PrintInterpreterState dump has no subgraph 0");
		goto out;
	}
	if (L.st == L_HEAD) {
		fail(r, "subgraph 0 has no tensor table (truncated dump?)");
		goto out;
	}
	if (!L.have_exec && (int64_t)L.nn != L.want_nodes) {
		fail(r, "the dump ends after %zu of the %" PRId64 " nodes of subgraph 0", L.nn,
		     L.want_nodes);
		goto out;
	}
	if (!L.nt) {
		fail(r, "subgraph 0 has no tensors");
		goto out;
	}
	ret = imp_litert_build(&L, p);
out:
	litert_free(&L);
	return ret;
}
