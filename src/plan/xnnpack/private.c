// SPDX-License-Identifier: Apache-2.0
/* private: what an operator keeps beside its packed weights (xnn_priv.h). To be
 * written: 0 until then. */
#include "xnn_priv.h"

uint64_t xnn_private_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu,
			   uint64_t *at_reshape)
{
	(void)n;
	(void)cpu;
	*at_reshape = 0;
	return 0;
}
