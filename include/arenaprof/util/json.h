/* SPDX-License-Identifier: Apache-2.0 */
/* json: a small streaming JSON writer (commas, nesting and string escapes). */
#ifndef ARENAPROF_JSON_H
#define ARENAPROF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define AP_JSON_DEPTH 16

struct ap_json {
	FILE *f;
	int depth;
	bool need_comma[AP_JSON_DEPTH];
};

void ap_json_init(struct ap_json *j, FILE *f);
/* key is NULL inside an array; keys are the program's own words, written as they are
 * (values are escaped). */
void ap_json_obj(struct ap_json *j, const char *key);
void ap_json_arr(struct ap_json *j, const char *key);
void ap_json_end_obj(struct ap_json *j);
void ap_json_end_arr(struct ap_json *j);
void ap_json_str(struct ap_json *j, const char *key, const char *v);
void ap_json_u64(struct ap_json *j, const char *key, uint64_t v);
void ap_json_i64(struct ap_json *j, const char *key, int64_t v);
void ap_json_f64(struct ap_json *j, const char *key, double v);
void ap_json_bool(struct ap_json *j, const char *key, bool v);
void ap_json_null(struct ap_json *j, const char *key);
/* A number written as the caller spelled it ("12.345"): a valid JSON number is its job. */
void ap_json_num(struct ap_json *j, const char *key, const char *number);
/* Ends the document with a newline. */
void ap_json_finish(struct ap_json *j);

#endif
