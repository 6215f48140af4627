// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the command line: the input split at its NUL bytes into argv, the
 * first word the command (plan, record, report, top, heatmap, export, run, diff or check; a word
 * that starts with '-' is `arenaprof -p PID ...`, the live view, as main.c dispatches
 * it), read by that command's option parser alone (cmd_NAME_parse, cmd.h), never run.
 * Never a crash, a leak or a read outside argv. The parser goes on saying nothing, prints
 * its usage on stdout and exits 0 (--help), or exits 2 with its lines on stderr; what it
 * says on stderr is lines "arenaprof NAME: ..." (or "  - item") of valid UTF-8 without a
 * control character, whatever argv holds (cli.h), else we trap. Each input is parsed
 * twice, on two copies: the second parse must say what the first said.
 * Built and run by tests/fuzz/run-fuzz.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/cli/cmd.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 256

static const struct {
	const char *name;
	int (*parse)(int argc, char **argv);
} commands[] = {
	{ "plan", cmd_plan_parse },
	{ "record", cmd_record_parse },
	{ "report", cmd_report_parse },
	{ "top", cmd_top_parse },
	{ "heatmap", cmd_heatmap_parse },
	{ "export", cmd_export_parse },
	{ "run", cmd_run_parse },
	{ "diff", cmd_diff_parse },
	{ "check", cmd_check_parse },
};

/* Every line starts with prefix or "  - ", is valid UTF-8 with no C0, DEL or C1. */
/* Every line the command's (prefix), the live view's bad option "arenaprof: " (alt). */
static bool said_by(const char *s, const char *prefix, const char *alt)
{
	return !strncmp(s, prefix, strlen(prefix)) || (alt && !strncmp(s, alt, strlen(alt)));
}

static bool lines_ok(const char *s, size_t len, const char *prefix, const char *alt)
{
	const char *end = s + len;

	if (len && end[-1] != '\n')
		return false;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (!said_by(s, prefix, alt) && strncmp(s, "  - ", 4))
			return false;
		while (s < nl) {
			unsigned char c = (unsigned char)*s;
			int n = ap_utf8_seq(s);

			if (!n || c < 0x20 || c == 0x7f ||
			    (c == 0xc2 && (unsigned char)s[1] < 0xa0))
				return false;
			s += n;
		}
		s = nl + 1;
	}
	return true;
}

/* The words of the input, each in its own allocation (so ASan sees a read past one). */
static int split(const uint8_t *data, size_t size, char **w)
{
	size_t i = 0;
	int n = 0;

	while (i < size && n < MAX_WORDS) {
		const uint8_t *nul = memchr(data + i, 0, size - i);
		size_t len = nul ? (size_t)(nul - data) - i : size - i;

		w[n] = malloc(len + 1);
		if (!w[n])
			__builtin_trap();
		memcpy(w[n], data + i, len);
		w[n++][len] = 0;
		i += len + 1;
	}
	return n;
}

/* What a parse did: its exit code and what it printed. */
struct said {
	int rc;
	char *out, *err;
	size_t n_out, n_err;
};

/* Runs parse on argv with stdout and stderr caught; traps on what cli.h rules out. */
static void check(int (*parse)(int, char **), const char *name, bool live, int argc,
		  char **argv, struct said *s)
{
	/* 'arenaprof -p PID --bad': no command was named, none is blamed (cli.c) */
	const char *alt = live ? "arenaprof: " : NULL;
	FILE *out0 = stdout, *err0 = stderr;
	char prefix[32];

	*s = (struct said){ 0 };
	stdout = open_memstream(&s->out, &s->n_out);
	stderr = open_memstream(&s->err, &s->n_err);
	if (!stdout || !stderr)
		__builtin_trap();
	s->rc = parse(argc, argv);
	fclose(stdout);
	fclose(stderr);
	stdout = out0;
	stderr = err0;
	snprintf(prefix, sizeof(prefix), "arenaprof %s: ", name);
	if (!lines_ok(s->err, s->n_err, prefix, alt))
		__builtin_trap();
	switch (s->rc) {
	case AP_CMD_GO_ON:
		if (s->n_out)
			__builtin_trap();
		break;
	case AP_EXIT_OK:
		if (s->n_err || strncmp(s->out, "usage: arenaprof ", 17))
			__builtin_trap();
		break;
	case AP_EXIT_USAGE:
		if (s->n_out || !s->n_err || !said_by(s->err, prefix, alt))
			__builtin_trap();
		break;
	default:
		__builtin_trap();
	}
}

/* The input as a command line, parsed by its command; into s, false for no command. */
static bool parse(const uint8_t *data, size_t size, struct said *s)
{
	static char self[] = "arenaprof";
	char *words[MAX_WORDS], *argv[MAX_WORDS + 2];
	int n = split(data, size, words), argc = 0, i;
	bool live, found = false;

	if (!n)
		return false;
	/* main.c: arenaprof -p PID ... passes its own argv to cmd_top; -h and -V are its own */
	live = words[0][0] == '-' && words[0][1] && strcmp(words[0], "-h") &&
	       strcmp(words[0], "--help") && strcmp(words[0], "-V") &&
	       strcmp(words[0], "--version");
	if (live)
		argv[argc++] = self;
	for (i = 0; i < n; i++)
		argv[argc++] = words[i];
	argv[argc] = NULL;
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]) && !found; c++) {
		if (live ? !strcmp(commands[c].name, "top") : !strcmp(words[0], commands[c].name)) {
			check(commands[c].parse, commands[c].name, live, argc, argv, s);
			found = true;
		}
	}
	for (i = 0; i < n; i++)
		free(words[i]);
	return found;
}

/*
 * Twice, each time on an argv of its own: a parse leaves nothing behind that changes the
 * next (getopt's state is reset), so both say the same.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct said a, b;

	if (!parse(data, size, &a))
		return 0;
	parse(data, size, &b);
	if (a.rc != b.rc || a.n_out != b.n_out || a.n_err != b.n_err ||
	    memcmp(a.out, b.out, a.n_out) || memcmp(a.err, b.err, a.n_err))
		__builtin_trap();
	free(a.out);
	free(a.err);
	free(b.out);
	free(b.err);
	return 0;
}
