/* SPDX-License-Identifier: Apache-2.0 */
/*
 * live_replay: a recorded trace (arenaprof-trace(5)) fed to the live model (live.h) a
 * sample at a time, as the session fed it while recording: `top TRACE` lays it out in the
 * same screens and prints the same --batch lines, one at each of the trace's samples.
 * The trace's header stands in for the session (pid, command, kernel, method, page size).
 */
#ifndef ARENAPROF_LIVE_REPLAY_H
#define ARENAPROF_LIVE_REPLAY_H

#include "arenaprof/analyze/live.h"
#include "arenaprof/trace/trace.h"

struct ap_live_replay {
	struct ap_live live;		/* the model: read it between steps */
	uint64_t samples;		/* given to the model so far */
	/* private */
	struct ap_trace_reader r;
	struct ap_session s;		/* what the header says of the recorded session */
	struct ap_map *maps;		/* the snapshot being gathered */
	uint32_t n_maps, cap_maps, snapshot;
	uint64_t maps_ts;
};

/* Opens TRACE and binds the model to it (plan may be NULL): 0, or a negative errno, err. */
int ap_live_replay_open(struct ap_live_replay *rp, const char *path,
			const struct ap_tplan *plan, const char *plan_path, char *err);
/*
 * Feeds the records up to and with the next sample: 1 then; 0 at the trace's end (the
 * model then ended: its end_reason the END record's, AP_END_ERROR when the trace has
 * none); a negative errno with err when the trace is corrupt (the model ended too).
 */
int ap_live_replay_step(struct ap_live_replay *rp, char *err);
void ap_live_replay_close(struct ap_live_replay *rp);

#endif
