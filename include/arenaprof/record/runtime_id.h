/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime_id: which TFLite runtime, and which version of it, a library the target mapped
 * belongs to, read where it can be: the Python distribution that installed the library
 * (the *.dist-info directory in the site-packages above it whose RECORD lists the file;
 * its METADATA's Name and Version). None of the wheels measured carries a version string
 * of its own that can be told from other libraries' (docs/runtimes.md, "Which runtime a
 * trace ran"), so a library outside a Python distribution is named without a version.
 *
 * record writes what it found as a note (man arenaprof-trace(5), NOTE), one per library
 * a run entry point was found in, before its run probe notes:
 *   runtime: NAME VERSION (from METADATA) in LIB
 *   runtime: unknown (LIB is in no Python distribution)
 * and report reads it back (ap_runtime_id_parse) to choose the plan rules.
 */
#ifndef ARENAPROF_RUNTIME_ID_H
#define ARENAPROF_RUNTIME_ID_H

#include <stdbool.h>
#include <stddef.h>

#include "arenaprof/record/symbols.h"


struct ap_runtime_seen {
	char name[64];		/* METADATA's Name: "tflite-runtime", "ai-edge-litert" */
	char version[64];	/* METADATA's Version: "2.14.0" */
	char source[512];	/* the METADATA file read */
	char lib[512];		/* the library it names */
};

/* The distribution lib belongs to: 0 and *rs, or -ENOENT (in none, or unreadable). */
int ap_runtime_id_find(const char *lib, struct ap_runtime_seen *rs);
/*
 * lib's runtime note (the form above) into note, which it returns. record writes it for
 * a library the run probe's search found entry points in, once they are attached: before
 * it drains any run they count.
 */
const char *ap_runtime_id_note_of(const char *lib, char *note, size_t len);
/* A trace note's text: true and *rs for a runtime note naming a version, else false. */
bool ap_runtime_id_parse(const char *note, struct ap_runtime_seen *rs);

#endif
