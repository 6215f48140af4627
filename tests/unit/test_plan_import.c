// SPDX-License-Identifier: Apache-2.0
/*
 * plan_import: every field of the fixtures in tests/fixtures/import/, and the error (with its
 * line number) of every broken variant. Run from the repository root.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_import.h"
#include "test.h"

#define FIX "tests/fixtures/import/"
#define END AP_LAST_END

struct want_t {
	int32_t index;
	const char *name;
	uint64_t bytes;
	int64_t offset;
	int32_t first, last;
	enum ap_kind kind;
	int32_t share_root;
};

struct want_op {
	const char *opname, *out_name;
};

struct want_plan {
	const char *strategy;
	const struct want_t *t;
	uint32_t n;
	const struct want_op *ops;
	uint32_t n_ops;
	uint64_t arena_bytes, persistent_bytes;
};

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static char name_buf[256];

static const char *nm(const char *tag, const char *what, long i)
{
	if (i < 0)
		snprintf(name_buf, sizeof(name_buf), "%s: %s", tag, what);
	else
		snprintf(name_buf, sizeof(name_buf), "%s: [%ld].%s", tag, i, what);
	return name_buf;
}

static void check_str(const char *name, const char *got, const char *want)
{
	CHECK(name, got && !strcmp(got, want), "got '%s', want '%s'", got ? got : "(null)", want);
}

static void check_plan(const char *tag, const char *path, const struct want_plan *w)
{
	struct ap_tplan p;
	char err[AP_ERR_LEN] = "";
	uint32_t i;
	int ret;

	ret = ap_plan_import(path, &p, err);
	CHECK(nm(tag, "imports", -1), ret == 0, "ap_plan_import: %s", err);
	if (ret)
		return;
	check_str(nm(tag, "strategy", -1), p.strategy, w->strategy);
	check_str(nm(tag, "model", -1), p.model, path);
	CHECK_EQ_I64(nm(tag, "arena_bytes", -1), p.arena_bytes, w->arena_bytes);
	CHECK_EQ_I64(nm(tag, "persistent_bytes", -1), p.persistent_bytes, w->persistent_bytes);
	CHECK_EQ_I64(nm(tag, "n", -1), p.n, w->n);
	for (i = 0; i < p.n && i < w->n; i++) {
		const struct ap_ptensor *t = &p.t[i];
		const struct want_t *e = &w->t[i];

		CHECK_EQ_I64(nm(tag, "index", i), t->index, e->index);
		check_str(nm(tag, "name", i), t->name, e->name);
		CHECK_EQ_I64(nm(tag, "bytes", i), t->bytes, e->bytes);
		CHECK_EQ_I64(nm(tag, "offset", i), t->offset, e->offset);
		CHECK_EQ_I64(nm(tag, "first", i), t->first, e->first);
		CHECK_EQ_I64(nm(tag, "last", i), t->last, e->last);
		check_str(nm(tag, "kind", i), ap_kind_name(t->kind), ap_kind_name(e->kind));
		CHECK_EQ_I64(nm(tag, "share_root", i), t->share_root, e->share_root);
	}
	CHECK_EQ_I64(nm(tag, "n_ops", -1), p.n_ops, w->n_ops);
	for (i = 0; i < p.n_ops && i < w->n_ops; i++) {
		check_str(nm(tag, "opname", i), p.ops[i].opname, w->ops[i].opname);
		check_str(nm(tag, "out_name", i), p.ops[i].out_name, w->ops[i].out_name);
	}
	ap_tplan_free(&p);
	CHECK(nm(tag, "freed", -1), !p.t && !p.ops && !p.model && !p.strategy && !p.n,
	      "ap_tplan_free left the plan non-empty");
}

/* The import fails with exactly "PATH<rest>", -EINVAL (-ENOENT for a missing file), and
 * leaves the plan empty. */
static void check_fails(const char *tag, const char *path, const char *rest)
{
	struct ap_tplan p;
	char err[AP_ERR_LEN] = "", want[AP_ERR_LEN];
	int ret;

	memset(&p, 0x5a, sizeof(p));
	ret = ap_plan_import(path, &p, err);
	snprintf(want, sizeof(want), "%s%s", path, rest);
	CHECK(nm(tag, "fails", -1), ret == (strstr(rest, "No such file") ? -ENOENT : -EINVAL),
	      "returned %d", ret);
	check_str(nm(tag, "message", -1), err, want);
	CHECK(nm(tag, "plan left empty", -1), !p.t && !p.ops && !p.model && !p.strategy &&
	      !p.n && !p.n_ops, "plan not zeroed");
	if (!ret)
		ap_tplan_free(&p);
}

/* A copy of a fixture with the first occurrence of `from` replaced by `to`, in /tmp. */
static char tmp_path[64];

static const char *variant(const char *fixture, const char *from, const char *to)
{
	FILE *f = fopen(fixture, "rb");
	char *buf, *hit;
	long n;
	int fd;

	if (!f)
		return "/nonexistent";
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return "/nonexistent";
	}
	fclose(f);
	snprintf(tmp_path, sizeof(tmp_path), "/tmp/ap_plan_import_XXXXXX");
	fd = mkstemp(tmp_path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		free(buf);
		return "/nonexistent";
	}
	hit = from ? strstr(buf, from) : NULL;
	if (hit) {
		fwrite(buf, 1, hit - buf, f);
		fputs(to, f);
		fputs(hit + strlen(from), f);
	} else {
		fputs(buf, f);
	}
	fclose(f);
	free(buf);
	return tmp_path;
}

/* The same text with every \n as \r\n. */
static const char *crlf(const char *fixture)
{
	FILE *in = fopen(fixture, "rb"), *out;
	int c, fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/ap_plan_import_XXXXXX");
	fd = mkstemp(tmp_path);
	out = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!in || !out) {
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return "/nonexistent";
	}
	while ((c = fgetc(in)) != EOF) {
		if (c == '\n')
			fputc('\r', out);
		fputc(c, out);
	}
	fclose(in);
	fclose(out);
	return tmp_path;
}

static const char *text_file(const char *text)
{
	FILE *f;
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/ap_plan_import_XXXXXX");
	fd = mkstemp(tmp_path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f)
		return "/nonexistent";
	fputs(text, f);
	fclose(f);
	return tmp_path;
}

static void done_tmp(void)
{
	unlink(tmp_path);
}

/* ---- LiteRT: arena_planner_test.cc's SimpleGraph ------------------------------------ */

static const struct want_t simple_t[] = {
	{ 0, "input_a", 3, 0, 0, END, AP_KIND_INPUT, -1 },
	{ 1, "input_b", 6, 4, 0, END, AP_KIND_INPUT, -1 },
	{ 2, "add_out", 9, 48, 0, 1, AP_KIND_ARENA, -1 },
	{ 3, "output", 12, 48, 2, END, AP_KIND_OUTPUT, -1 },
	{ 4, "split_a", 15, 32, 1, 2, AP_KIND_ARENA, -1 },
	{ 5, "split_b", 18, 12, 1, 2, AP_KIND_ARENA, -1 },
};

static const struct want_op simple_ops[] = {
	{ "ADD", "add_out" }, { "SplitPair", "split_a" }, { "MUL", "output" },
};

static const struct want_plan simple = {
	"import:litert", simple_t, N(simple_t), simple_ops, N(simple_ops), 60, 0,
};

static void test_litert_simple(void)
{
	struct want_plan w = simple;

	check_plan("litert simple", FIX "litert_simple_graph.txt", &simple);
	/* no Interpreter line, no execution plan line (identity), no status (max end) */
	check_plan("litert raw", FIX "litert_simple_graph_raw.txt", &simple);
	check_plan("litert crlf", crlf(FIX "litert_simple_graph.txt"), &simple);
	done_tmp();
	/* "-1-1" is the run -1, 0, 1 (PrintIntVector collapses it so); -1 is skipped */
	check_plan("litert run from -1", variant(FIX "litert_simple_graph.txt",
						 "  2 Input Tensors:[0,1]",
						 "  3 Input Tensors:[-1-1]"), &simple);
	done_tmp();
	/* a status line wins over the largest end */
	w.arena_bytes = 188;
	check_plan("litert status wins", variant(FIX "litert_simple_graph.txt",
						 "(Normal)             60",
						 "(Normal)            188"), &w);
	done_tmp();
}

/* ---- LiteRT: delegate, weights, variable, dynamic, temporaries, in-place ------------- */

static const struct want_t feat_t[] = {
	{ 0, "serving_default_input:0", 64, 0, 0, END, AP_KIND_INPUT, -1 },
	{ 1, "conv/weights", 144, -1, -1, -1, AP_KIND_WEIGHTS, -1 },
	{ 2, "conv/bias", 16, -1, -1, -1, AP_KIND_WEIGHTS, -1 },
	{ 3, "MobilenetV2/Conv/Conv2...", 128, 64, 0, 2, AP_KIND_ARENA, -1 },
	{ 4, "reshape out", 128, 64, 1, 2, AP_KIND_ARENA, 3 },
	{ 5, "lstm/state", 32, 0, 0, END, AP_KIND_VARIABLE, -1 },
	{ 6, "fc/out", 256, -1, -1, -1, AP_KIND_UNPLANNED, -1 },
	{ 7, "logistic/out", 40, 192, 2, 3, AP_KIND_ARENA, -1 },
	{ 8, "conv/scratch", 96, 192, 0, 0, AP_KIND_ARENA, -1 },
	{ 9, "labels", 24, -1, 3, END, AP_KIND_DYNAMIC, -1 },
	{ 10, "output", 40, 64, 3, END, AP_KIND_OUTPUT, -1 },
	{ 11, "never_used", 8, -1, -1, -1, AP_KIND_UNPLANNED, -1 },
	{ 12, "shape_const", 8, -1, -1, -1, AP_KIND_UNPLANNED, -1 },
};

static const struct want_op feat_ops[] = {
	{ "CONV_2D", "MobilenetV2/Conv/Conv2..." },
	{ "RESHAPE", "reshape out" },
	{ "TfLiteXNNPackDelegate", "logistic/out" },
	{ "MyPostProcess", "output" },
};

static void test_litert_features(void)
{
	static const struct want_plan w = {
		"import:litert", feat_t, N(feat_t), feat_ops, N(feat_ops), 416, 160,
	};

	check_plan("litert features", FIX "litert_features.txt", &w);
}

static void test_litert_broken(void)
{
	check_fails("litert bad number", FIX "litert_bad_number.txt",
		    ":21: tensor 3: size '1Z' is not a number");
	check_fails("litert truncated", FIX "litert_truncated.txt",
		    ":22: tensor 4: truncated tensor line");
	check_fails("litert duplicate", FIX "litert_duplicate.txt",
		    ":21: duplicate tensor 2 (expected tensor 3)");
	check_fails("litert old format", FIX "litert_old_format.txt",
		    ":2: this PrintInterpreterState dump is in the TensorFlow <= 2.6 format, "
		    "which has no tensor offsets");
	check_fails("litert tensor count", variant(FIX "litert_simple_graph.txt",
						   "has 6 tensors", "has 7 tensors"),
		    ":24: the tensor table of subgraph 0 has 6 tensors, its header says 7");
	done_tmp();
	check_fails("litert range size", variant(FIX "litert_simple_graph.txt",
						 "[48, 60)", "[48, 61)"),
		    ":21: tensor 3: offset range [48, 61) does not match its size 12");
	done_tmp();
	check_fails("litert unknown tensor", variant(FIX "litert_simple_graph.txt",
						     "  1 Output Tensors:[3]",
						     "  1 Output Tensors:[6]"),
		    ":45: node 2: Output Tensors: tensor 6 does not exist (subgraph 0 has 6 "
		    "tensors)");
	done_tmp();
	check_fails("litert list count", variant(FIX "litert_simple_graph.txt",
						 "  2 Input Tensors:[0,1]",
						 "  3 Input Tensors:[0,1]"),
		    ":38: node 0: Input Tensors: the list has 2 entries, the line says 3");
	done_tmp();
	check_fails("litert cut list", variant(FIX "litert_simple_graph.txt",
					       "  2 Output Tensors:[4,5] -> 33B (0.00MB)",
					       "  2 Output Tensors:[4,"),
		    ":42: Output Tensors: expected a number in the list (truncated line?)");
	done_tmp();
	check_fails("litert exec twice", variant(FIX "litert_simple_graph.txt", "[0-2]",
						 "[0,1,1]"),
		    ":47: execution plan: node 1 appears twice");
	done_tmp();
	check_fails("litert exec node", variant(FIX "litert_simple_graph.txt",
						"3 nodes invoked in-order: [0-2]",
						"3 nodes invoked in-order: [0,1,3]"),
		    ":47: execution plan: node 3 does not exist");
	done_tmp();
	check_fails("litert node count", variant(FIX "litert_simple_graph_raw.txt",
						 "has 6 tensors and 3 nodes",
						 "has 6 tensors and 4 nodes"),
		    ":36: the dump ends after 3 of the 4 nodes of subgraph 0");
	done_tmp();
	check_fails("litert node order", variant(FIX "litert_simple_graph.txt",
						 "Node   2 Operator", "Node   3 Operator"),
		    ":43: node 3 out of order (expected node 2)");
	done_tmp();
	check_fails("litert no table", text_file("Interpreter has 1 subgraphs.\n\n"
						 "-----------Subgraph-0 has 1 tensors and 0 "
						 "nodes------------\n"),
		    ":3: subgraph 0 has no tensor table (truncated dump?)");
	done_tmp();
	check_fails("litert no subgraph 0", text_file("INFO: x\nInterpreter has 1 subgraphs.\n"),
		    ":2: this PrintInterpreterState dump has no subgraph 0");
	done_tmp();
}

/* ---- TFLM: greedy_memory_planner_test.cc's TestGreedyMedium ------------------------- */

static const struct want_t tflm_t[] = {
	{ 0, "", 10, 50, 0, 0, AP_KIND_ARENA, -1 },
	{ 1, "", 20, 70, 0, 1, AP_KIND_ARENA, -1 },
	{ 2, "", 30, 40, 1, 2, AP_KIND_ARENA, -1 },
	{ 3, "", 40, 0, 2, 3, AP_KIND_ARENA, -1 },
	{ 4, "", 50, 0, 0, 0, AP_KIND_ARENA, -1 },
};

static const struct want_op tflm_ops[] = { { "", "" }, { "", "" }, { "", "" }, { "", "" } };

static void test_tflm(void)
{
	static const struct want_plan w = {
		"import:tflm", tflm_t, N(tflm_t), tflm_ops, N(tflm_ops), 90, 0,
	};

	check_plan("tflm medium", FIX "tflm_greedy_medium.txt", &w);
	check_plan("tflm prefixed", FIX "tflm_prefixed.txt", &w);
	check_fails("tflm bad number", FIX "tflm_bad_number.txt",
		    ":3: size '3O' is not a number");
	check_fails("tflm truncated", FIX "tflm_truncated.txt",
		    ":4: PrintMemoryPlan line: expected ', first_used=' (truncated line?)");
	check_fails("tflm duplicate", FIX "tflm_duplicate.txt",
		    ":4: duplicate id 1 (first on line 2)");
	check_fails("tflm lifetime", variant(FIX "tflm_greedy_medium.txt",
					     "first_used=2 last_used=3",
					     "first_used=4 last_used=3"),
		    ":3: id 2: bad lifetime first_used=4 last_used=3");
	done_tmp();
	check_fails("tflm id range", variant(FIX "tflm_greedy_medium.txt", "(id=4)",
					     "(id=10000000)"),
		    ":5: id 10000000 is out of range (0..9999999)");
	done_tmp();
}

/* ---- CSV ------------------------------------------------------------------------------ */

static const struct want_t csv_t[] = {
	{ 0, "input_a", 3, 0, 0, END, AP_KIND_INPUT, -1 },
	{ 1, "input_b", 6, 4, 0, END, AP_KIND_INPUT, -1 },
	{ 2, "add_out", 9, 48, 0, 1, AP_KIND_ARENA, -1 },
	{ 3, "output", 12, 48, 2, END, AP_KIND_OUTPUT, -1 },
	{ 4, "say \"hi\"", 15, 32, 1, 2, AP_KIND_ARENA, -1 },
	{ 5, "split, b", 18, 12, 1, 2, AP_KIND_ARENA, -1 },
	{ 7, "two?lines", 100, -1, -1, -1, AP_KIND_WEIGHTS, -1 },	/* made printable */
	{ 9, "", 0, -1, -1, -1, AP_KIND_UNPLANNED, -1 },
	{ 20, "state", 64, 0, 0, END, AP_KIND_VARIABLE, -1 },
};

static const struct want_op csv_ops[] = { { "", "" }, { "", "" }, { "", "" } };

static const struct want_t csv6_t[] = {
	{ 0, "a", 64, 0, 0, END, AP_KIND_ARENA, -1 },
	{ 1, "b", 64, 64, 0, 3, AP_KIND_ARENA, -1 },
};

static const struct want_op csv6_ops[] = { { "", "" }, { "", "" }, { "", "" }, { "", "" } };

static void test_csv(void)
{
	static const struct want_plan w = {
		"import:csv", csv_t, N(csv_t), csv_ops, N(csv_ops), 60, 64,
	};
	static const struct want_plan w6 = {
		"import:csv", csv6_t, N(csv6_t), csv6_ops, N(csv6_ops), 128, 0,
	};

	check_plan("csv", FIX "plan.csv", &w);
	check_plan("csv 6 columns", FIX "plan_6col.csv", &w6);
	check_fails("csv bad number", FIX "csv_bad_number.csv",
		    ":4: size 'abc' is not a number");
	check_fails("csv truncated", FIX "csv_truncated.csv",
		    ":7: expected 7 fields, found 3 (truncated line?)");
	check_fails("csv duplicate", FIX "csv_duplicate.csv",
		    ":7: duplicate tensor 4 (first on line 5)");
	check_fails("csv bad header", FIX "csv_bad_header.csv",
		    ":1: CSV header must be tensor,name,offset,size,first_node,last_node with "
		    "an optional 7th column kind");
	check_fails("csv index range", variant(FIX "plan.csv", "20,state", "10000000,state"),
		    ":11: tensor 10000000 is out of range (0..9999999)");
	done_tmp();
	check_fails("csv node range", variant(FIX "plan.csv", "0,1,arena", "0,1000000,arena"),
		    ":7: last_node 1000000 is out of range (-1..999999 or end)");
	done_tmp();
	check_fails("csv lifetime", variant(FIX "plan.csv", "-1,-1,weights", "-1,end,weights"),
		    ":9: last_node 'end' does not fit first_node -1 (-1 with -1, else end or >= "
		    "first_node)");
	done_tmp();
	check_fails("csv kind", variant(FIX "plan.csv", "1,2,arena\n4,", "1,2,arenas\n4,"),
		    ":4: kind 'arenas' is not one of arena, input, output, variable, weights, "
		    "dynamic, unplanned, temporary, persistent, parent");
	done_tmp();
	check_fails("csv open quote", variant(FIX "plan.csv", "9,,", "9,\","),
		    ":12: a quoted field is never closed");
	done_tmp();
	check_fails("csv stray quote", variant(FIX "plan.csv", "\"split, b\"", "\"split\" b"),
		    ":4: text after a closing quote");
	done_tmp();
	check_fails("csv offset", variant(FIX "plan.csv", "add_out,48", "add_out,-2"),
		    ":7: offset -2 must be -1 (not in an arena) or >= 0");
	done_tmp();
	check_fails("csv overflow", variant(FIX "plan.csv", "add_out,48,9",
					    "add_out,48,99999999999999999999"),
		    ":7: size '99999999999999999999' is out of range");
	done_tmp();
	check_fails("csv no rows", text_file("tensor,name,offset,size,first_node,last_node\n"),
		    ":1: no tensor rows after the CSV header");
	done_tmp();
}

static void test_not_a_plan(void)
{
	static const char *const msg = ": not a plan: expected a LiteRT PrintInterpreterState "
		"dump, a TFLM PrintMemoryPlan or a CSV with header tensor,name,offset,size,"
		"first_node,last_node";

	check_fails("unknown format", FIX "unknown_format.txt", msg);
	check_fails("empty file", FIX "empty.txt", msg);
	check_fails("binary file", TEST_MODELS "/split_concat.tflite", msg);
	check_fails("missing file", FIX "no_such_file.txt", ": No such file or directory");
}

static void test_types(void)
{
	static const char *const names[] = {
		"arena", "input", "output", "variable", "weights", "dynamic", "unplanned",
		"temporary", "persistent",
	};
	struct ap_ptensor t = { 0, NULL, 16, 0, 0, 1, AP_KIND_ARENA, -1 };
	struct ap_tplan empty = { 0 };
	enum ap_kind k;
	unsigned int i;

	for (i = 0; i < N(names); i++) {
		check_str(nm("kind name", names[i], -1), ap_kind_name((enum ap_kind)i), names[i]);
		k = AP_KIND_UNPLANNED;
		CHECK(nm("kind parse", names[i], -1),
		      !ap_kind_parse(names[i], &k) && k == (enum ap_kind)i, "got %d", (int)k);
	}
	check_str("kind name out of range", ap_kind_name((enum ap_kind)99), "?");
	k = AP_KIND_DYNAMIC;
	CHECK("kind parse unknown", ap_kind_parse("Arena", &k) == -EINVAL && k == AP_KIND_DYNAMIC,
	      "accepted 'Arena'");
	CHECK("in arena: arena", ap_ptensor_in_arena(&t), "no");
	t.kind = AP_KIND_INPUT;
	CHECK("in arena: input", ap_ptensor_in_arena(&t), "no");
	t.kind = AP_KIND_OUTPUT;
	CHECK("in arena: output", ap_ptensor_in_arena(&t), "no");
	t.kind = AP_KIND_VARIABLE;
	CHECK("in arena: variable", !ap_ptensor_in_arena(&t), "yes");
	t.kind = AP_KIND_WEIGHTS;
	CHECK("in arena: weights", !ap_ptensor_in_arena(&t), "yes");
	t.kind = AP_KIND_ARENA;
	t.share_root = 3;
	CHECK("in arena: shared", !ap_ptensor_in_arena(&t), "yes");
	t.share_root = -1;
	t.bytes = 0;
	CHECK("in arena: empty", !ap_ptensor_in_arena(&t), "yes");
	t.bytes = 16;
	t.offset = -1;
	CHECK("in arena: no offset", !ap_ptensor_in_arena(&t), "yes");
	ap_tplan_free(&empty);
	ap_tplan_free(NULL);
	CHECK("free empty plan", 1, "-");
}

int main(void)
{
	test_types();
	test_litert_simple();
	test_litert_features();
	test_litert_broken();
	test_tflm();
	test_csv();
	test_not_a_plan();
	TEST_EXIT();
}
