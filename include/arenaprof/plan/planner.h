/* SPDX-License-Identifier: Apache-2.0 */
/*
 * planner: arena placement strategies behind one interface. Each strategy turns a graph
 * (sizes + lifetimes) into a plan (offsets + arena size). The placement cores work on
 * plain records so the unit tests can feed them the published examples directly.
 */
#ifndef ARENAPROF_PLANNER_H
#define ARENAPROF_PLANNER_H

#include <stddef.h>
#include <stdint.h>

#include "arenaprof/plan/graph.h"
#include "arenaprof/plan/plan.h"

enum ap_strategy {
	AP_STRAT_TFLITE,	/* LiteRT ArenaPlanner + SimpleMemoryArena, byte for byte */
	AP_STRAT_GREEDY_SIZE,	/* paper: size order, smallest fitting gap */
	AP_STRAT_GREEDY_BREADTH,	/* paper: operators by breadth, then their tensors */
	AP_STRAT_NAIVE,		/* every tensor its own 64-byte-aligned slot */
	AP_STRAT_MICRO,		/* TFLite Micro GreedyMemoryPlanner: first fit, 16-byte sizes */
	AP_STRAT_COUNT,
};

#define AP_TENSOR_ALIGN 64	/* LiteRT kDefaultTensorAlignment */
#define AP_MICRO_ALIGN 16	/* TFLM MicroArenaBufferAlignment */

const char *ap_strategy_name(enum ap_strategy s);	/* "tflite", "greedy-size", ... */
int ap_strategy_parse(const char *s, enum ap_strategy *out);

/* One buffer to place: closed lifetime [first, last]; offset is the result. */
struct ap_rec {
	uint64_t size;
	int32_t first, last;
	int32_t id;
	uint64_t offset;
};

/* Sort records into LiteRT's CreateTensorAllocationVector order (ties: id ascending). */
void ap_order_tflite(struct ap_rec *r, size_t n);
/* SimpleMemoryArena::Allocate for each record in order; returns the high-water mark. */
uint64_t ap_place_tflite(struct ap_rec *r, size_t n, uint64_t align);
/* Best fit without LiteRT's measuring quirk (the paper's offset calculation). */
uint64_t ap_place_best_fit(struct ap_rec *r, size_t n, uint64_t align);
/* TFLM GreedyMemoryPlanner placement (first fit, no alignment), records in order. */
uint64_t ap_place_first_fit(struct ap_rec *r, size_t n);
/* TFLM order: size descending, equal sizes with the higher id first. */
void ap_order_micro(struct ap_rec *r, size_t n);

/* Plans graph g with strategy s into p (allocated). 0, or -1 with err. */
/*
 * Whether LiteRT's Prepare stops after node (PrepareOpsStartingAt): one of its outputs is
 * dynamic, or its Prepare could not know its output's shape. AllocateTensors then plans the
 * nodes up to it; the first invoke plans the rest, a step at a time, each around what the
 * steps before placed.
 */
bool ap_graph_ends_prepare(const struct ap_graph *g, uint32_t node);

/* The plan of g by strategy s, into p (ap_tplan_free it). 0, or with err -EINVAL (tensors
 * beyond the plan's limits) or -ENOMEM. */
int ap_plan_graph(const struct ap_graph *g, enum ap_strategy s, struct ap_tplan *p,
		  char *err);
/* p, a plan of g by any strategy, planned again by s: its names are kept, not copied
 * again. On failure p is freed and err says why: -EINVAL (p is not of g) or -ENOMEM. */
int ap_plan_graph_again(const struct ap_graph *g, enum ap_strategy s, struct ap_tplan *p,
			char *err);

#endif
