// SPDX-License-Identifier: Apache-2.0
/*
 * xnn_direct: a program that drives XNNPACK itself, with no LiteRT (Debian's libXNNPACK):
 * one subgraph of one clamp over N floats, invoked R times. The run probe must find
 * xnn_invoke_runtime in libXNNPACK.so and count R runs.
 *
 * usage: xnn_direct RUNS [SETTLE_MS]   (prints "done runs RUNS" at the end)
 *
 * SETTLE_MS: a pause before the first run, as a real program spends loading its model. The
 * recorder attaches the run probe once it has seen libXNNPACK mapped (its next look at the
 * mappings, at most an --interval later); runs made before that are not counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <xnnpack.h>

#define N 4096

static int die(const char *what, enum xnn_status st)
{
	fprintf(stderr, "xnn_direct: %s failed (xnn_status %d)\n", what, (int)st);
	return 1;
}

int main(int argc, char **argv)
{
	static float in[N], out[N];
	size_t dims[1] = { N };
	xnn_subgraph_t sg = NULL;
	xnn_runtime_t rt = NULL;
	uint32_t in_id, out_id;
	enum xnn_status st;
	long runs;

	runs = argc >= 2 && argc <= 3 ? strtol(argv[1], NULL, 10) : 0;
	if (runs < 1) {
		fprintf(stderr, "usage: xnn_direct RUNS [SETTLE_MS] (RUNS >= 1)\n");
		return 2;
	}
	if ((st = xnn_initialize(NULL)) != xnn_status_success)
		return die("xnn_initialize", st);
	if ((st = xnn_create_subgraph(2, 0, &sg)) != xnn_status_success)
		return die("xnn_create_subgraph", st);
	st = xnn_define_tensor_value(sg, xnn_datatype_fp32, 1, dims, NULL, 0,
				     XNN_VALUE_FLAG_EXTERNAL_INPUT, &in_id);
	if (st == xnn_status_success)
		st = xnn_define_tensor_value(sg, xnn_datatype_fp32, 1, dims, NULL, 1,
					     XNN_VALUE_FLAG_EXTERNAL_OUTPUT, &out_id);
	if (st == xnn_status_success)
		st = xnn_define_clamp(sg, 0.0f, 6.0f, in_id, out_id, 0);
	if (st != xnn_status_success)
		return die("defining the subgraph", st);
	if ((st = xnn_create_runtime(sg, &rt)) != xnn_status_success)
		return die("xnn_create_runtime", st);
	if (argc == 3) {
		long ms = strtol(argv[2], NULL, 10);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	for (long r = 0; r < runs; r++) {
		struct xnn_external_value ext[2] = { { in_id, in }, { out_id, out } };

		in[r % N] = (float)r;
		if ((st = xnn_setup_runtime(rt, 2, ext)) != xnn_status_success)
			return die("xnn_setup_runtime", st);
		if ((st = xnn_invoke_runtime(rt)) != xnn_status_success)
			return die("xnn_invoke_runtime", st);
	}
	printf("done runs %ld\n", runs);
	xnn_delete_runtime(rt);
	xnn_delete_subgraph(sg);
	xnn_deinitialize();
	return 0;
}
