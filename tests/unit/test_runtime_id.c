// SPDX-License-Identifier: Apache-2.0
/*
 * runtime_id and trace_runtime: a library's Python distribution found in a site-packages
 * built here (two distributions sharing a top package, as ai-edge-litert and its nightly
 * do; a library two levels down, as MediaPipe's; a dist-info without top_level.txt; a
 * FIFO where a RECORD should be, which must not block), the note record writes read back
 * field for field, malformed notes refused, and the plan rules chosen from a trace's notes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/analyze/trace_runtime.h"
#include "arenaprof/record/runtime_id.h"
#include "test.h"

static char root[256];

/* root/rel with text (creating its directories). */
static void put(const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void dist(const char *dir, const char *name, const char *version, const char *top,
		 const char *record)
{
	char rel[256], meta[256];

	snprintf(meta, sizeof(meta), "Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n"
		 "Version: 9.9.9 (the description, not a header)\n", name, version);
	snprintf(rel, sizeof(rel), "sp/%s/METADATA", dir);
	put(rel, meta);
	snprintf(rel, sizeof(rel), "sp/%s/RECORD", dir);
	put(rel, record);
	if (top) {
		snprintf(rel, sizeof(rel), "sp/%s/top_level.txt", dir);
		put(rel, top);
	}
}

static void check_find(const char *name, const char *lib, int want_rc, const char *want)
{
	char path[512], got[160] = "";
	struct ap_runtime_seen rs;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", root, lib);
	rc = ap_runtime_id_find(path, &rs);
	if (!rc)
		snprintf(got, sizeof(got), "%s %s", rs.name, rs.version);
	CHECK(name, rc == want_rc && (rc || !strcmp(got, want)), "rc %d '%s', want %d '%s'",
	      rc, got, want_rc, want ? want : "");
}

static void find_tests(void)
{
	char fifo[512];

	snprintf(root, sizeof(root), "/tmp/ap-runtime-id.XXXXXX");
	if (!mkdtemp(root)) {
		CHECK("a temporary directory", 0, "%s", strerror(errno));
		return;
	}
	dist("lr-2.3.0.dist-info", "ai-edge-litert", "2.3.0", "lr\n",
	     "lr/__init__.py,sha256=x,1\nlr/libcommon.so,sha256=y,2\n");
	dist("lr_nightly-2.4.0.dev1.dist-info", "ai-edge-litert-nightly", "2.4.0.dev1", "lr\n",
	     "lr/__init__.py,sha256=x,1\nlr/libother.so,sha256=y,2\n");
	dist("mp-0.10.14.dist-info", "mediapipe", "0.10.14", NULL,
	     "mp/python/_bindings.so,sha256=z,3\n");
	dist("blocked-1.0.dist-info", "blocked", "1.0", "lr\n", "");
	put("sp/lr/libcommon.so", "");
	put("sp/lr/libother.so", "");
	put("sp/lr/libstray.so", "");
	put("sp/mp/python/_bindings.so", "");
	put("elsewhere/lib/libtflite.so", "");
	/* a FIFO for a candidate's RECORD: refused (regular files only), not read forever */
	snprintf(fifo, sizeof(fifo), "%s/sp/blocked-1.0.dist-info/RECORD", root);
	unlink(fifo);
	CHECK("a FIFO made", !mkfifo(fifo, 0600), "%s", strerror(errno));

	check_find("the distribution whose RECORD lists the file", "sp/lr/libcommon.so", 0,
		   "ai-edge-litert 2.3.0");
	check_find("the other of two sharing a top package", "sp/lr/libother.so", 0,
		   "ai-edge-litert-nightly 2.4.0.dev1");
	check_find("two levels down, no top_level.txt", "sp/mp/python/_bindings.so", 0,
		   "mediapipe 0.10.14");
	check_find("a file no RECORD lists: none", "sp/lr/libstray.so", -ENOENT, NULL);
	check_find("a file in no site-packages: none", "elsewhere/lib/libtflite.so", -ENOENT,
		   NULL);
	check_find("a file that is not there: none", "sp/nope/libx.so", -ENOENT, NULL);
}

static char captured[1280];

static void note_tests(void)
{
	struct ap_runtime_seen rs, back;
	char lib[512];

	snprintf(lib, sizeof(lib), "%s/sp/lr/libcommon.so", root);
	CHECK("the note's text is returned", ap_runtime_id_note_of(lib, captured,
	      sizeof(captured)) == captured, "another buffer");
	CHECK("the note read back", ap_runtime_id_parse(captured, &back), "'%s'", captured);
	ap_runtime_id_find(lib, &rs);
	CHECK("every field as found", !strcmp(back.name, rs.name) &&
	      !strcmp(back.version, rs.version) && !strcmp(back.source, rs.source) &&
	      !strcmp(back.lib, lib), "'%s'", captured);
	snprintf(lib, sizeof(lib), "%s/elsewhere/lib/libtflite.so", root);
	ap_runtime_id_note_of(lib, captured, sizeof(captured));
	CHECK("a file in no distribution: the unknown note, no version read from it",
	      !strncmp(captured, "runtime: unknown (", 18) && !ap_runtime_id_parse(captured, &back),
	      "'%s'", captured);
	CHECK("a run probe note is not one", !ap_runtime_id_parse("run probe: /x.so:f (run "
	      "entry point found automatically: C API)", &back), "parsed");
	CHECK("no source: refused", !ap_runtime_id_parse("runtime: a 1.0 in /x.so", &back),
	      "parsed");
	CHECK("no version: refused", !ap_runtime_id_parse("runtime: a (from /m) in /x.so",
	      &back), "parsed");
	CHECK("cut before its library: refused", !ap_runtime_id_parse("runtime: a 1.0 (from "
	      "/m", &back), "parsed");
}

/* The rules and the why for notes (NULL-ended), --runtime given as given_id when >= 0. */
static void check_pick(const char *name, const char *const *notes, int given_id,
		       enum ap_runtime_id want, const char *why_has)
{
	struct ap_trace_runtime rt = { 0 };
	char why[400];

	if (given_id >= 0) {
		rt.given = true;
		rt.id = (enum ap_runtime_id)given_id;
	}
	for (; *notes; notes++)
		ap_trace_runtime_add(&rt, *notes);
	ap_trace_runtime_pick(&rt);
	ap_trace_runtime_why(&rt, why, sizeof(why));
	CHECK(name, rt.id == want && strstr(why, why_has), "rules %s, why '%s'",
	      ap_runtime_get(rt.id)->name, why);
}

#define N(d, v) "runtime: " d " " v " (from /sp/x.dist-info/METADATA) in /sp/x/lib.so"

static void pick_tests(void)
{
	check_pick("tflite-runtime 2.14.0: its rules", (const char *[]){ N("tflite-runtime",
		   "2.14.0"), NULL }, -1, AP_RUNTIME_TFLITE_214, "it ran tflite-runtime 2.14.0");
	check_pick("tflite_runtime 2.14.1 (another spelling, a patch release): the same",
		   (const char *[]){ N("tflite_runtime", "2.14.1"), NULL }, -1,
		   AP_RUNTIME_TFLITE_214, "chosen by the trace");
	check_pick("tflite-runtime 2.15.0: LiteRT's", (const char *[]){ N("tflite-runtime",
		   "2.15.0"), NULL }, -1, AP_RUNTIME_LITERT, "no rules of its own");
	check_pick("tflite-runtime 2.140: not 2.14", (const char *[]){ N("tflite-runtime",
		   "2.140"), NULL }, -1, AP_RUNTIME_LITERT, "the default");
	check_pick("ai-edge-litert: LiteRT's, chosen", (const char *[]){ N("ai-edge-litert",
		   "2.3.0"), N("ai-edge-litert", "2.3.0"), NULL }, -1, AP_RUNTIME_LITERT,
		   "it ran ai-edge-litert 2.3.0");
	check_pick("mediapipe: LiteRT's, the default", (const char *[]){ N("mediapipe",
		   "0.10.14"), NULL }, -1, AP_RUNTIME_LITERT, "mediapipe 0.10.14, which has no");
	check_pick("two that differ: the default", (const char *[]){ N("tflite-runtime",
		   "2.14.0"), N("ai-edge-litert", "2.3.0"), NULL }, -1, AP_RUNTIME_LITERT,
		   "names 2 runtimes (tflite-runtime 2.14.0, ai-edge-litert 2.3.0");
	check_pick("none named", (const char *[]){ "run probe: /x.so:f (...)", NULL }, -1,
		   AP_RUNTIME_LITERT, "names no runtime version");
	check_pick("only unknown ones", (const char *[]){ "runtime: unknown (/x.so is in no "
		   "Python distribution)", NULL }, -1, AP_RUNTIME_LITERT,
		   "in no Python distribution");
	check_pick("--runtime given: kept", (const char *[]){ N("tflite-runtime", "2.14.0"),
		   NULL }, AP_RUNTIME_LITERT, AP_RUNTIME_LITERT, "given (--runtime litert)");
}

int main(void)
{
	char cmd[300];

	find_tests();
	note_tests();
	pick_tests();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (root[0] && system(cmd))
		printf("(could not remove %s)\n", root);
	TEST_EXIT();
}
