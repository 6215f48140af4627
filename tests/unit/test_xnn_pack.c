// SPDX-License-Identifier: Apache-2.0
/*
 * test_xnn_pack: the packed weights of XNNPACK nodes (src/plan/xnnpack/pack.c) and the
 * CPU configs behind them (cpu.c). The layer tables are MobileNet v2 1.0 224 and v1 0.25
 * 128 (uint8) as XNNPACK creates their operators: every 1x1 convolution becomes a fully
 * connected operator, the rest are convolutions and depthwise convolutions. Each row's
 * bytes and each model's total are what XNNPACK's allocator gave their packed weights in
 * LiteRT 2.3.0 on an x86-64 host with AVX-512 VNNI and no AMX (docs/xnnpack-packing.md).
 */
#include <errno.h>

#include "test.h"

#include "arenaprof/util/err.h"

#include "../../src/plan/xnnpack/xnn_priv.h"

enum { CONV, DW, FC };

struct layer {
	int kind;
	uint32_t in_c, out_c, k_h, k_w, stride, groups, pad;
	uint64_t bytes;
};

static const struct layer mnv2[] = {
	{ CONV, 3, 32, 3, 3, 2, 1, 0, 2432 },
	{ DW, 32, 32, 3, 3, 1, 32, 1, 448 },
	{ FC, 32, 16, 1, 1, 1, 1, 0, 576 },
	{ FC, 16, 96, 1, 1, 1, 1, 0, 1920 },
	{ DW, 96, 96, 3, 3, 2, 96, 0, 1280 },
	{ FC, 96, 24, 1, 1, 1, 1, 0, 3200 },
	{ FC, 24, 144, 1, 1, 1, 1, 0, 4032 },
	{ DW, 144, 144, 3, 3, 1, 144, 1, 2112 },
	{ FC, 144, 24, 1, 1, 1, 1, 0, 4736 },
	{ FC, 24, 144, 1, 1, 1, 1, 0, 4032 },
	{ DW, 144, 144, 3, 3, 2, 144, 0, 2112 },
	{ FC, 144, 32, 1, 1, 1, 1, 0, 4736 },
	{ FC, 32, 192, 1, 1, 1, 1, 0, 6912 },
	{ DW, 192, 192, 3, 3, 1, 192, 1, 2496 },
	{ FC, 192, 32, 1, 1, 1, 1, 0, 6272 },
	{ FC, 32, 192, 1, 1, 1, 1, 0, 6912 },
	{ DW, 192, 192, 3, 3, 1, 192, 1, 2496 },
	{ FC, 192, 32, 1, 1, 1, 1, 0, 6272 },
	{ FC, 32, 192, 1, 1, 1, 1, 0, 6912 },
	{ DW, 192, 192, 3, 3, 2, 192, 0, 2496 },
	{ FC, 192, 64, 1, 1, 1, 1, 0, 12544 },
	{ FC, 64, 384, 1, 1, 1, 1, 0, 26112 },
	{ DW, 384, 384, 3, 3, 1, 384, 1, 4992 },
	{ FC, 384, 64, 1, 1, 1, 1, 0, 24832 },
	{ FC, 64, 384, 1, 1, 1, 1, 0, 26112 },
	{ DW, 384, 384, 3, 3, 1, 384, 1, 4992 },
	{ FC, 384, 64, 1, 1, 1, 1, 0, 24832 },
	{ FC, 64, 384, 1, 1, 1, 1, 0, 26112 },
	{ DW, 384, 384, 3, 3, 1, 384, 1, 4992 },
	{ FC, 384, 64, 1, 1, 1, 1, 0, 24832 },
	{ FC, 64, 384, 1, 1, 1, 1, 0, 26112 },
	{ DW, 384, 384, 3, 3, 1, 384, 1, 4992 },
	{ FC, 384, 96, 1, 1, 1, 1, 0, 37248 },
	{ FC, 96, 576, 1, 1, 1, 1, 0, 57600 },
	{ DW, 576, 576, 3, 3, 1, 576, 1, 7488 },
	{ FC, 576, 96, 1, 1, 1, 1, 0, 55680 },
	{ FC, 96, 576, 1, 1, 1, 1, 0, 57600 },
	{ DW, 576, 576, 3, 3, 1, 576, 1, 7488 },
	{ FC, 576, 96, 1, 1, 1, 1, 0, 55680 },
	{ FC, 96, 576, 1, 1, 1, 1, 0, 57600 },
	{ DW, 576, 576, 3, 3, 2, 576, 0, 7488 },
	{ FC, 576, 160, 1, 1, 1, 1, 0, 92800 },
	{ FC, 160, 960, 1, 1, 1, 1, 0, 157440 },
	{ DW, 960, 960, 3, 3, 1, 960, 1, 12480 },
	{ FC, 960, 160, 1, 1, 1, 1, 0, 154240 },
	{ FC, 160, 960, 1, 1, 1, 1, 0, 157440 },
	{ DW, 960, 960, 3, 3, 1, 960, 1, 12480 },
	{ FC, 960, 160, 1, 1, 1, 1, 0, 154240 },
	{ FC, 160, 960, 1, 1, 1, 1, 0, 157440 },
	{ DW, 960, 960, 3, 3, 1, 960, 1, 12480 },
	{ FC, 960, 320, 1, 1, 1, 1, 0, 308480 },
	{ FC, 320, 1280, 1, 1, 1, 1, 0, 414720 },
	{ FC, 1280, 1001, 1, 1, 1, 1, 0, 1294272 },
};

static const struct layer mnv1[] = {
	{ CONV, 3, 8, 3, 3, 2, 1, 0, 1216 },
	{ DW, 8, 8, 3, 3, 1, 8, 1, 448 },
	{ FC, 8, 16, 1, 1, 1, 1, 0, 192 },
	{ DW, 16, 16, 3, 3, 2, 16, 0, 448 },
	{ FC, 16, 32, 1, 1, 1, 1, 0, 640 },
	{ DW, 32, 32, 3, 3, 1, 32, 1, 448 },
	{ FC, 32, 32, 1, 1, 1, 1, 0, 1152 },
	{ DW, 32, 32, 3, 3, 2, 32, 0, 448 },
	{ FC, 32, 64, 1, 1, 1, 1, 0, 2304 },
	{ DW, 64, 64, 3, 3, 1, 64, 1, 832 },
	{ FC, 64, 64, 1, 1, 1, 1, 0, 4352 },
	{ DW, 64, 64, 3, 3, 2, 64, 0, 832 },
	{ FC, 64, 128, 1, 1, 1, 1, 0, 8704 },
	{ DW, 128, 128, 3, 3, 1, 128, 1, 1664 },
	{ FC, 128, 128, 1, 1, 1, 1, 0, 16896 },
	{ DW, 128, 128, 3, 3, 1, 128, 1, 1664 },
	{ FC, 128, 128, 1, 1, 1, 1, 0, 16896 },
	{ DW, 128, 128, 3, 3, 1, 128, 1, 1664 },
	{ FC, 128, 128, 1, 1, 1, 1, 0, 16896 },
	{ DW, 128, 128, 3, 3, 1, 128, 1, 1664 },
	{ FC, 128, 128, 1, 1, 1, 1, 0, 16896 },
	{ DW, 128, 128, 3, 3, 1, 128, 1, 1664 },
	{ FC, 128, 128, 1, 1, 1, 1, 0, 16896 },
	{ DW, 128, 128, 3, 3, 2, 128, 0, 1664 },
	{ FC, 128, 256, 1, 1, 1, 1, 0, 33792 },
	{ DW, 256, 256, 3, 3, 1, 256, 1, 3328 },
	{ FC, 256, 256, 1, 1, 1, 1, 0, 66560 },
	{ FC, 256, 1001, 1, 1, 1, 1, 0, 262080 },
};

/* pose_detection (float32 weights stored as float16): f32 packing, nr2 included */
static const struct layer pose[] = {
	{ CONV, 3, 24, 3, 3, 2, 1, 1, 3584 },
	{ DW, 24, 24, 3, 3, 1, 24, 1, 1280 },
	{ FC, 24, 16, 1, 1, 1, 1, 0, 1600 },
	{ FC, 16, 64, 1, 1, 1, 1, 0, 4352 },
	{ FC, 64, 24, 1, 1, 1, 1, 0, 8320 },
	{ FC, 144, 40, 1, 1, 1, 1, 0, 27840 },
	{ DW, 144, 144, 5, 5, 2, 144, 1, 14976 },
	{ FC, 40, 96, 1, 1, 1, 1, 0, 15744 },
	{ FC, 672, 192, 1, 1, 1, 1, 0, 516864 },
};

static struct xnn_node node_of(const struct layer *l, enum xnn_dt in, enum xnn_dt w)
{
	struct xnn_node n = { 0 };

	n.kind = l->kind == FC ? XNN_K_FC : l->kind == DW ? XNN_K_DWCONV : XNN_K_CONV_IGEMM;
	n.in_dt = in;
	n.w_dt = w;
	n.has_bias = true;
	n.batch = 1;
	n.in_c = l->in_c;
	n.out_c = l->out_c;
	n.k_h = l->k_h;
	n.k_w = l->k_w;
	n.stride_h = n.stride_w = l->stride;
	n.dil_h = n.dil_w = 1;
	n.pad_top = n.pad_bottom = n.pad_left = n.pad_right = l->pad;
	n.groups = l->groups;
	n.depth_multiplier = 1;
	return n;
}

static uint64_t check_model(const char *name, const struct layer *ls, size_t n,
			    enum xnn_dt in, enum xnn_dt w, const struct ap_xnn_cpu *cpu)
{
	uint64_t sum = 0;
	char what[96];

	for (size_t i = 0; i < n; i++) {
		struct xnn_node nd = node_of(&ls[i], in, w);
		uint64_t got = xnn_packed_bytes(&nd, cpu);

		snprintf(what, sizeof(what), "%s layer %zu (%s %u->%u)", name, i,
			 ls[i].kind == FC ? "fc" : ls[i].kind == DW ? "dw" : "conv",
			 ls[i].in_c, ls[i].out_c);
		CHECK_U64(what, got, ls[i].bytes);
		sum += got;
	}
	return sum;
}

static void check_cfg(const char *cpu_name, enum xnn_dt in, enum xnn_dt w, uint32_t mr,
		      uint32_t nr, uint32_t kr)
{
	struct ap_xnn_cpu cpu;
	struct xnn_gemm_cfg g = { 0 };
	char err[AP_ERR_LEN], what[96];
	bool ok = ap_xnn_cpu_parse(cpu_name, &cpu, err) == 0 && xnn_cpu_gemm(&cpu, in, w, &g);

	snprintf(what, sizeof(what), "%s gemm dt %d: %ux%uc%u", cpu_name, in, mr, nr, kr);
	CHECK(what, ok && g.mr == mr && g.nr == nr && (1u << g.log2_kr) == kr,
	      "got %ux%uc%u (%s)", g.mr, g.nr, 1u << g.log2_kr, g.family ? g.family : "none");
}

int main(void)
{
	struct ap_xnn_cpu vnni, host, a72;
	char err[AP_ERR_LEN];

	CHECK("parse x86-64-avx512vnni", ap_xnn_cpu_parse("x86-64-avx512vnni", &vnni, err) == 0,
	      "%s", err);
	CHECK("parse host", ap_xnn_cpu_parse("host", &host, err) == 0, "%s", err);
	CHECK("unknown cpu refused", ap_xnn_cpu_parse("pentium", &a72, err) == -EINVAL,
	      "accepted");
	CHECK("parse cortex-a72", ap_xnn_cpu_parse("cortex-a72", &a72, err) == 0, "%s", err);
	printf("host features %#llx uarch '%s'\n", (unsigned long long)host.features,
	       host.uarch);

	/* The oracle's totals: by_category packed_weights after the first run. */
	CHECK_U64("mnv2 packed total", check_model("mnv2", mnv2, sizeof(mnv2) / sizeof(mnv2[0]),
			XNN_DT_QU8, XNN_DT_QU8, &vnni), 3556224);
	CHECK_U64("mnv1 packed total", check_model("mnv1", mnv1, sizeof(mnv1) / sizeof(mnv1[0]),
			XNN_DT_QU8, XNN_DT_QU8, &vnni), 482240);
	if (host.arch == AP_ARCH_X86_64 && (host.features & AP_XF_AVX512VNNI) &&
	    !(host.features & AP_XF_AVX512AMX))
		CHECK_U64("mnv2 packed total on host", check_model("host mnv2", mnv2,
				sizeof(mnv2) / sizeof(mnv2[0]), XNN_DT_QU8, XNN_DT_QU8, &host),
			  3556224);
	check_model("pose", pose, sizeof(pose) / sizeof(pose[0]), XNN_DT_F32, XNN_DT_F16,
		    &vnni);

	/* the same layers on arm64: 16-byte alignment, qu8 4x16 (kr 1), dwconv 9p16c */
	struct xnn_node fc = node_of(&mnv2[52], XNN_DT_QU8, XNN_DT_QU8);
	struct xnn_node dw = node_of(&mnv2[1], XNN_DT_QU8, XNN_DT_QU8);

	CHECK_U64("a72 qu8 fc 1280->1001", xnn_packed_bytes(&fc, &a72), 1284 * 1008);
	CHECK_U64("a72 qu8 dw 32", xnn_packed_bytes(&dw, &a72), 13 * 32);

	check_cfg("x86-64-avx512vnni", XNN_DT_QS8, XNN_DT_QC8W, 7, 16, 8);
	check_cfg("x86-64-amx", XNN_DT_QS8, XNN_DT_QC8W, 16, 64, 4);
	check_cfg("x86-64-avx2", XNN_DT_QS8, XNN_DT_QC8W, 3, 8, 8);
	check_cfg("x86-64-avx2", XNN_DT_QU8, XNN_DT_QU8, 3, 8, 8);
	check_cfg("x86-64-avx2", XNN_DT_F32, XNN_DT_F32, 6, 16, 1);
	check_cfg("x86-64-avx512vnni", XNN_DT_F32, XNN_DT_F32, 7, 32, 1);
	check_cfg("cortex-a55", XNN_DT_QS8, XNN_DT_QC8W, 4, 16, 4);
	check_cfg("cortex-a72", XNN_DT_QS8, XNN_DT_QC8W, 2, 8, 8);
	check_cfg("cortex-a76", XNN_DT_QS8, XNN_DT_QC8W, 4, 16, 4);
	check_cfg("cortex-a72", XNN_DT_F32, XNN_DT_F32, 4, 8, 1);
	check_cfg("cortex-a76", XNN_DT_F32, XNN_DT_F32, 6, 8, 1);
	check_cfg("cortex-a78", XNN_DT_F32, XNN_DT_F32, 7, 8, 1);
	check_cfg("neoverse-n1", XNN_DT_QU8, XNN_DT_QU8, 4, 16, 1);
	check_cfg("cortex-a76", XNN_DT_F16, XNN_DT_F16, 6, 16, 1);
	TEST_EXIT();
}
