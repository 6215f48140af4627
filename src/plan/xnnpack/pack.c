// SPDX-License-Identifier: Apache-2.0
/*
 * pack: the bytes of a node's packed weights (xnn_priv.h), as XNNPACK's operator
 * creation asks its allocator for them (docs/xnnpack-packing.md). Every operator that
 * packs asks for one block, rounded up to XNN_ALLOCATION_ALIGNMENT (64 on x86-64, 16 on
 * arm64) and aligned to it; the block holds, for each tile of output channels (nr wide),
 * the bias, the filter laid out kr x sr at a time along the inputs, and the extra bytes of
 * the datatype (one float scale a channel for int8 filters with per-channel or per-tensor
 * scales). Nodes that pack nothing (pooling, elementwise, PReLU: a binary operator whose
 * slopes XNNPACK reads in place) are 0.
 */
#include "xnn_priv.h"

static uint64_t round_up(uint64_t n, uint64_t q)
{
	return q ? (n + q - 1) / q * q : n;
}

static uint64_t alignment(const struct ap_xnn_cpu *cpu)
{
	return cpu->arch == AP_ARCH_ARM64 ? 16 : 64;
}

/* The element sizes a datatype packs with: filter, bias, extra bytes a channel. */
struct elsize {
	uint32_t w, bias, extra;
};

static bool elsizes(enum xnn_dt in, enum xnn_dt w, struct elsize *e)
{
	switch (in) {
	case XNN_DT_F32:
		*e = (struct elsize){ 4, 4, 0 };	/* f16 filters are converted first */
		return w == XNN_DT_F32 || w == XNN_DT_F16;
	case XNN_DT_F16:
		*e = (struct elsize){ 2, 2, 0 };
		return w == XNN_DT_F32 || w == XNN_DT_F16;
	case XNN_DT_QS8:
		*e = (struct elsize){ 1, 4, 4 };	/* int32 bias, a float scale */
		return w == XNN_DT_QS8 || w == XNN_DT_QC8W;
	case XNN_DT_QU8:
		*e = (struct elsize){ 1, 4, 0 };
		return w == XNN_DT_QU8;
	case XNN_DT_QD8:
		/* a dynamically quantized node: the int32 kernel sums in the bias slot, a
		 * float scale and a float bias a channel as extra bytes */
		*e = (struct elsize){ 1, 4, 8 };
		return w == XNN_DT_QC8W || w == XNN_DT_QC4W;
	default:
		return false;
	}
}

/* XNNPACK's nr2 rule for an f32 fully connected operator: the narrow config when the
 * default's nr is wider than the output, or when it wastes more than 1 % of the output
 * channels and the narrow one wastes fewer. */
static bool use_nr2(uint64_t nr, uint64_t nr2, uint64_t out)
{
	uint64_t over = (nr - out % nr) % nr, over2 = (nr2 - out % nr2) % nr2;

	return nr > out || (over2 < over && over * 100 > out);
}

/* groups x n_stride x (taps x k_stride x filter + (bias + extra) x subkernels), before
 * the allocation's round-up */
static uint64_t gemm_raw(const struct xnn_gemm_cfg *g, const struct elsize *e,
			 uint64_t groups, uint64_t gin, uint64_t gout, uint64_t taps,
			 uint64_t subkernels)
{
	uint64_t n_stride = round_up(gout, g->nr);
	uint64_t k_stride = round_up(gin, (1ull << g->log2_kr) << g->log2_sr);
	uint64_t per = taps * k_stride * e->w + (e->bias + e->extra) * subkernels;

	return groups * n_stride * per;
}

static uint64_t gemm_bytes(const struct xnn_gemm_cfg *g, const struct elsize *e,
			   uint64_t groups, uint64_t gin, uint64_t gout, uint64_t taps,
			   uint64_t subkernels, const struct ap_xnn_cpu *cpu)
{
	return round_up(gemm_raw(g, e, groups, gin, gout, taps, subkernels), alignment(cpu));
}

static uint64_t fc_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu,
			 const struct elsize *e)
{
	struct xnn_gemm_cfg g, g2;

	if (!xnn_cpu_gemm(cpu, n->in_dt, n->w_dt, &g))
		return 0;
	if (n->in_dt == XNN_DT_F32 && xnn_cpu_gemm_nr2(cpu, n->in_dt, n->w_dt, &g2) &&
	    use_nr2(g.nr, g2.nr, n->out_c))
		g = g2;
	if (n->w_dt == XNN_DT_QC4W) {
		/* int4: the inputs rounded to the planes, then to kr x sr x planes, two a
		 * byte */
		uint64_t k = round_up(round_up(n->in_c, g.planes),
				      ((1ull << g.log2_kr) << g.log2_sr) * g.planes) / 2;

		return round_up(round_up(n->out_c, g.nr) * (k + e->bias + e->extra),
				alignment(cpu));
	}
	return gemm_bytes(&g, e, 1, n->in_c, n->out_c, 1, 1, cpu);
}

/* A convolution through an indirection buffer; f32 takes the narrow config when the
 * group's outputs are fewer than nr. */
static uint64_t igemm_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu,
			    const struct elsize *e)
{
	struct xnn_gemm_cfg g, g2;
	uint64_t groups = n->groups ? n->groups : 1;
	uint64_t gout = n->out_c / groups;

	if (!xnn_cpu_igemm(cpu, n->in_dt, n->w_dt, &g))
		return 0;
	if (n->in_dt == XNN_DT_F32 && g.nr > gout &&
	    xnn_cpu_gemm_nr2(cpu, n->in_dt, n->w_dt, &g2))
		g = g2;
	return gemm_bytes(&g, e, groups, n->in_c / groups, gout, (uint64_t)n->k_h * n->k_w, 1,
			  cpu);
}

/* A depthwise convolution: vmulcaddc for a 1x1 f32/f16 kernel without stride or
 * padding, the smallest unipass dwconv tile that holds the kernel, else an igemm with
 * one input channel a group. */
static uint64_t dw_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu,
			 const struct elsize *e)
{
	uint64_t c = n->groups ? n->groups : n->in_c, taps = (uint64_t)n->k_h * n->k_w;
	uint32_t mult = n->depth_multiplier ? n->depth_multiplier : 1;
	bool unit = (n->stride_h | n->stride_w) <= 1;
	bool pad = n->pad_top | n->pad_bottom | n->pad_left | n->pad_right;
	struct xnn_dwconv_cfg d;
	uint32_t tile;

	if (mult == 1 && taps == 1 && unit && !pad &&
	    (tile = xnn_cpu_vmulcaddc_tile(cpu, n->in_dt)))
		return round_up(round_up(c, tile) * (e->w + e->bias), alignment(cpu));
	if (mult == 1 && xnn_cpu_dwconv(cpu, n->in_dt, n->w_dt, (uint32_t)taps, &d))
		return round_up(round_up(c, d.channel_tile) *
				(d.primary_tile * e->w + e->bias + e->extra), alignment(cpu));
	struct xnn_node g = *n;

	g.groups = (uint32_t)c;
	g.in_c = (uint32_t)c;
	g.out_c = (uint32_t)(c * mult);
	return igemm_bytes(&g, cpu, e);
}

/* A transposed convolution: as an igemm, or split in stride_h x stride_w subkernels
 * (each with its own bias and extra bytes) when it strides without dilation. */
static uint64_t deconv_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu,
			     const struct elsize *e)
{
	struct xnn_gemm_cfg g, g2;
	uint64_t groups = n->groups ? n->groups : 1, sub = 1;
	uint32_t sh = n->stride_h ? n->stride_h : 1, sw = n->stride_w ? n->stride_w : 1;
	uint32_t dh = n->dil_h ? n->dil_h : 1, dw = n->dil_w ? n->dil_w : 1;

	if (!xnn_cpu_igemm(cpu, n->in_dt, n->w_dt, &g))
		return 0;
	/* f32 takes the narrow config when the group's outputs are fewer than nr
	 * (setup_variant_and_gemm_config), as a convolution does */
	if (n->in_dt == XNN_DT_F32 && g.nr > n->out_c / groups &&
	    xnn_cpu_gemm_nr2(cpu, n->in_dt, n->w_dt, &g2))
		g = g2;
	if ((sh > 1 || sw > 1) && dh == 1 && dw == 1 && sw <= n->k_w && sh <= n->k_h)
		sub = (uint64_t)sh * sw;
	return gemm_bytes(&g, e, groups, n->in_c / groups, n->out_c / groups,
			  (uint64_t)n->k_h * n->k_w, sub, cpu);
}

static uint64_t packed(const struct xnn_node *n, const struct ap_xnn_cpu *cpu)
{
	struct elsize e;

	if (!elsizes(n->in_dt, n->w_dt, &e))
		return 0;
	switch (n->kind) {
	case XNN_K_CONV_GEMM:	/* XNNPACK runs a 1x1 convolution as fully connected */
		if (n->groups > 1)
			return igemm_bytes(n, cpu, &e);
		return fc_bytes(n, cpu, &e);
	case XNN_K_FC:
		return fc_bytes(n, cpu, &e);
	case XNN_K_CONV_IGEMM:
		return igemm_bytes(n, cpu, &e);
	case XNN_K_DWCONV:
		return dw_bytes(n, cpu, &e);
	case XNN_K_DECONV:
		return deconv_bytes(n, cpu, &e);
	case XNN_K_BATCH_MATMUL: {
		/* static B: batch x n_stride x (k_stride + bias + extra) */
		struct xnn_gemm_cfg g;
		uint64_t b = n->batch ? n->batch : 1;

		if (!xnn_cpu_gemm(cpu, n->in_dt, n->w_dt, &g))
			return 0;
		return round_up(b * gemm_raw(&g, &e, 1, n->in_c, n->out_c, 1, 1),
				alignment(cpu));
	}
	default:
		return 0;
	}
}

/*
 * The packed block, and where XNNPACK has no fp16 kernels for the node on the CPU
 * (FallbackToFp32, e.g. a Cortex-A72: no fp16 arithmetic), the fp32 copies it makes of
 * the node's fp16 static weights first: one zeroed block of 4 bytes an element and
 * XNN_EXTRA_BYTES a value, kept for the runtime's life.
 */
uint64_t xnn_packed_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu)
{
	uint64_t b = packed(n, cpu);

	if (n->n_f16_static && xnn_cpu_f16_fallback(cpu, n))
		b += 4 * n->f16_static_elems + 16ull * n->n_f16_static;
	return b;
}
