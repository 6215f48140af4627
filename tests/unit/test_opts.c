// SPDX-License-Identifier: Apache-2.0
/* opts: a spec string gives the getopt_long table and short options it says. */
#include <string.h>

#include "arenaprof/cli/opts.h"
#include "test.h"

int main(void)
{
	struct ap_opts o;
	char a0[] = "x", a1[] = "-p", a2[] = "12", a3[] = "--max-n=3", a4[] = "-k",
	     a5[] = "--plan-csv", a6[] = "f.csv", a7[] = "-m", a8[] = "cmd";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, NULL };
	int got[8], n = 0, c;

	ap_opts_init(&o, "+p|pid: m=max-n: k|keep P=plan: P=plan-csv: h|help");
	CHECK("shorts: '+', the '|' ones with ':' for a value, each once",
	      !strcmp(o.shorts, "+p:kh"), "'%s'", o.shorts);
	CHECK("long names and their values",
	      !strcmp(o.o[1].name, "max-n") && o.o[1].has_arg == required_argument &&
	      o.o[1].val == 'm' && !strcmp(o.o[4].name, "plan-csv") && o.o[4].val == 'P' &&
	      o.o[2].has_arg == no_argument && !o.o[6].name, "%s %d %c", o.o[1].name,
	      o.o[1].has_arg, o.o[1].val);
	while ((c = ap_opts_next(&o, 9, argv)) != -1 && n < 8)
		got[n++] = c;
	CHECK("-p 12 --max-n=3 -k --plan-csv f.csv, then -m (no short form): '?'",
	      n == 5 && got[0] == 'p' && got[1] == 'm' && got[2] == 'k' && got[3] == 'P' &&
	      got[4] == '?', "%d options", n);
	ap_opts_init(&o, "+p|pid: h|help");
	n = 0;
	{
		char b1[] = "-p", b2[] = "1", b3[] = "cmd", b4[] = "-h";
		char *bv[] = { a0, b1, b2, b3, b4, NULL };

		while ((c = ap_opts_next(&o, 5, bv)) != -1)
			n++;
		CHECK("'+': options stop at the command, whose own -h stays its own",
		      n == 1 && optind == 3, "%d options, optind %d", n, optind);
	}
	TEST_EXIT();
}
