/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opts: a command's options written once, as one spec string, instead of a getopt_long
 * table and a short-option string that must agree. Tokens are separated by spaces:
 *
 *   p|pid:      getopt returns 'p' for --pid VALUE and for -p VALUE
 *   m=max-n:    'm' for --max-n VALUE only (no short form)
 *   k|keep      no value
 *   +           first token: stop at the first non-option (a command line follows)
 *
 * Errors are the command's to say (opterr is 0): getopt returns '?' or ':'.
 */
#ifndef ARENAPROF_CLI_OPTS_H
#define ARENAPROF_CLI_OPTS_H

#include <getopt.h>

#define AP_OPTS_MAX 40

struct ap_opts {
	struct option o[AP_OPTS_MAX + 1];
	char shorts[3 * AP_OPTS_MAX + 2];
	char names[1024];
};

/*
 * Reads spec (a literal of the program: a malformed one aborts) and resets getopt, all of
 * it: the next parse does not depend on the last.
 */
void ap_opts_init(struct ap_opts *o, const char *spec);
/* getopt_long over them: the next option's character, or -1 at the end. */
int ap_opts_next(struct ap_opts *o, int argc, char **argv);

#endif
