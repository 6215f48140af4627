/* SPDX-License-Identifier: Apache-2.0 */
/*
 * method: the fault methods' names (event.h's enum ap_method) and the errno text every
 * part of the recorder prints. Below probe, bpf_load and btf_custom, which all say both.
 */
#ifndef ARENAPROF_METHOD_H
#define ARENAPROF_METHOD_H

#include <stddef.h>

#include "arenaprof/event.h"

const char *ap_method_name(enum ap_method m);		/* "tp", "fentry", "perf" ("auto") */
int ap_method_parse(const char *s, enum ap_method *m);	/* "auto" -> NONE; -EINVAL unknown */
/* An errno as "Operation not permitted (EPERM)"; the kernel's ENOTSUPP (524) named. */
const char *ap_probe_errstr(int e, char *buf, size_t len);

#endif
