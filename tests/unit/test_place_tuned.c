// SPDX-License-Identifier: Apache-2.0
/*
 * test_plan_ref.c again with place.c built in, its thresholds set so small that every
 * placement switches between the time buckets, the long-lived treap and the treap of every
 * record, and the walks give up often: each way of finding the candidates is checked
 * against LiteRT's scan, not only the one the default thresholds pick.
 */
#define BUCKET_NODES 2
#define SHORT_BUCKETS 2
#define SCAN_DIRECT 3
#define WALK_RATIO 1

#include "../../src/plan/litert/place.c"
#include "test_plan_ref.c"
