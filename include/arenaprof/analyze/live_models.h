/* SPDX-License-Identifier: Apache-2.0 */
/*
 * live_models: several models in one process, live (top --plan A --plan B), as report
 * tells them apart in a trace (models.h): each model's arena the block of its plan's
 * size, allocated since attach, that no other model took (its plan on LiteRT's builtin
 * kernels or on its default path, the one path the first arena found says for all), its
 * pages first touched and of them those a planned tensor names, and its runs those begun
 * on its interpreter: the run object whose runs first touched its arena, else the order
 * the arenas were allocated (models.h's ap_models_assign). Fed by the live model's sink
 * (live.c) and, in a replay, by the trace's run objects (live_replay.c).
 */
#ifndef ARENAPROF_LIVE_MODELS_H
#define ARENAPROF_LIVE_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/models.h"
#include "arenaprof/event.h"
#include "arenaprof/plan/plan.h"

struct ap_live;
struct ap_live_models;

/* What the TUI shows of model i. */
struct ap_live_model_view {
	const char *name;		/* the model file's name */
	bool found;			/* its arena seen allocated */
	uint64_t base, bytes;		/* its base (planned offset 0) and the plan's bytes */
	uint64_t ft_pages;		/* its arena's pages first touched */
	uint64_t named_pages;		/* of them, those a planned tensor names */
	struct ap_model_runs runs;	/* rule, obj; runs begun and completed (no latency) */
};

/*
 * Loads each of the n model files' plans (paths[0..n), kept, not copied; n at most
 * AP_MAX_MODELS) for l (after ap_live_init). 0, or a negative errno with err (a plan
 * that does not load: its path named).
 */
int ap_live_models_init(struct ap_live *l, const char *const *paths, uint32_t n, char *err);
/* The models l follows (0: none given, or one). */
uint32_t ap_live_models_n(const struct ap_live *l);
void ap_live_models_view(const struct ap_live *l, uint32_t i, struct ap_live_model_view *v);

/* The sink's events: an allocation, a run's begin or end (a fault: below). */
void ap_live_models_event(struct ap_live *l, const struct ap_event *ev);
/* A page's first touch (the address-space model's, aspace.h) at addr. An arena found
 * later counts the first touches before it too, as report does (malloc's header, pages
 * other blocks had). */
void ap_live_models_first_touch(struct ap_live *l, uint64_t addr);
/* A replay's run object (trace.h's AP_REC_RUN_OBJ): run was begun on obj, as the runs
 * after it until another. */
void ap_live_models_run_obj(struct ap_live *l, int32_t run, uint64_t obj);
void ap_live_models_free(struct ap_live *l);

#endif
