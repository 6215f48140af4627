// SPDX-License-Identifier: Apache-2.0
/* runtime_note: the runtime note record writes per library (runtime_note.h). */
#include "arenaprof/record/runtime_note.h"

void ap_runtime_id_note(struct ap_session *s, const char *lib, int entries)
{
	struct ap_runtime_seen rs;

	if (entries <= 0)
		return;
	if (ap_runtime_id_find(lib, &rs))
		ap_session_note(s, AP_NOTE_SETUP, "%sunknown (%s is in no Python distribution)",
				AP_RUNTIME_NOTE_TAG, lib);
	else
		ap_session_note(s, AP_NOTE_SETUP, "%s%s %s (from %s) in %s", AP_RUNTIME_NOTE_TAG,
				rs.name, rs.version, rs.source, lib);
}

int ap_runtime_id_find_runs(struct ap_session *s, const char *lib, struct ap_run_entry *out,
			    size_t max)
{
	int n = ap_symbols_find_runs(lib, out, max);

	ap_runtime_id_note(s, lib, n);
	return n;
}
