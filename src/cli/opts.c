// SPDX-License-Identifier: Apache-2.0
/* opts: getopt_long's tables from one spec string per command (opts.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/cli/opts.h"

/* A spec is part of the program, not input: a wrong one is a bug, found by any run. */
static void bad_spec(const char *spec, const char *why)
{
	fprintf(stderr, "arenaprof: internal error: option spec '%s': %s\n", spec, why);
	abort();
}

void ap_opts_init(struct ap_opts *o, const char *spec)
{
	size_t n = 0, ns = 0, nn = 0;
	const char *p = spec;

	memset(o, 0, sizeof(*o));
	if (*p == '+') {
		o->shorts[ns++] = '+';
		p++;
	}
	while (*p) {
		size_t len;
		char id, how;
		bool arg;

		p += strspn(p, " ");
		if (!*p)
			break;
		len = strcspn(p, " ");
		if (len < 3 || (p[1] != '|' && p[1] != '=') || n == AP_OPTS_MAX)
			bad_spec(spec, "a token is not C|name or C=name, or too many");
		id = p[0];
		how = p[1];
		arg = p[len - 1] == ':';
		if (nn + len > sizeof(o->names))
			bad_spec(spec, "names too long");
		memcpy(o->names + nn, p + 2, len - 2 - arg);
		o->names[nn + len - 2 - arg] = '\0';
		o->o[n++] = (struct option){ o->names + nn, arg ? required_argument : no_argument,
					     NULL, id };
		nn += len - 1 - arg;
		if (how == '|' && !memchr(o->shorts, id, ns)) {
			o->shorts[ns++] = id;
			if (arg)
				o->shorts[ns++] = ':';
		}
		p += len;
	}
	/*
	 * 0, not 1: glibc's getopt then starts over, forgetting where it was inside a
	 * cluster of short options (-jXj) of the last argv it read and the order ('+' or
	 * not) of the last spec; with 1 it carries both into the next parse
	 */
	optind = 0;
	opterr = 0;	/* the command says what is wrong, in one line of its own */
}

int ap_opts_next(struct ap_opts *o, int argc, char **argv)
{
	return getopt_long(argc, argv, o->shorts, o->o, NULL);
}
