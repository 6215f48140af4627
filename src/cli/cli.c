// SPDX-License-Identifier: Apache-2.0
/* cli: the commands' lines on stderr (include/arenaprof/cli/cli.h). */
#include <errno.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/numparse.h"

static void vsay(const char *prefix, const char *cmd, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fputs(prefix, stderr);
	if (cmd) {
		fputs(cmd, stderr);
		fputs(": ", stderr);
	}
	ap_fput_text(stderr, msg);
	fputc('\n', stderr);
}

void ap_cli_vsay(const char *cmd, const char *fmt, va_list ap)
{
	vsay(cmd ? "arenaprof " : "arenaprof: ", cmd, fmt, ap);
}

void ap_cli_say(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_cli_vsay(cmd, fmt, ap);
	va_end(ap);
}

void ap_cli_item(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("  - ", NULL, fmt, ap);
	va_end(ap);
}

int ap_cli_exit(int err)
{
	if (!err)
		return AP_EXIT_OK;
	if (err == -ENOMEM || err == -EIO || err == -ENOSPC || err == -EPIPE || err == -EAGAIN ||
	    err == -EPERM || err == -ENOTRECOVERABLE)
		return AP_EXIT_RUNTIME;
	return AP_EXIT_USAGE;
}

int ap_cli_bad_option(const char *cmd, char **argv)
{
	const char *w = argv[optind - 1], *next = argv[optind];
	bool in_cluster = next && next[0] == '-' && next[1] && next[1] != '-' && optopt &&
			  strchr(next + 1, optopt);
	char word[16];

	/* a short option inside a cluster ("-xq"): getopt has not moved past its word yet,
	 * so the word before may be another (even argv[0]); name the option itself */
	if (in_cluster || (optopt && strncmp(w, "--", 2))) {
		snprintf(word, sizeof(word), isprint(optopt) ? "-%c" : "-\\x%02x",
			 (unsigned char)optopt);
		w = word;
	}
	/* 'arenaprof -p PID' runs top with main's argv: no command was named, so none is
	 * blamed for an option given without one */
	if (strcmp(argv[0], cmd))
		ap_cli_say(NULL, "bad option or missing value: '%s' (no command given; options "
			   "alone are the live view's, as in 'arenaprof -p PID': see 'arenaprof "
			   "--help')", w);
	else
		ap_cli_say(cmd, "bad option or missing value: '%s' (see 'arenaprof %s --help')",
			   w, cmd);
	return AP_EXIT_USAGE;
}

int ap_cli_word(const char *arg, ...)
{
	const char *w;
	va_list ap;
	int i = 0;

	va_start(ap, arg);
	while ((w = va_arg(ap, const char *)) && strcmp(arg, w))
		i++;
	va_end(ap);
	return w ? i : -1;
}

int ap_cli_count(const char *cmd, const char *opt, const char *arg, uint64_t lo, uint64_t hi,
		 uint64_t *v)
{
	if (!ap_parse_u64(arg, 10, lo, hi, v))
		return 0;
	ap_cli_say(cmd, "--%s '%s' is not a count", opt, arg);
	return AP_EXIT_USAGE;
}
