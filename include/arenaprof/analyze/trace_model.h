/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace_model: the model a trace's process ran, from its own mappings: the files it mapped
 * that start as a TFLite model does (the TFL3 identifier) and are readable here, no smaller
 * than the trace's mapping of them. diff plans it when no --plan is given, instead of
 * guessing the arena and the weights by the mapping rule.
 */
#ifndef ARENAPROF_TRACE_MODEL_H
#define ARENAPROF_TRACE_MODEL_H

#include <stddef.h>

/*
 * 1 with the model's path in path (len bytes) when the trace mapped exactly one; 0 with
 * why (wlen bytes, one clause: none mapped, not readable here, several) when not; a
 * negative errno with err when the trace cannot be read.
 */
int ap_trace_model(const char *trace, char *path, size_t len, char *why, size_t wlen,
		   char *err);

#endif
