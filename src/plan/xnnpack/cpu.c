// SPDX-License-Identifier: Apache-2.0
/* cpu: the target CPU and XNNPACK's microkernel parameters on it (xnn_priv.h). To be
 * written: no CPU is known until then. */
#include <errno.h>

#include "arenaprof/util/err.h"
#include "xnn_priv.h"

int ap_xnn_cpu_parse(const char *name, struct ap_xnn_cpu *cpu, char *err)
{
	(void)cpu;
	return ap_fail(err, -EINVAL, "--cpu %s: no CPU is modelled yet", name);
}

bool xnn_cpu_gemm(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		  struct xnn_gemm_cfg *g)
{
	(void)cpu;
	(void)in;
	(void)w;
	(void)g;
	return false;
}

bool xnn_cpu_dwconv(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w, uint32_t k,
		    struct xnn_dwconv_cfg *d)
{
	(void)cpu;
	(void)in;
	(void)w;
	(void)k;
	(void)d;
	return false;
}
