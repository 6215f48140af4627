// SPDX-License-Identifier: Apache-2.0
/*
 * cpu: the target CPU and the microkernel parameters XNNPACK's configs pick on it
 * (xnn_priv.h). The feature flags are the ones XNNPACK's hardware config derives (an
 * AVX-512 "SKX" level needs F, BW, DQ and VL; AVX512 VNNI needs SKX; AMX needs VNNI,
 * GFNI and AMX-INT8; AVX-VNNI needs AVX2 and GFNI), and the gemm, igemm, dwconv and
 * vmulcaddc parameters follow its order of preference for each datatype. Where it keys a
 * choice on the core (arm64 assembly kernels, AMD Zen), the uarch names it.
 * docs/xnnpack-packing.md has the table and the reasons.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "arenaprof/util/err.h"
#include "xnn_priv.h"

#define X86_AVX2 (AP_XF_SSE41 | AP_XF_AVX | AP_XF_F16C | AP_XF_FMA3 | AP_XF_AVX2)
#define X86_SKX (X86_AVX2 | AP_XF_AVX512F | AP_XF_AVX512SKX)
#define ARM_A7X (AP_XF_NEON | AP_XF_NEON_FP16 | AP_XF_NEON_DOT)

static const struct ap_xnn_cpu named[] = {
	{ "x86-64-avx2", AP_ARCH_X86_64, X86_AVX2, "" },
	{ "x86-64-avx512skx", AP_ARCH_X86_64, X86_SKX, "" },
	{ "x86-64-avx512vnni", AP_ARCH_X86_64, X86_SKX | AP_XF_AVX512VNNI, "" },
	{ "x86-64-amx", AP_ARCH_X86_64, X86_SKX | AP_XF_AVX512VBMI | AP_XF_AVX512VNNI |
	  AP_XF_GFNI | AP_XF_AVXVNNI | AP_XF_AVX512FP16 | AP_XF_AVX512BF16 | AP_XF_AVX512AMX, "" },
	{ "cortex-a55", AP_ARCH_ARM64, ARM_A7X, "cortex-a55" },
	{ "cortex-a72", AP_ARCH_ARM64, AP_XF_NEON, "cortex-a72" },
	{ "cortex-a76", AP_ARCH_ARM64, ARM_A7X, "cortex-a76" },
	{ "cortex-a78", AP_ARCH_ARM64, ARM_A7X, "cortex-a78" },
	{ "neoverse-n1", AP_ARCH_ARM64, ARM_A7X, "neoverse-n1" },
};

#define N_NAMED (sizeof(named) / sizeof(named[0]))

#if defined(__x86_64__)
static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* What cpuinfo reports and XNNPACK derives from it, on this x86-64 machine. */
static void host_x86(struct ap_xnn_cpu *cpu)
{
	uint32_t a, b, c, d, b7 = 0, c7 = 0, d7 = 0, a71 = 0, d71 = 0, max;
	uint64_t f = 0, xcr0 = 0;
	char vendor[13] = { 0 };
	uint32_t family, model, c1;

	max = __get_cpuid_max(0, (unsigned int *)vendor);
	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	__cpuid(1, a, b, c, d);
	family = ((a >> 8) & 0xf) + ((a >> 20) & 0xff);
	model = ((a >> 4) & 0xf) | (((a >> 16) & 0xf) << 4);
	c1 = c;
	if (c1 & (1u << 27))
		xcr0 = xgetbv0();
	if (max >= 7) {
		__cpuid_count(7, 0, a, b7, c7, d7);
		__cpuid_count(7, 1, a71, b, c, d71);
	}
	bool ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xe6) == 0xe6;
	bool tile = (xcr0 & 0x60000) == 0x60000;

	if (c1 & (1u << 19))
		f |= AP_XF_SSE41;
	if (ymm && (c1 & (1u << 28)))
		f |= AP_XF_AVX;
	if (ymm && (c1 & (1u << 29)))
		f |= AP_XF_F16C;
	if (ymm && (c1 & (1u << 12)))
		f |= AP_XF_FMA3;
	if (ymm && (b7 & (1u << 5)))
		f |= AP_XF_AVX2;
	if (c7 & (1u << 8))
		f |= AP_XF_GFNI;
	if (zmm && (b7 & (1u << 16))) {
		f |= AP_XF_AVX512F;
		if ((b7 & (1u << 17)) && (b7 & (1u << 30)) && (b7 & (1u << 31)))
			f |= AP_XF_AVX512SKX;
	}
	if ((f & AP_XF_AVX512SKX) && (c7 & (1u << 1)))
		f |= AP_XF_AVX512VBMI;
	if ((f & AP_XF_AVX512SKX) && (c7 & (1u << 11)))
		f |= AP_XF_AVX512VNNI;
	if (zmm && (d7 & (1u << 23)))
		f |= AP_XF_AVX512FP16;
	if (zmm && (a71 & (1u << 5)))
		f |= AP_XF_AVX512BF16;
	if ((f & AP_XF_AVX512VNNI) && (f & AP_XF_GFNI) && tile && (d7 & (1u << 25)))
		f |= AP_XF_AVX512AMX;
	if ((f & AP_XF_AVX2) && (f & AP_XF_GFNI) && (a71 & (1u << 4)))
		f |= AP_XF_AVXVNNI;
	if ((f & AP_XF_AVX2) && (f & AP_XF_GFNI) && (d71 & (1u << 4)))
		f |= AP_XF_AVXVNNIINT8;
	cpu->features = f;
	/* cpuinfo's zen (Zen, Zen+: family 17h below model 30h) and Hygon's dhyana are the
	 * uarchs XNNPACK's x86 configs key on; Zen 2 and later map to "unknown". */
	if (!strcmp(vendor, "AuthenticAMD") && family == 0x17 && model < 0x30)
		snprintf(cpu->uarch, sizeof(cpu->uarch), "zen");
	else if (!strcmp(vendor, "HygonGenuine") && family == 0x18)
		snprintf(cpu->uarch, sizeof(cpu->uarch), "dhyana");
}
#endif

#if defined(__aarch64__)
static const struct { unsigned part; const char *name; } arm_parts[] = {
	{ 0xd03, "cortex-a53" }, { 0xd04, "cortex-a35" }, { 0xd05, "cortex-a55" },
	{ 0xd07, "cortex-a57" }, { 0xd08, "cortex-a72" }, { 0xd09, "cortex-a73" },
	{ 0xd0a, "cortex-a75" }, { 0xd0b, "cortex-a76" }, { 0xd0c, "neoverse-n1" },
	{ 0xd0d, "cortex-a77" }, { 0xd40, "neoverse-v1" }, { 0xd41, "cortex-a78" },
	{ 0xd44, "cortex-x1" }, { 0xd46, "cortex-a510" }, { 0xd47, "cortex-a710" },
	{ 0xd48, "cortex-x2" }, { 0xd49, "neoverse-n2" }, { 0xd4d, "cortex-a715" },
	{ 0xd4e, "cortex-x3" }, { 0xd4f, "neoverse-v2" }, { 0xd82, "cortex-x4" },
};

/* The features from the auxiliary vector and the uarch of the first core listed
 * (XNNPACK keys its choices on core 0's), from /proc/cpuinfo's "CPU part". */
static void host_arm64(struct ap_xnn_cpu *cpu)
{
	unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
	uint64_t f = 0;
	char line[256];
	unsigned part = 0;
	FILE *fp;

	if (hw & (1ul << 1))
		f |= AP_XF_NEON;
	if (hw & (1ul << 10))
		f |= AP_XF_NEON_FP16;
	if (hw & (1ul << 20))
		f |= AP_XF_NEON_DOT;
	if (hw2 & (1ul << 13))
		f |= AP_XF_NEON_I8MM;
	if (hw2 & (1ul << 14))
		f |= AP_XF_NEON_BF16;
	cpu->features = f;
	fp = fopen("/proc/cpuinfo", "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "CPU part", 8) && sscanf(strchr(line, ':') ?
				strchr(line, ':') + 1 : "", "%x", &part) == 1)
			break;
	if (fp)
		fclose(fp);
	for (size_t i = 0; i < sizeof(arm_parts) / sizeof(arm_parts[0]); i++)
		if (arm_parts[i].part == part)
			snprintf(cpu->uarch, sizeof(cpu->uarch), "%s", arm_parts[i].name);
}
#endif

int ap_xnn_cpu_parse(const char *name, struct ap_xnn_cpu *cpu, char *err)
{
	memset(cpu, 0, sizeof(*cpu));
	if (!strcmp(name, "host")) {
		snprintf(cpu->name, sizeof(cpu->name), "host");
#if defined(__x86_64__)
		cpu->arch = AP_ARCH_X86_64;
		host_x86(cpu);
#elif defined(__aarch64__)
		cpu->arch = AP_ARCH_ARM64;
		host_arm64(cpu);
#else
		return ap_fail(err, -EINVAL, "--cpu host: this machine is neither x86-64 nor "
			       "arm64; name a CPU");
#endif
		return 0;
	}
	for (size_t i = 0; i < N_NAMED; i++)
		if (!strcmp(name, named[i].name)) {
			*cpu = named[i];
			return 0;
		}
	return ap_fail(err, -EINVAL, "--cpu %s: unknown CPU (host, x86-64-avx2, "
		       "x86-64-avx512skx, x86-64-avx512vnni, x86-64-amx, cortex-a55, cortex-a72, "
		       "cortex-a76, cortex-a78, neoverse-n1)", name);
}

static bool has(const struct ap_xnn_cpu *cpu, uint64_t f)
{
	return (cpu->features & f) == f;
}

static bool uarch_is(const struct ap_xnn_cpu *cpu, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(cpu->uarch, *list))
			return true;
	return false;
}

static bool set(struct xnn_gemm_cfg *g, uint32_t mr, uint32_t nr, uint32_t log2_kr,
		uint32_t log2_sr, const char *family)
{
	/* mr_mask 0: the kernels of mr 1 and mr, as most configs have */
	*g = (struct xnn_gemm_cfg){ .mr = mr, .nr = nr, .log2_kr = log2_kr,
				    .log2_sr = log2_sr, .planes = 1, .family = family };
	return true;
}

static const char *const a55_like[] = { "cortex-a35", "cortex-a53", "cortex-a55r0",
					"cortex-a55", "kryo", NULL };
static const char *const zen[] = { "zen", "dhyana", NULL };

/* init_f32_gemm_config (the default, not consistent-arithmetic, config). */
static bool f32_gemm(const struct ap_xnn_cpu *cpu, struct xnn_gemm_cfg *g)
{
	static const char *const six[] = { "cortex-a57", "cortex-a75", "cortex-a76",
		"exynos-m3", "exynos-m4", "neoverse-n1", "cortex-a53", "cortex-a55r0",
		"cortex-a35", "cortex-a55", "kryo", "cortex-a73", NULL };
	static const char *const four[] = { "cortex-a77", "exynos-m5", NULL };
	static const char *const x3[] = { "cortex-x3", "neoverse-v2", NULL };
	static const char *const x4[] = { "oryon", "cortex-x4", NULL };

	if (cpu->arch == AP_ARCH_ARM64) {
		if (!strcmp(cpu->uarch, "cortex-a72"))
			return set(g, 4, 8, 0, 0, "4x8 aarch64 neonfma cortex-a75");
		if (!strcmp(cpu->uarch, "exynos-m1") || !strcmp(cpu->uarch, "exynos-m2"))
			return set(g, 6, 8, 0, 2, "6x8s4 neonfma");
		if (uarch_is(cpu, six))
			return set(g, 6, 8, 0, 0, "6x8 aarch64 neonfma");
		if (uarch_is(cpu, four))
			return set(g, 4, 8, 0, 0, "4x8 aarch64 neonfma cortex-a75");
		if (uarch_is(cpu, x3))
			return set(g, 8, 8, 0, 0, "8x8 aarch64 neonfma ld128");
		if (uarch_is(cpu, x4))
			return set(g, 4, 16, 0, 0, "4x16 aarch64 neonfma lane");
		return set(g, 7, 8, 0, 0, "7x8 aarch64 neonfma ld128");
	}
	if (has(cpu, AP_XF_AVX512F))
		return set(g, 7, 32, 0, 0, "7x32 avx512f broadcast");
	if (has(cpu, AP_XF_FMA3))
		return uarch_is(cpu, zen) ? set(g, 4, 16, 0, 2, "4x16s4 fma3") :
					    set(g, 6, 16, 0, 0, "6x16 amd64 fma3 broadcast");
	if (has(cpu, AP_XF_AVX))
		return set(g, 5, 16, 0, 0, "5x16 avx broadcast");
	return set(g, 4, 8, 0, 0, "4x8 sse load1");
}

/* init_f32_igemm_config: as the gemm's but for the mr of some cores. */
static bool f32_igemm(const struct ap_xnn_cpu *cpu, struct xnn_gemm_cfg *g)
{
	static const char *const x3[] = { "cortex-x3", "neoverse-v2", NULL };

	if (cpu->arch == AP_ARCH_ARM64) {
		f32_gemm(cpu, g);
		if (uarch_is(cpu, x3) || g->mr == 7)
			g->mr = 6;
		return true;
	}
	if (has(cpu, AP_XF_AVX512F))
		return set(g, 7, 32, 0, 0, "7x32 avx512f broadcast");
	if (has(cpu, AP_XF_FMA3))
		return uarch_is(cpu, zen) ? set(g, 4, 16, 0, 2, "4x16s4 fma3") :
					    set(g, 5, 16, 0, 0, "5x16 fma3 broadcast");
	if (has(cpu, AP_XF_AVX))
		return set(g, 5, 16, 0, 0, "5x16 avx broadcast");
	return set(g, 4, 8, 0, 0, "4x8 sse load1");
}

/* init_f16_gemm_config: only with fp16 arithmetic (arm64) or AVX2 (x86; F16C and AVX
 * for the f16 configs at all). */
static bool f16_gemm(const struct ap_xnn_cpu *cpu, struct xnn_gemm_cfg *g)
{
	if (cpu->arch == AP_ARCH_ARM64) {
		if (!has(cpu, AP_XF_NEON_FP16))
			return false;
		if (!strcmp(cpu->uarch, "exynos-m5"))
			return set(g, 4, 16, 0, 0, "4x16 aarch64 neonfp16arith");
		return set(g, 6, 16, 0, 0, "6x16 aarch64 neonfp16arith");
	}
	if (!has(cpu, AP_XF_F16C | AP_XF_AVX))
		return false;
	if (has(cpu, AP_XF_AVX512FP16))
		return set(g, 8, 32, 0, 0, "8x32 avx512fp16 broadcast");
	if (has(cpu, AP_XF_AVX512SKX))
		return set(g, 4, 32, 0, 0, "4x32 f32acc avx512skx broadcast");
	if (has(cpu, AP_XF_AVX2))
		return set(g, 4, 16, 0, 0, "4x16 f32acc avx2 broadcast");
	return false;
}

/* init_qs8_qc8w_gemm_config (Linux, assembly enabled), in XNNPACK's order. */
static bool qs8_qc8w_gemm(const struct ap_xnn_cpu *cpu, struct xnn_gemm_cfg *g)
{
	static const char *const mlal16[] = { "cortex-a35", "kryo", "cortex-a53",
					      "cortex-a55r0", "cortex-a55", NULL };

	if (cpu->arch == AP_ARCH_ARM64) {
		if (has(cpu, AP_XF_NEON_I8MM))
			return set(g, 4, 16, 3, 0, "4x16c8 neoni8mm");
		if (has(cpu, AP_XF_NEON_DOT))
			return set(g, 4, 16, 2, 0, "4x16c4 aarch64 neondot");
		if (uarch_is(cpu, mlal16))
			return set(g, 4, 16, 0, 0, "4x16 neonv8 mlal lane");
		return set(g, 2, 8, 3, 0, "2x8c8 aarch64 neon mlal");
	}
	if (has(cpu, AP_XF_AVX512AMX))
		return set(g, 16, 64, 2, 0, "16x64c4 avx512amx");
	if (has(cpu, AP_XF_AVX512VNNI))
		return set(g, 7, 16, 3, 0, "7x16c8 avx512vnni");
	if (has(cpu, AP_XF_AVXVNNI))
		return set(g, 5, 8, 3, 0, has(cpu, AP_XF_AVXVNNIINT8) ? "5x8c8 avxvnniint8" :
			   "5x8c8 avxvnni");
	if (has(cpu, AP_XF_AVX512SKX))
		return set(g, 7, 16, 3, 0, "7x16c8 avx512skx");
	if (has(cpu, AP_XF_AVX2))
		return set(g, 3, 8, 3, 0, "3x8c8 avx2");
	if (has(cpu, AP_XF_AVX))
		return set(g, 2, 4, 3, 0, "2x4c8 avx ld128");
	return set(g, 3, 4, 3, 0, has(cpu, AP_XF_SSE41) ? "3x4c8 sse41 ld64" :
		   "3x4c8 sse2 ld64");
}

/* init_qu8_gemm_config. */
static bool qu8_gemm(const struct ap_xnn_cpu *cpu, struct xnn_gemm_cfg *g)
{
	if (cpu->arch == AP_ARCH_ARM64)
		return set(g, 4, 16, 0, 0, "4x16 rndnu neon mlal lane");
	if (has(cpu, AP_XF_AVX512SKX))
		return set(g, 7, 16, 3, 0, "7x16c8 avx512skx");
	if (has(cpu, AP_XF_AVX2))
		return set(g, 3, 8, 3, 0, "3x8c8 avx2");
	if (has(cpu, AP_XF_AVX))
		return set(g, 2, 4, 3, 0, "2x4c8 avx ld128");
	return set(g, 3, 4, 3, 0, has(cpu, AP_XF_SSE41) ? "3x4c8 sse41 ld64" :
		   "3x4c8 sse2 ld64");
}

/*
 * The configs of a dynamically quantized node (a qdint8 input, per-channel int8 weights):
 * init_qd8_f32_qc8w_gemm_config, whose struct serves both fully connected and convolution,
 * and the unsigned qdu8 configs, which the subgraph takes instead (optimize_packed_lhs's
 * convert_gemm_to_qduint8) where their arch flag ranks above the signed one's: AVX512-VNNI
 * (an assembly 5x64c4 for a fully connected, 10x16c8 for a convolution) and AVX-VNNI.
 */
static bool qd8_qc8w(const struct ap_xnn_cpu *cpu, bool igemm, struct xnn_gemm_cfg *g)
{
	static const char *const a55[] = { "cortex-a53", "cortex-a55r0", "cortex-a55", NULL };

	if (cpu->arch == AP_ARCH_ARM64) {
		if (has(cpu, AP_XF_NEON_I8MM))
			return set(g, 4, 16, 3, 0, "qd8 4x16c8 neoni8mm");
		if (has(cpu, AP_XF_NEON_DOT))
			return set(g, 4, 16, 2, 0, "qd8 4x16c4 aarch64 neondot");
		if (uarch_is(cpu, a55))
			return set(g, 4, 16, 0, 0, "qd8 4x16 neon mlal lane");
		return set(g, 2, 8, 1, 2, "qd8 2x8c2s4 neon mlal");
	}
	if (has(cpu, AP_XF_AVX512AMX))
		return set(g, 16, 64, 2, 0, "qd8 16x64c4 avx512amx");
	if (has(cpu, AP_XF_AVX512VNNI))
		return igemm ? set(g, 10, 16, 3, 0, "qdu8 10x16c8 avx512vnni") :
			       set(g, 5, 64, 2, 0, "qdu8 5x64c4 amd64 avx512vnni");
	if (has(cpu, AP_XF_AVXVNNI))
		return set(g, 5, 8, 3, 0, "qdu8 5x8c8 avxvnni");
	if (has(cpu, AP_XF_AVX512SKX))
		return set(g, 8, 16, 3, 0, "qd8 8x16c8 avx512skx");
	if (has(cpu, AP_XF_AVX2))
		return set(g, 4, 8, 3, 0, "qd8 4x8c8 avx2");
	return set(g, 4, 4, 3, 0, "qd8 4x4c8 sse41");
}

/*
 * The configs of a dynamically quantized fully connected node with per-channel int4
 * weights (two planes): init_qdu8_f32_qc4w_gemm_config on x86-64, whose arch flag ranks
 * above the signed config's (SSE2 there) everywhere but on AMX; the GFNI variant unless
 * on Zen 4 or 5. Not modelled on arm64.
 */
static bool qd8_qc4w(const struct ap_xnn_cpu *cpu, struct xnn_gemm_cfg *g)
{
	bool ok;

	if (cpu->arch == AP_ARCH_ARM64)
		return false;
	if (has(cpu, AP_XF_AVX512AMX))
		ok = set(g, 16, 64, 2, 0, "qd8 16x64c4 avx512amx");
	else if (has(cpu, AP_XF_AVX512VNNI | AP_XF_GFNI) && strcmp(cpu->uarch, "zen4") &&
		 strcmp(cpu->uarch, "zen5"))
		ok = set(g, 14, 16, 3, 0, "qdu8 14x16c8 avx512vnnigfni");
	else if (has(cpu, AP_XF_AVX512VNNI))
		ok = set(g, 8, 16, 3, 0, "qdu8 8x16c8 avx512vnni");
	else if (has(cpu, AP_XF_AVXVNNI))
		ok = set(g, 5, 8, 3, 0, "qdu8 5x8c8 avxvnni");
	else if (has(cpu, AP_XF_AVX512SKX))
		ok = set(g, 8, 16, 3, 0, "qdu8 8x16c8 avx512skx");
	else if (has(cpu, AP_XF_AVX2))
		ok = set(g, 4, 8, 3, 0, "qdu8 4x8c8 avx2");
	else
		ok = set(g, 4, 4, 3, 0, "qd8 4x4c8 sse2");
	g->planes = 2;
	return ok;
}

/* Is the filter a weights type the input's configs take? f32 and f16 weights of an f32
 * node are packed as f32 (XNNPACK converts the f16 ones before packing). */
static bool f32_weights(enum xnn_dt w)
{
	return w == XNN_DT_F32 || w == XNN_DT_F16;
}

bool xnn_cpu_gemm(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		  struct xnn_gemm_cfg *g)
{
	switch (in) {
	case XNN_DT_F32:
		return f32_weights(w) && f32_gemm(cpu, g);
	case XNN_DT_F16:
		return f32_weights(w) && f16_gemm(cpu, g);
	case XNN_DT_QS8:
		return (w == XNN_DT_QS8 || w == XNN_DT_QC8W) && qs8_qc8w_gemm(cpu, g);
	case XNN_DT_QU8:
		return w == XNN_DT_QU8 && qu8_gemm(cpu, g);
	case XNN_DT_QD8:
		if (w == XNN_DT_QC4W)
			return qd8_qc4w(cpu, g);
		return w == XNN_DT_QC8W && qd8_qc8w(cpu, false, g);
	default:
		return false;
	}
}

bool xnn_cpu_igemm(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		   struct xnn_gemm_cfg *g)
{
	if (in == XNN_DT_F32)
		return f32_weights(w) && f32_igemm(cpu, g);
	if (in == XNN_DT_QD8)
		return w == XNN_DT_QC8W && qd8_qc8w(cpu, true, g);
	return xnn_cpu_gemm(cpu, in, w, g);
}

/* init_f32_gemm_nr2_config. */
bool xnn_cpu_gemm_nr2(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		      struct xnn_gemm_cfg *g)
{
	if (in != XNN_DT_F32 || !f32_weights(w))
		return false;
	if (cpu->arch == AP_ARCH_ARM64)
		return set(g, 4, 2, 0, 0, "4x2 aarch64 neonfma");
	if (has(cpu, AP_XF_AVX512F))
		return set(g, 7, 16, 0, 0, "7x16 avx512f broadcast");
	if (has(cpu, AP_XF_FMA3))
		return uarch_is(cpu, zen) ? set(g, 4, 8, 0, 0, "4x8 fma3 broadcast") :
					    set(g, 10, 8, 0, 0, "10x8 fma3 broadcast");
	if (has(cpu, AP_XF_AVX))
		return set(g, 5, 8, 0, 0, "5x8 avx broadcast");
	return set(g, 4, 2, 2, 0, "4x2c4 sse");
}

/* cpuinfo's L2 of core 0: this machine's from sysfs, else a typical size of the family */
uint64_t xnn_cpu_l2_bytes(const struct ap_xnn_cpu *cpu)
{
	if (!strcmp(cpu->name, "host")) {
		FILE *fp = fopen("/sys/devices/system/cpu/cpu0/cache/index2/size", "r");
		unsigned long kib = 0;
		char unit = 0;

		if (fp) {
			if (fscanf(fp, "%lu%c", &kib, &unit) < 1)
				kib = 0;
			fclose(fp);
		}
		if (kib)
			return unit == 'M' ? kib << 20 : kib << 10;
	}
	return cpu->arch == AP_ARCH_ARM64 ? 512u << 10 : 1u << 20;
}

uint32_t xnn_cpu_vmulcaddc_tile(const struct ap_xnn_cpu *cpu, enum xnn_dt in)
{
	if (in == XNN_DT_F32)
		return 4;
	if (in == XNN_DT_F16)
		return has(cpu, cpu->arch == AP_ARCH_ARM64 ? AP_XF_NEON_FP16 : AP_XF_FMA3) ? 8 : 0;
	return 0;
}

/* The unipass dwconv kernels a datatype has on the CPU: tiles[i] taps, chan[i]
 * channels; the operator takes the smallest tile that holds the kernel. */
struct dw_list {
	uint32_t n, tiles[4], chan[4];
	const char *family;
};

static bool dw_f32(const struct ap_xnn_cpu *cpu, struct dw_list *l)
{
	if (cpu->arch == AP_ARCH_ARM64) {
		uint32_t c9 = uarch_is(cpu, a55_like) && strcmp(cpu->uarch, "kryo") ? 4 : 8;

		*l = (struct dw_list){ 4, { 3, 4, 9, 25 }, { 8, 8, c9, 8 }, "neonfma" };
		return true;
	}
	if (has(cpu, AP_XF_AVX512F))
		*l = (struct dw_list){ 4, { 3, 4, 9, 25 }, { 16, 16, 16, 16 }, "avx512f" };
	else if (has(cpu, AP_XF_FMA3) || has(cpu, AP_XF_AVX))
		*l = (struct dw_list){ 4, { 3, 4, 9, 25 }, { 16, 16, 16, 16 },
				       has(cpu, AP_XF_FMA3) ? "fma3" : "avx" };
	else
		*l = (struct dw_list){ 4, { 3, 4, 9, 25 }, { 8, 8, 8, 8 }, "sse" };
	return true;
}

static bool dw_list_of(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		       struct dw_list *l)
{
	bool arm = cpu->arch == AP_ARCH_ARM64;
	uint32_t c = has(cpu, AP_XF_AVX512SKX) ? 32 : has(cpu, AP_XF_AVX) ? 16 : 8;
	const char *fam = has(cpu, AP_XF_AVX512SKX) ? "avx512skx mul32" :
			  has(cpu, AP_XF_AVX2) ? "avx2 mul32" : has(cpu, AP_XF_AVX) ? "avx mul16" :
			  has(cpu, AP_XF_SSE41) ? "sse41 mul16" : "sse2 mul16";

	switch (in) {
	case XNN_DT_F32:
		return f32_weights(w) && dw_f32(cpu, l);
	case XNN_DT_F16:
		if (!f32_weights(w) || !has(cpu, arm ? AP_XF_NEON_FP16 : AP_XF_F16C | AP_XF_FMA3))
			return false;
		*l = (struct dw_list){ 4, { 3, 4, 9, 25 }, { 16, 16, 16, 8 },
				       arm ? "neonfp16arith" : "fma3" };
		return true;
	case XNN_DT_QS8:
		if (w != XNN_DT_QS8 && w != XNN_DT_QC8W)
			return false;
		*l = arm ? (struct dw_list){ 3, { 3, 9, 25 }, { 16, 16, 16 }, "neonv8 mla8" } :
			   (struct dw_list){ 3, { 3, 9, 25 }, { c, c, c }, fam };
		return true;
	case XNN_DT_QU8:
		if (w != XNN_DT_QU8)
			return false;
		*l = arm ? (struct dw_list){ 2, { 9, 25 }, { 16, 8 }, "rndnu neon mul8" } :
			   (struct dw_list){ 2, { 9, 25 }, { c, c }, fam };
		return true;
	default:
		return false;
	}
}

bool xnn_cpu_dwconv(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w, uint32_t k,
		    struct xnn_dwconv_cfg *d)
{
	struct dw_list l;

	if (!dw_list_of(cpu, in, w, &l))
		return false;
	for (uint32_t i = 0; i < l.n; i++)
		if (l.tiles[i] >= k) {
			*d = (struct xnn_dwconv_cfg){ .channel_tile = l.chan[i],
				.channel_subtile = l.chan[i], .channel_round = 1,
				.primary_tile = l.tiles[i], .family = l.family };
			return true;
		}
	return false;	/* over 25 taps: the operator runs it as an igemm */
}

/*
 * GetOpActionFp16 of XNNPACK's fp16-to-fp32 fallback: a node with fp16 values keeps them
 * when the CPU has the node's fp16 configs (a fully connected: the gemm; a depthwise
 * convolution: the dwconv; a convolution: the gemm, vmulcaddc and dwconv), else it is
 * rewritten to fp32. A 1x1 convolution the subgraph runs as fully connected is judged
 * here as fully connected (the same answer on every CPU cpu.c names).
 */
bool xnn_cpu_f16_fallback(const struct ap_xnn_cpu *cpu, const struct xnn_node *n)
{
	struct xnn_gemm_cfg g;
	struct xnn_dwconv_cfg d;
	bool gemm = xnn_cpu_gemm(cpu, XNN_DT_F16, XNN_DT_F16, &g);
	bool dw = xnn_cpu_dwconv(cpu, XNN_DT_F16, XNN_DT_F16, 9, &d);

	switch (n->kind) {
	case XNN_K_FC:
	case XNN_K_DECONV:
	case XNN_K_BATCH_MATMUL:
		return !gemm;
	case XNN_K_DWCONV:
		return !dw;
	default:
		return !(gemm && dw && xnn_cpu_vmulcaddc_tile(cpu, XNN_DT_F16));
	}
}
