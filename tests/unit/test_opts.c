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
	/* each init starts getopt over: not inside the last argv's cluster, nor in its order */
	ap_opts_init(&o, "j|json p|plan: h|help");
	{
		char c1[] = "-jXp", d1[] = "cmd", d2[] = "-j";
		char *cv[] = { a0, c1, NULL }, *dv[] = { a0, d1, d2, NULL };

		n = 0;
		while (n < 8 && (c = ap_opts_next(&o, 2, cv)) != -1) {
			got[n++] = c;
			if (c == '?')
				break;	/* as a command stops: p is left in the cluster */
		}
		CHECK("-jXp: -j, then '?' for X, inside the cluster",
		      n == 2 && got[0] == 'j' && got[1] == '?', "%d options", n);
		ap_opts_init(&o, "j|json p|plan: h|help");
		n = 0;
		while ((c = ap_opts_next(&o, 3, dv)) != -1 && n < 8)
			got[n++] = c;
		CHECK("a new init forgets the cluster (no -p) and the '+' of an earlier spec "
		      "(-j after a non-option is an option)",
		      n == 1 && got[0] == 'j' && optind == 2 && dv[2] == d1,
		      "%d options, first %c, optind %d", n, n ? got[0] : '-', optind);
	}
	TEST_EXIT();
}
