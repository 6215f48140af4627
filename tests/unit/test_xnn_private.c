// SPDX-License-Identifier: Apache-2.0
/*
 * test_xnn_private: the operator-private buffers and runtime objects of XNNPACK
 * (src/plan/xnnpack/private.c) against the allocator trace of LiteRT 2.3.0 on this
 * machine's kind of CPU (x86-64, AVX-512 VNNI). Every expected number below is a block
 * size or a sum of blocks that the oracle (bpftrace uprobes on XNNPACK's allocator, live
 * after the first invoke, docs/xnnpack-private.md "How it was checked") measured. The
 * nodes are built here from the model's own shapes and options, standing in for
 * subgraph.c; the configs are those the oracle's packed sizes imply for qu8 on AVX512SKX
 * (gemm mr 7, nr 16, kr 8; dwconv 9 taps, 32 channels), so the test does not need cpu.c.
 */
#include <stdbool.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/model.h"
#include "arenaprof/util/err.h"
#include "test.h"
#include "../../src/plan/xnnpack/xnn_priv.h"

enum { OP_ADD_ = 0, OP_AVG_ = 1, OP_CONCAT_ = 2, OP_CONV_ = 3, OP_DW_ = 4, OP_QUANT_ = 114,
       OP_RESHAPE_ = 22, OP_RESIZE_ = 23 };

static const struct xnn_gemm_cfg qu8_gemm = { .mr = 7, .nr = 16, .log2_kr = 3, .planes = 1 };
static const struct xnn_dwconv_cfg qu8_dw = { .channel_tile = 32, .primary_tile = 9 };

static uint64_t node_bytes(const struct xnn_node *n, uint64_t *r)
{
	return xnn_private_bytes_arch(n, AP_ARCH_X86_64, &qu8_gemm, &qu8_dw, r);
}

static void base_node(struct xnn_node *n, enum xnn_kind k)
{
	memset(n, 0, sizeof(*n));
	n->kind = k;
	n->in_dt = n->w_dt = XNN_DT_QU8;
	n->batch = 1;
	n->stride_h = n->stride_w = n->dil_h = n->dil_w = n->groups = 1;
	for (int i = 0; i < 4; i++)
		n->extra[i] = -1;
}

/* Hand-built layers of MobileNet v2 1.0 224 quant. */
static void test_layers(void)
{
	struct xnn_node n;
	uint64_t r, b;

	/* op 0: 3x3 stride 2 SAME conv 224x224x3 -> 112x112x32; blocks 520 264 224 264
	 * 408 (descriptors), 24 (zero: 16 + round_up(3, 8)), 903168 (indirection at
	 * reshape: 9 * round_up(12544, 7) * 8) */
	base_node(&n, XNN_K_CONV_IGEMM);
	n.in_h = n.in_w = 224; n.in_c = 3; n.out_h = n.out_w = 112; n.out_c = 32;
	n.k_h = n.k_w = 3; n.stride_h = n.stride_w = 2; n.same_padding = true;
	b = node_bytes(&n, &r);
	CHECK_U64("mnv2 conv0 indirection", r, 903168);
	CHECK_U64("mnv2 conv0 private", b, 903168 + 1680 + 24);

	/* op 1: 3x3 dw stride 1 on 112x112x32: 520 264 224 264 336, zero 48, indirection
	 * 306432 */
	base_node(&n, XNN_K_DWCONV);
	n.in_h = n.in_w = n.out_h = n.out_w = 112; n.in_c = n.out_c = n.groups = 32;
	n.k_h = n.k_w = 3; n.depth_multiplier = 1; n.same_padding = true;
	n.pad_top = n.pad_bottom = n.pad_left = n.pad_right = 1;
	b = node_bytes(&n, &r);
	CHECK_U64("mnv2 dw1 indirection", r, 306432);
	CHECK_U64("mnv2 dw1 private", b, 306432 + 1608 + 48);

	/* the stride-2 dw on 112x112x96 (explicit padding 0, SAME flag): zero 112,
	 * indirection 151872 */
	n.in_c = n.out_c = n.groups = 96; n.out_h = n.out_w = 56;
	n.stride_h = n.stride_w = 2;
	n.pad_top = n.pad_bottom = n.pad_left = n.pad_right = 0;
	b = node_bytes(&n, &r);
	CHECK_U64("mnv2 dw s2 indirection", r, 151872);
	CHECK_U64("mnv2 dw s2 private", b, 151872 + 1608 + 112);

	/* 144 channels: c_stride 160, zero 176 */
	n.in_c = n.out_c = n.groups = 144;
	b = node_bytes(&n, &r);
	CHECK_U64("mnv2 dw 144ch zero buffer", b - r - 1608, 176);

	/* the last dw, 7x7 output: 189 pointers + 0 (9-tap tile), rounded to 64 B: 1536 */
	n.in_h = n.in_w = n.out_h = n.out_w = 7; n.stride_h = n.stride_w = 1;
	n.pad_top = n.pad_bottom = n.pad_left = n.pad_right = 1;
	node_bytes(&n, &r);
	CHECK_U64("mnv2 dw 7x7 indirection", r, 1536);

	/* a 1x1 conv the subgraph runs as fully connected: 520 176 224 288 688 */
	base_node(&n, XNN_K_FC);
	CHECK_U64("fc descriptors", node_bytes(&n, &r), 1896);
	/* ADD: 520 88 40; RESHAPE (copy): 520 176 */
	base_node(&n, XNN_K_ELEMENTWISE);
	n.extra[0] = 1;
	CHECK_U64("binary descriptors", node_bytes(&n, &r), 648);
	base_node(&n, XNN_K_COPY);
	CHECK_U64("copy descriptors", node_bytes(&n, &r), 696);

	/* DeepLab's resize 65x65 -> 513x513 (qu8): indirection 513*513*32 = 8421408,
	 * weights 513*513*4 = 1052676, descriptors 520 176 224 */
	base_node(&n, XNN_K_RESIZE_BILINEAR);
	n.in_h = n.in_w = 65; n.out_h = n.out_w = 513; n.in_c = n.out_c = 21;
	b = node_bytes(&n, &r);
	CHECK_U64("deeplab resize 513 at reshape", r, 8421408 + 1052676);
	CHECK_U64("deeplab resize 513 private", b, 8421408 + 1052676 + 920);

	/* selfie's f32 global average pool 64x64x16 as a 64x64 window: zero 80, indirection
	 * (4096 + 4095) * 8 = 65528; face detection's 2x2 stride-2 max pool 64x64x28: 32792 */
	base_node(&n, XNN_K_POOL_AVG);
	n.in_dt = XNN_DT_F32; n.in_h = n.in_w = n.k_h = n.k_w = n.stride_h = n.stride_w = 64;
	n.out_h = n.out_w = 1; n.in_c = n.out_c = 16;
	b = node_bytes(&n, &r);
	CHECK_U64("selfie avgpool at reshape", r, 80 + 65528);
	CHECK_U64("selfie avgpool private", b, 80 + 65528 + 832);
	base_node(&n, XNN_K_POOL_MAX);
	n.in_dt = XNN_DT_F32; n.in_h = n.in_w = 64; n.out_h = n.out_w = 32; n.in_c = 28;
	n.k_h = n.k_w = n.stride_h = n.stride_w = 2;
	CHECK_U64("face maxpool indirection", node_bytes(&n, &r) - 832, 32792);

	/* selfie's f32 2x2 stride-2 transposed conv 128x128x16 -> 256x256x1 (f32 gemm
	 * kr 1): 520 264 264 224 288 (4 subconvolutions), zero 16*4+16 = 80, indirection
	 * 4 * 256 * 2 * 128 * 8 = 2097152 */
	base_node(&n, XNN_K_DECONV);
	n.in_dt = n.w_dt = XNN_DT_F32; n.in_h = n.in_w = 128; n.in_c = 16;
	n.out_h = n.out_w = 256; n.out_c = 1; n.k_h = n.k_w = n.stride_h = n.stride_w = 2;
	{
		struct xnn_gemm_cfg f32 = { .mr = 7, .nr = 16, .planes = 1 };

		b = xnn_private_bytes_arch(&n, AP_ARCH_X86_64, &f32, NULL, &r);
	}
	CHECK_U64("selfie deconv indirection", r, 2097152);
	CHECK_U64("selfie deconv private", b, 2097152 + 1560 + 80);

	/* runtimes of MobileNet v2: 96 + 14880 (62 nodes) + 53120 (332 values); 96 + 480
	 * + 1280 */
	CHECK_U64("mnv2 runtime 1", xnn_runtime_bytes(62, 332), 96 + 14880 + 53120);
	CHECK_U64("mnv2 runtime 2", xnn_runtime_bytes(2, 8), 96 + 480 + 1280);
	CHECK_U64("mr heuristic, 12544 rows", xnn_igemm_mr(&qu8_gemm, 12544), 7);
	CHECK_U64("mr heuristic, 1 row", xnn_igemm_mr(&qu8_gemm, 1), 1);
}

static const int32_t *shape(const struct ap_model_subgraph *sg, int32_t t)
{
	return sg->tensors[t].shape;
}

static bool is_const(const struct ap_model *m, const struct ap_model_subgraph *sg, int32_t t)
{
	uint32_t b = sg->tensors[t].buffer;

	return b && b < m->n_buffers && m->buffers[b].data_len > 0;
}

/* The node an operator becomes, the way LiteRT 2.3's delegate and XNNPACK's subgraph make
 * it for these two models (1x1 stride-1 convolutions run as fully connected). */
static void model_node(const struct ap_model *m, const struct ap_model_op *op,
		       struct xnn_node *n)
{
	const struct ap_model_subgraph *sg = &m->subgraphs[0];
	int32_t code = ap_model_op_code(m, op);
	const int32_t *in = shape(sg, op->inputs[0]), *out = shape(sg, op->outputs[0]);

	base_node(n, XNN_K_OTHER);
	if (sg->tensors[op->inputs[0]].rank == 4) {
		n->in_h = in[1]; n->in_w = in[2]; n->in_c = in[3];
	}
	if (sg->tensors[op->outputs[0]].rank == 4) {
		n->out_h = out[1]; n->out_w = out[2]; n->out_c = out[3];
	}
	if (code == OP_CONV_ || code == OP_DW_) {
		const int32_t *f = shape(sg, op->inputs[1]);
		bool dw = code == OP_DW_;

		n->k_h = f[1]; n->k_w = f[2];
		n->same_padding = ap_model_op_option(m, op, 0, 1, 0) == 0;
		n->stride_w = ap_model_op_option(m, op, 1, 4, 1);
		n->stride_h = ap_model_op_option(m, op, 2, 4, 1);
		n->dil_w = ap_model_op_option(m, op, dw ? 5 : 4, 4, 1);
		n->dil_h = ap_model_op_option(m, op, dw ? 6 : 5, 4, 1);
		if (dw) {
			n->kind = XNN_K_DWCONV;
			n->groups = n->in_c;
			n->depth_multiplier = ap_model_op_option(m, op, 3, 4, 1);
		} else if (n->k_h * n->k_w == 1 && n->stride_h == 1 && n->stride_w == 1) {
			n->kind = XNN_K_FC;
		} else {
			n->kind = XNN_K_CONV_IGEMM;
		}
	} else if (code == OP_ADD_) {
		n->kind = XNN_K_ELEMENTWISE;
		n->extra[0] = op->inputs[1];
	} else if (code == OP_QUANT_) {
		n->kind = XNN_K_ELEMENTWISE;
	} else if (code == OP_RESHAPE_) {
		n->kind = XNN_K_COPY;
	} else if (code == OP_CONCAT_) {
		n->kind = XNN_K_CONCAT;
		n->n_parts = op->n_inputs;
	} else if (code == OP_RESIZE_) {
		n->kind = XNN_K_RESIZE_BILINEAR;
	}
}

/* XNNPACK's value count of the partition made of the operators flagged in part[]: every
 * tensor its nodes touch once, and again the ones not at its edge (constants included). */
static uint32_t part_values(const struct ap_model *m, const bool *part)
{
	const struct ap_model_subgraph *sg = &m->subgraphs[0];
	uint32_t n = 0;

	for (uint32_t t = 0; t < sg->n_tensors; t++) {
		bool used = false, made_in = false, to_out = false;

		for (uint32_t i = 0; i < sg->n_ops; i++) {
			const struct ap_model_op *op = &sg->ops[i];
			int32_t c = ap_model_op_code(m, op);
			/* the delegate takes only the data input of these */
			uint32_t n_in = c == OP_RESHAPE_ || c == OP_RESIZE_ ? 1 : op->n_inputs;
			bool reads = false, writes = false;

			for (uint32_t k = 0; k < n_in; k++)
				reads |= op->inputs[k] == (int32_t)t;
			for (uint32_t k = 0; k < op->n_outputs; k++)
				writes |= op->outputs[k] == (int32_t)t;
			if (part[i] && (reads || writes))
				used = true;
			made_in |= part[i] && writes;
			to_out |= !part[i] && reads;
		}
		for (uint32_t k = 0; k < sg->n_outputs; k++)
			to_out |= sg->outputs[k] == (int32_t)t;
		if (!used)
			continue;
		/* an edge: an input that is not a constant, or an output read outside */
		n += (!made_in && !is_const(m, sg, t)) || (made_in && to_out) ? 1 : 2;
	}
	return n;
}

/* A whole model: its partitions (by operator index) against the oracle's sum of every
 * live block that is neither packed weights nor the workspace. */
static void test_model(const char *path, const int32_t *left, uint32_t n_left,
		       const int32_t *p2, uint32_t n_p2, uint64_t want_ind, uint64_t want_total,
		       const char *name)
{
	struct ap_model m;
	char err[AP_ERR_LEN];
	bool part1[512] = { false }, part2[512] = { false };
	uint64_t total = xnn_workspace_object_bytes(), reshape_sum = 0;
	uint32_t nodes1 = 0, nodes2 = 0;
	char label[96];

	if (ap_model_load(path, &m, err) < 0) {
		CHECK(name, 0, "%s", err);
		return;
	}
	for (uint32_t i = 0; i < m.subgraphs[0].n_ops && i < 512; i++)
		part1[i] = true;
	for (uint32_t k = 0; k < n_left; k++)
		part1[left[k]] = false;
	for (uint32_t k = 0; k < n_p2; k++) {
		part1[p2[k]] = false;
		part2[p2[k]] = true;
	}
	for (uint32_t i = 0; i < m.subgraphs[0].n_ops && i < 512; i++) {
		struct xnn_node n;
		uint64_t r;

		if (!part1[i] && !part2[i])
			continue;
		model_node(&m, &m.subgraphs[0].ops[i], &n);
		total += node_bytes(&n, &r);
		reshape_sum += r;
		nodes1 += part1[i];
		nodes2 += part2[i];
	}
	total += xnn_runtime_bytes(nodes1, part_values(&m, part1));
	total += xnn_runtime_bytes(nodes2, part_values(&m, part2));
	snprintf(label, sizeof(label), "%s: bytes at reshape", name);
	CHECK_U64(label, reshape_sum, want_ind);
	snprintf(label, sizeof(label), "%s: private + runtime objects", name);
	CHECK_U64(label, total, want_total);
	ap_model_free(&m);
}

int main(void)
{
	/* MobileNet v2: partition 1 = ops 0..61, partition 2 = ops 63, 64 (AVERAGE_POOL_2D
	 * and SOFTMAX stay with TFLite). Oracle: indirection 1567296; indirection +
	 * operator_create + workspace_struct = 1747296. */
	static const int32_t mnv2_p2[] = { 63, 64 }, mnv2_left[] = { 62, 65 };
	/* DeepLab v3: partition 1 = ops 0..60 and 62 (a 1x1 conv on op 60's output),
	 * partition 2 = 63..70 (AVERAGE_POOL_2D and ARG_MAX stay). Oracle: indirection
	 * 8457376 + resize 9552492 at reshape; all but packed weights and workspace
	 * 18198932. */
	static const int32_t dl_p2[] = { 63, 64, 65, 66, 67, 68, 69, 70 }, dl_left[] = { 61, 71 };

	/* MobileNet v1 0.25 128: the same shape (ops 27 and 30 stay). Oracle: indirection
	 * 506672; all but packed weights and workspace 592392. */
	static const int32_t mnv1_p2[] = { 28, 29 }, mnv1_left[] = { 27, 30 };

	test_layers();
	test_model("tests/models/mobilenet_v2_1.0_224_quant.tflite", mnv2_left, 2, mnv2_p2, 2,
		   1567296, 1747296, "mobilenet v2");
	test_model("tests/models/deeplabv3_mnv2_dm05_pascal_quant.tflite", dl_left, 2, dl_p2, 8,
		   8457376 + 9552492, 18198932, "deeplab v3");
	test_model("tests/models/mobilenet_v1_0.25_128_quant.tflite", mnv1_left, 2, mnv1_p2, 2,
		   506672, 592392, "mobilenet v1");
	TEST_EXIT();
}
