/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime_note: record's runtime note (runtime_id.h has its form), one per library a run
 * entry point was found in, written to the session's sinks before the entry points are
 * attached. Apart from runtime_id.c, which only reads files, so that the readers that
 * parse the note back link without the session.
 */
#ifndef ARENAPROF_RUNTIME_NOTE_H
#define ARENAPROF_RUNTIME_NOTE_H

#include <stddef.h>

#include "arenaprof/record/runtime_id.h"
#include "arenaprof/record/session.h"
#include "arenaprof/record/symbols.h"

/* The runtime note for lib (a set-up line) to s's sinks, when the run probe's search
 * found entries (> 0) run entry points in it. */
void ap_runtime_id_note(struct ap_session *s, const char *lib, int entries);
/*
 * record's search for the run probe: ap_symbols_find_runs's, then the runtime note of a
 * file it found entry points in, before they are attached (so before any run they
 * count).
 */
int ap_runtime_id_find_runs(struct ap_session *s, const char *lib, struct ap_run_entry *out,
			    size_t max);

#endif
