// SPDX-License-Identifier: Apache-2.0
/*
 * private: what an XNNPACK operator keeps beside its packed weights after the first run
 * (xnn_priv.h): its descriptor blocks, made at create; its zero buffer; and the buffers
 * its reshape sizes (indirection buffers, resize-bilinear's interpolation weights). The
 * rules and where each constant comes from: docs/xnnpack-private.md.
 */
#include "xnn_priv.h"

/*
 * The descriptor blocks, as the x86-64 build of LiteRT 2.3.0 allocates them (the sizes
 * of XNNPACK's structs in that binary, read from the allocator's trace:
 * docs/xnnpack-private.md, "Measured constants"). The aarch64 wheel's that differ are in
 * struct xo_arch below.
 */
enum {
	XO_OPERATOR = 520,	/* struct xnn_operator, every operator */
	XO_COMPUTE = 88,	/* one struct compute_parameters */
	XO_CONV_OP = 224,	/* struct xnn_convolution_operator */
	XO_DWCONV_CTX = 336,	/* struct dwconv_op_context */
	XO_EXTRA_PARAMS = 40,	/* one union xnn_params (a binary's extra parameters) */
	XO_PAD_CTX = 232,	/* struct pad_context (constant pad) */
	XO_REDUCE_CTX = 272,	/* struct reduce_context */
	XO_SUBCONV = 72,	/* one struct subconvolution_params (deconvolution) */
	XO_LUT = 256,		/* an 8-bit unary operator's lookup table */
	XO_RUNTIME = 96,	/* struct xnn_runtime */
	XO_OPDATA = 240,	/* struct xnn_operator_data, one a subgraph node */
	XO_RUNTIME_VALUE = 160,	/* struct xnn_runtime_value, one a subgraph value */
	XO_WORKSPACE = 32,	/* struct xnn_workspace, one a delegate */
};

#define XNN_EXTRA 16		/* XNN_EXTRA_BYTES */
#define PTR 8			/* sizeof(void *) */

/*
 * The blocks whose size is the architecture's, measured in each wheel (x86-64: the
 * bpftrace oracle; arm64: tests/litert/xnnpack/xnn_preload.so in the qemu guest,
 * scripts/vm/xnn-truth). A microkernel table holds XNN_MAX_UARCH_TYPES pointers an entry
 * (1 on x86-64, 3 on arm64, for big.LITTLE), hence the ukernel and gemm-types sizes.
 */
struct xo_arch {
	uint32_t ukernel_igemm;	/* struct xnn_ukernel_igemm (convolution, deconvolution) */
	uint32_t igemm_ctx;	/* struct igemm_op_context */
	uint32_t gemm_types;	/* struct gemm_types (fully connected) */
	uint32_t gemm_ctx;	/* struct gemm_op_context (fully connected) */
	uint32_t align;		/* XNN_ALLOCATION_ALIGNMENT */
};

static const struct xo_arch xo_x86_64 = { 264, 408, 288, 688, 64 };
static const struct xo_arch xo_arm64 = { 1544, 424, 1568, 704, 16 };

static const struct xo_arch *xo_of(enum ap_arch arch)
{
	return ap_arch_resolve(arch) == AP_ARCH_ARM64 ? &xo_arm64 : &xo_x86_64;
}

static uint64_t round_up(uint64_t x, uint64_t q)
{
	return q ? (x + q - 1) / q * q : x;
}

static uint64_t div_up(uint64_t x, uint64_t q)
{
	return q ? (x + q - 1) / q : x;
}

static uint32_t log2_elsize(enum xnn_dt dt)
{
	switch (dt) {
	case XNN_DT_F32:
		return 2;
	case XNN_DT_F16:
		return 1;
	default:
		return 0;	/* qs8, qu8 activations */
	}
}

/* The cost XNNPACK's mr heuristic gives an mr x nr tile on m rows. */
static uint64_t mr_cost(uint64_t m, uint32_t mr, uint32_t nr)
{
	return div_up(m, mr) * (3ull * (mr + nr) + (uint64_t)mr * nr);
}

static bool mr_available(const struct xnn_gemm_cfg *g, uint32_t mr)
{
	if (g->mr_mask)
		return mr <= 32 && (g->mr_mask >> (mr - 1)) & 1;
	return mr == 1 || mr == g->mr;
}

/*
 * The mr an IGEMM runs with on m output rows: m itself when a kernel of that mr exists
 * and m <= the config's mr, else the available mr of least cost (ties: the larger).
 */
uint32_t xnn_igemm_mr(const struct xnn_gemm_cfg *g, uint64_t m)
{
	uint32_t best = g->mr;
	uint64_t best_cost = UINT64_MAX;

	if (m == 0 || g->mr == 0)
		return g->mr ? g->mr : 1;
	if (m <= g->mr && mr_available(g, (uint32_t)m))
		return (uint32_t)m;
	for (uint32_t mr = 1; mr <= g->mr; mr++) {
		uint64_t c;

		if (!mr_available(g, mr))
			continue;
		c = mr_cost(m, mr, g->nr);
		if (c <= best_cost) {
			best = mr;
			best_cost = c;
		}
	}
	return best;
}

static bool padded(const struct xnn_node *n)
{
	return (n->pad_top | n->pad_bottom | n->pad_left | n->pad_right) != 0 ||
	       (n->same_padding && n->k_h * n->k_w != 1);
}

/* A convolution through an indirection buffer (also a depthwise one XNNPACK has no
 * dwconv kernel for, or with a depth multiplier). */
static uint64_t conv_igemm(const struct xnn_node *n, const struct xo_arch *xa,
			   const struct xnn_gemm_cfg *g, uint64_t *reshape)
{
	uint64_t obj = XO_OPERATOR + 3 * XO_COMPUTE + XO_CONV_OP + xa->ukernel_igemm +
		       xa->igemm_ctx;
	uint64_t ks = (uint64_t)n->k_h * n->k_w;
	uint64_t out = (uint64_t)n->out_h * n->out_w;
	uint32_t groups = n->groups ? n->groups : 1;

	uint64_t zero = 0;

	if (padded(n)) {
		uint64_t kr = (1ull << g->log2_kr) << g->log2_sr;
		uint64_t k_stride = round_up(n->in_c / groups, kr);

		zero = XNN_EXTRA + (k_stride << log2_elsize(n->in_dt));
		obj += zero;
	}
	*reshape = ks * round_up(out, xnn_igemm_mr(g, out)) * PTR;
	/* dynamically quantized: its reshape keeps a zero buffer pointer an image, and a
	 * zero buffer of its own for every image after the first */
	if (n->in_dt == XNN_DT_QD8) {
		uint64_t b = n->batch ? n->batch : 1;

		*reshape += b * PTR + (b - 1) * zero;
	}
	return obj;
}

static uint64_t conv_dw(const struct xnn_node *n, const struct xo_arch *xa,
			const struct xnn_dwconv_cfg *d, uint64_t *reshape)
{
	uint64_t obj = XO_OPERATOR + 3 * XO_COMPUTE + XO_CONV_OP + xa->ukernel_igemm +
		       XO_DWCONV_CTX;
	uint64_t ks = (uint64_t)n->k_h * n->k_w;
	uint64_t step_w = n->dil_w > 1 ? n->k_w : (n->stride_w < n->k_w ? n->stride_w : n->k_w);
	uint64_t step_h = ks + (n->out_w ? n->out_w - 1 : 0) * step_w * n->k_h;
	uint64_t tile = d->primary_tile > ks ? d->primary_tile : ks;
	uint64_t elems = (uint64_t)n->out_h * step_h + tile - ks;

	if (padded(n)) {
		uint64_t c_stride = round_up(n->in_c, d->channel_tile ? d->channel_tile : 1);

		obj += XNN_EXTRA + (c_stride << log2_elsize(n->in_dt));
	}
	*reshape = round_up(elems * PTR, xa->align);
	return obj;
}

/* Transposed convolution: the subconvolution path when a stride exceeds 1 (and no stride
 * exceeds its kernel, no dilation), else a plain IGEMM over the output. */
static uint64_t deconv(const struct xnn_node *n, const struct xo_arch *xa,
		       const struct xnn_gemm_cfg *g, uint64_t *reshape)
{
	uint64_t obj = XO_OPERATOR + 3 * XO_COMPUTE + xa->ukernel_igemm + XO_CONV_OP;
	uint64_t ks = (uint64_t)n->k_h * n->k_w;
	uint64_t kr = (1ull << g->log2_kr) << g->log2_sr;
	uint32_t groups = n->groups ? n->groups : 1;
	uint32_t sh = n->stride_h ? n->stride_h : 1, sw = n->stride_w ? n->stride_w : 1;
	bool subconv = (sh > 1 || sw > 1) && n->dil_h <= 1 && n->dil_w <= 1 &&
		       sw <= n->k_w && sh <= n->k_h;

	obj += XNN_EXTRA + (round_up(n->in_c / groups, kr) << log2_elsize(n->in_dt));
	if (subconv) {
		uint64_t mr = xnn_igemm_mr(g, n->batch ? n->batch : 1);

		obj += (uint64_t)XO_SUBCONV * sh * sw;
		*reshape = ks * n->out_h * sw * round_up(div_up(n->out_w, sw), mr) * PTR;
	} else {
		uint64_t out = (uint64_t)n->out_h * n->out_w;

		obj += xa->igemm_ctx;
		*reshape = ks * round_up(out, xnn_igemm_mr(g, out)) * PTR;
	}
	return obj;
}

static uint64_t pool(const struct xnn_node *n, uint64_t *reshape)
{
	uint64_t ps = (uint64_t)n->k_h * n->k_w;
	uint64_t sw = n->stride_w < n->k_w ? n->stride_w : n->k_w;
	uint64_t step_h, rows;

	if (n->kind == XNN_K_POOL_MAX && n->dil_w > 1)
		sw = n->k_w;
	step_h = ps + (n->out_w ? n->out_w - 1 : 0) * sw * n->k_h;
	if (n->kind == XNN_K_POOL_MAX) {
		rows = n->out_h;
	} else {
		/* compressed: the padded rows at the top and bottom, and one */
		uint64_t s = n->stride_h ? n->stride_h : 1;

		rows = div_up(n->pad_top, s) + div_up(n->pad_bottom, s) + 1;
		/* its zero buffer, made at reshape */
		*reshape = XNN_EXTRA + ((uint64_t)n->in_c << log2_elsize(n->in_dt));
	}
	*reshape += (rows * step_h + ps - 1) * PTR;
	return XO_OPERATOR + XO_COMPUTE + XO_CONV_OP;
}

static uint64_t resize(const struct xnn_node *n, uint64_t *reshape)
{
	uint64_t px = (uint64_t)n->out_h * n->out_w;
	/* interpolation weights: two a pixel, int16 for 8-bit types, else the type's */
	uint64_t w = n->in_dt == XNN_DT_F32 ? 4 : 2;

	*reshape = px * 4 * PTR + px * 2 * w;
	return XO_OPERATOR + 2 * XO_COMPUTE + XO_CONV_OP;
}

static uint64_t elementwise(const struct xnn_node *n)
{
	if (n->binary || n->extra[0] >= 0)	/* binary, a static operand too */
		return XO_OPERATOR + XO_COMPUTE + XO_EXTRA_PARAMS;
	/* an 8-bit unary without its own kernel (tanh, logistic, ...) adds XO_LUT; which
	 * ones is not modelled (none in the bundled models) */
	return XO_OPERATOR + 2 * XO_COMPUTE;
}

uint64_t xnn_private_bytes_arch(const struct xnn_node *n, enum ap_arch arch,
				const struct xnn_gemm_cfg *g, const struct xnn_dwconv_cfg *d,
				uint64_t *at_reshape)
{
	const struct xo_arch *xa = xo_of(arch);
	uint64_t r = 0, obj;

	switch (n->kind) {
	case XNN_K_CONV_IGEMM:
	case XNN_K_CONV_GEMM:
		obj = g ? conv_igemm(n, xa, g, &r) : 0;
		break;
	case XNN_K_DWCONV:
		if (d && n->depth_multiplier <= 1)
			obj = conv_dw(n, xa, d, &r);
		else
			obj = g ? conv_igemm(n, xa, g, &r) : 0;
		break;
	case XNN_K_DECONV:
		obj = g ? deconv(n, xa, g, &r) : 0;
		break;
	case XNN_K_FC:
		obj = XO_OPERATOR + 2 * XO_COMPUTE + XO_CONV_OP + xa->gemm_types + xa->gemm_ctx;
		break;
	case XNN_K_POOL_AVG:
	case XNN_K_POOL_MAX:
		obj = pool(n, &r);
		break;
	case XNN_K_RESIZE_BILINEAR:
		obj = resize(n, &r);
		break;
	case XNN_K_ELEMENTWISE:
		obj = elementwise(n);
		break;
	case XNN_K_PAD:
		obj = XO_OPERATOR + XO_COMPUTE + XO_PAD_CTX;
		break;
	case XNN_K_COPY:
		obj = XO_OPERATOR + 2 * XO_COMPUTE;
		break;
	case XNN_K_REDUCE:
		/* its context, one compute block, one extra params; a reduction over an
		 * outer axis keeps a zero buffer of the innermost kept run (at reshape) */
		obj = XO_OPERATOR + XO_REDUCE_CTX + XO_COMPUTE + XO_EXTRA_PARAMS;
		if (n->reduce_channels)
			r = XNN_EXTRA + (n->reduce_channels << log2_elsize(n->in_dt));
		break;
	case XNN_K_CONCAT:
	case XNN_K_SPLIT:
		/* one copy operator an input (concatenation) or output (split) */
		obj = (XO_OPERATOR + 2 * XO_COMPUTE) * (n->n_parts ? n->n_parts : 1);
		break;
	default:
		/* not measured: an operator descriptor and one compute block */
		obj = XO_OPERATOR + XO_COMPUTE;
		break;
	}
	*at_reshape = r;
	return obj + r;
}

uint64_t xnn_private_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu,
			   uint64_t *at_reshape)
{
	struct xnn_gemm_cfg g = { 0 };
	struct xnn_dwconv_cfg d = { 0 };
	bool have_g = false, have_d = false;

	switch (n->kind) {
	case XNN_K_CONV_IGEMM:
	case XNN_K_CONV_GEMM:
		/* a dynamically quantized convolution has an igemm config of its own */
		have_g = n->in_dt == XNN_DT_QD8 ? xnn_cpu_igemm(cpu, n->in_dt, n->w_dt, &g) :
						   xnn_cpu_gemm(cpu, n->in_dt, n->w_dt, &g);
		break;
	case XNN_K_DECONV: {
		/* the deconvolution's config: f32's igemm, or its narrow one when the
		 * outputs are fewer than nr (as pack.c) */
		struct xnn_gemm_cfg g2;
		uint32_t gr = n->groups ? n->groups : 1;

		have_g = xnn_cpu_igemm(cpu, n->in_dt, n->w_dt, &g);
		if (have_g && n->in_dt == XNN_DT_F32 && g.nr > n->out_c / gr &&
		    xnn_cpu_gemm_nr2(cpu, n->in_dt, n->w_dt, &g2))
			g = g2;
		break;
	}
	case XNN_K_DWCONV:
		have_d = xnn_cpu_dwconv(cpu, n->in_dt, n->w_dt, n->k_h * n->k_w, &d);
		if (!have_d || n->depth_multiplier > 1)
			have_g = xnn_cpu_gemm(cpu, n->in_dt, n->w_dt, &g);
		break;
	default:
		break;
	}
	/* FallbackToFp32's fp32 copy of an fp16 static value is a new value of the runtime */
	return xnn_private_bytes_arch(n, cpu->arch, have_g ? &g : NULL, have_d ? &d : NULL,
				      at_reshape) +
	       (n->n_f16_static && xnn_cpu_f16_fallback(cpu, n) ?
		(uint64_t)XO_RUNTIME_VALUE * n->n_f16_static : 0);
}

uint64_t xnn_runtime_bytes(uint32_t n_nodes, uint32_t n_values)
{
	return XO_RUNTIME + (uint64_t)XO_OPDATA * n_nodes + (uint64_t)XO_RUNTIME_VALUE * n_values;
}

uint32_t xnn_runtime_values(const struct xnn_partition *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_values; i++)
		if (p->values[i].tfl_tensor != -2)	/* an operator's workspace */
			n += p->values[i].tfl_tensor >= 0 &&
			     p->values[i].alloc != XNN_A_EXTERNAL ? 2 : 1;
	return n;
}

uint64_t xnn_workspace_object_bytes(void)
{
	return XO_WORKSPACE;
}
