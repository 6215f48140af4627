// SPDX-License-Identifier: Apache-2.0
/* cli: the commands' lines on stderr (include/arenaprof/cli/cli.h). */
#include <errno.h>
#include <stdarg.h>
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
	/* 'arenaprof -p PID' runs top with main's argv: no command was named, so none is
	 * blamed for an option given without one */
	if (strcmp(argv[0], cmd))
		ap_cli_say(NULL, "bad option or missing value: '%s' (no command given; options "
			   "alone are the live view's, as in 'arenaprof -p PID': see 'arenaprof "
			   "--help')", argv[optind - 1]);
	else
		ap_cli_say(cmd, "bad option or missing value: '%s' (see 'arenaprof %s --help')",
			   argv[optind - 1], cmd);
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
