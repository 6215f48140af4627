// SPDX-License-Identifier: Apache-2.0
/*
 * symbols: uprobe targets from ELF symbol tables.
 *
 * The ELF side is elfutils' libelf (gelf_* accessors), not hand parsing: it handles
 * 32/64-bit and either byte order, section and segment tables, compressed or odd
 * layouts, and reads through mmap. Both .dynsym and .symtab are searched, local symbols
 * included: LiteRT's Python wheel has Interpreter::Invoke only as a local .symtab entry
 * of libpywrap_litert_common.so.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"
#include "arenaprof/record/symbols.h"

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_file_open(struct elf_file *f, const char *path, char *err)
{
	f->fd = -1;
	f->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ap_fail(err, -EINVAL, "libelf: %s", elf_errmsg(-1));
	/* a regular file only: a trace names any path, and a FIFO would block forever */
	f->fd = ap_infile_open(path, NULL, err);
	if (f->fd < 0)
		return f->fd;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		ap_seterr(err, "%s: not an ELF file", path);
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		f->elf = NULL;
		f->fd = -1;
		return -EINVAL;
	}
	return 0;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

static bool is_defined_func(const GElf_Sym *sym)
{
	return GELF_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_shndx != SHN_UNDEF &&
	       sym->st_value != 0;
}

/*
 * Calls fn for every defined function symbol of .dynsym and .symtab; fn returning
 * non-zero stops the walk, and that value is returned.
 */
static int for_each_func(Elf *elf, int (*fn)(void *ctx, const char *name, const GElf_Sym *sym),
			 void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM)
			continue;
		if (!shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			int ret;

			if (!gelf_getsym(data, (int)i, &sym) || !is_defined_func(&sym))
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			ret = fn(ctx, name, &sym);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Virtual address -> file offset, through the PT_LOAD segment holding it. */
static int vaddr_to_offset(Elf *elf, const GElf_Sym *sym, uint64_t *off)
{
	size_t i, nphdr;
	Elf_Scn *scn;
	GElf_Shdr shdr;

	if (elf_getphdrnum(elf, &nphdr) == 0) {
		for (i = 0; i < nphdr; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (sym->st_value >= ph.p_vaddr &&
			    sym->st_value < ph.p_vaddr + ph.p_filesz) {
				*off = sym->st_value - ph.p_vaddr + ph.p_offset;
				return 0;
			}
		}
	}
	/* No program headers (a relocatable object): go through the section. */
	scn = elf_getscn(elf, sym->st_shndx);
	if (scn && gelf_getshdr(scn, &shdr) && shdr.sh_type != SHT_NOBITS &&
	    sym->st_value >= shdr.sh_addr && sym->st_value < shdr.sh_addr + shdr.sh_size) {
		*off = sym->st_value - shdr.sh_addr + shdr.sh_offset;
		return 0;
	}
	return -EINVAL;
}

struct lookup_ctx {
	const char *want;
	GElf_Sym sym;
};

static int match_name(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct lookup_ctx *lc = ctx;

	if (strcmp(name, lc->want))
		return 0;
	lc->sym = *sym;
	return 1;
}

int ap_symbols_lookup(const char *elf_path, const char *symbol, uint64_t *file_offset,
		      char *err)
{
	struct lookup_ctx lc = { .want = symbol };
	struct elf_file f;
	int ret;

	ret = elf_file_open(&f, elf_path, err);
	if (ret)
		return ret;
	if (!for_each_func(f.elf, match_name, &lc))
		ret = ap_fail(err, -ENOENT, "%s: no function symbol %s", elf_path, symbol);
	else if (vaddr_to_offset(f.elf, &lc.sym, file_offset))
		ret = ap_fail(err, -EINVAL, "%s: %s at 0x%llx is in no loadable segment",
			      elf_path, symbol, (unsigned long long)lc.sym.st_value);
	elf_file_close(&f);
	return ret;
}

/*
 * LiteRT's run entry points, by API. A group is kept only when the groups it stands
 * behind are absent from the file, because every probed call costs two traps (about 8 us
 * each on the development VM): C++ Interpreter::Invoke where CompiledModel's Run is (in
 * the wheel its only caller is that Run: measured with bpftrace), the exported
 * CompiledModel C API where that internal Run is stripped (libLiteRt.so), XNNPACK's
 * xnn_invoke_runtime where no LiteRT API is (a program that drives XNNPACK itself;
 * inside LiteRT it runs once per delegated partition).
 */
enum { G_LITERT, G_CXX, G_CM_CAPI, G_XNNPACK, N_GROUPS };

static const struct run_sym {
	const char *name;
	bool prefix;		/* name is the start of a mangled name (its arguments vary) */
	int group;
	const char *api;
} run_syms[] = {
	{ "_ZN6tflite19interpreter_wrapper18InterpreterWrapper6InvokeEi", false, G_LITERT,
	  "Python Interpreter.invoke" },
	{ "TfLiteInterpreterInvoke", false, G_LITERT, "C API TfLiteInterpreterInvoke" },
	{ "_ZN6tflite4impl11Interpreter6InvokeEv", false, G_CXX,
	  "C++ tflite::Interpreter::Invoke" },
	{ "_ZN6tflite11Interpreter6InvokeEv", false, G_CXX,
	  "C++ tflite::Interpreter::Invoke (older TF)" },
	{ "_ZN20LiteRtCompiledModelT3RunE", true, G_LITERT,
	  "CompiledModel, every API (Python run_by_index/run_by_name, C++, C)" },
	{ "LiteRtRunCompiledModel", false, G_CM_CAPI, "CompiledModel C API" },
	{ "LiteRtRunCompiledModelWithOptions", false, G_CM_CAPI, "CompiledModel C API" },
	{ "LiteRtRunCompiledModelWithSchedulingInfo", false, G_CM_CAPI, "CompiledModel C API" },
	{ "LiteRtRunCompiledModelAsync", false, G_CM_CAPI, "CompiledModel C API (async)" },
	{ "LiteRtRunCompiledModelAsyncWithOptions", false, G_CM_CAPI,
	  "CompiledModel C API (async)" },
	{ "LiteRtRunCompiledModelAsyncWithSchedulingInfo", false, G_CM_CAPI,
	  "CompiledModel C API (async)" },
	{ "xnn_invoke_runtime", false, G_XNNPACK, "XNNPACK xnn_invoke_runtime" },
};
#define N_RUN_SYMS (sizeof(run_syms) / sizeof(run_syms[0]))

struct runs_ctx {
	struct ap_run_entry *out;
	size_t max, n;
	bool group[N_GROUPS];
	bool internal_run;	/* LiteRtCompiledModelT::Run is there */
};

static bool have_entry(const struct runs_ctx *rc, const char *name)
{
	for (size_t i = 0; i < rc->n; i++)
		if (!strcmp(rc->out[i].symbol, name))
			return true;
	return false;
}

static int match_runs(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct runs_ctx *rc = ctx;

	(void)sym;
	for (size_t i = 0; i < N_RUN_SYMS; i++) {
		const struct run_sym *r = &run_syms[i];

		if (r->prefix ? strncmp(name, r->name, strlen(r->name)) : strcmp(name, r->name))
			continue;
		if (strlen(name) >= sizeof(rc->out[0].symbol) || have_entry(rc, name) ||
		    rc->n == rc->max)
			return 0;	/* too long to be one of ours, or seen in the other table */
		snprintf(rc->out[rc->n].symbol, sizeof(rc->out[0].symbol), "%s", name);
		rc->out[rc->n].api = r->api;
		rc->out[rc->n].group = r->group;
		rc->n++;
		rc->group[r->group] = true;
		if (r->prefix)
			rc->internal_run = true;
		return 0;
	}
	return 0;
}

int ap_symbols_find_runs(const char *elf_path, struct ap_run_entry *out, size_t max)
{
	struct runs_ctx rc = { .out = out, .max = max };
	struct elf_file f;
	size_t i, k = 0;
	int ret = elf_file_open(&f, elf_path, NULL);

	if (ret)
		return ret;
	for_each_func(f.elf, match_runs, &rc);
	elf_file_close(&f);
	/* keep a group only where the groups it stands behind are absent */
	for (i = 0; i < rc.n; i++) {
		int g = out[i].group;

		if ((g == G_CM_CAPI || g == G_CXX) && rc.internal_run)
			continue;
		if (g == G_XNNPACK && (rc.group[G_LITERT] || rc.group[G_CXX] ||
				       rc.group[G_CM_CAPI]))
			continue;
		out[k++] = out[i];
	}
	return (int)k;
}

static const char *const xnn_alloc_names[AP_XNN_N_SYMS] = {
	"xnn_allocate", "xnn_reallocate", "xnn_aligned_allocate", "xnn_deallocate",
	"xnn_aligned_deallocate",
};

struct xnn_ctx {
	Elf *elf;
	uint64_t *off;
	unsigned int found;	/* a bit a symbol */
};

static int match_xnn(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct xnn_ctx *xc = ctx;

	if (strncmp(name, "xnn_", 4))
		return 0;
	for (int i = 0; i < AP_XNN_N_SYMS; i++)
		if (!(xc->found & (1u << i)) && !strcmp(name, xnn_alloc_names[i]) &&
		    !vaddr_to_offset(xc->elf, sym, &xc->off[i]))
			xc->found |= 1u << i;
	return xc->found == (1u << AP_XNN_N_SYMS) - 1;
}

int ap_symbols_find_xnn_allocator(const char *elf_path, uint64_t off[AP_XNN_N_SYMS])
{
	struct elf_file f;
	struct xnn_ctx xc = { .off = off };
	int ret = elf_file_open(&f, elf_path, NULL);

	if (ret)
		return ret;
	xc.elf = f.elf;
	ret = for_each_func(f.elf, match_xnn, &xc);
	elf_file_close(&f);
	return ret ? 1 : 0;
}

/* File offset -> virtual address, through the PT_LOAD segment holding it. */
static int offset_to_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
	size_t i, nphdr;

	if (elf_getphdrnum(elf, &nphdr))
		return -EINVAL;
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

struct at_ctx {
	uint64_t vaddr;
	GElf_Sym sym;
	const char *name;
	bool found;
};

static int match_at(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct at_ctx *ac = ctx;

	if (ac->vaddr < sym->st_value || ac->vaddr >= sym->st_value + (sym->st_size ?
								       sym->st_size : 1))
		return 0;
	/* the tightest symbol that holds it (aliases and nested labels) */
	if (!ac->found || sym->st_value > ac->sym.st_value) {
		ac->sym = *sym;
		ac->name = name;
		ac->found = true;
	}
	return 0;
}

int ap_symbols_name_at(const char *elf_path, uint64_t inode, uint64_t file_offset, char *name,
		       size_t len, uint64_t *delta)
{
	struct at_ctx ac = { 0 };
	struct elf_file f;
	struct stat st;
	int ret = elf_file_open(&f, elf_path, NULL);

	if (ret)
		return ret;
	if (inode && fstat(f.fd, &st))
		ret = -errno;
	else if (inode && (uint64_t)st.st_ino != inode)
		ret = -ESTALE;
	if (ret) {
		elf_file_close(&f);
		return ret;
	}
	ret = offset_to_vaddr(f.elf, file_offset, &ac.vaddr);
	if (!ret) {
		ret = -ENOENT;
		for_each_func(f.elf, match_at, &ac);
		if (ac.found && len) {
			/* the name points into the ELF data: copy before closing */
			snprintf(name, len, "%s", ac.name);
			*delta = ac.vaddr - ac.sym.st_value;
			ret = 0;
		}
	}
	elf_file_close(&f);
	return ret;
}

struct batch_ctx {
	const uint64_t *vaddr;	/* sorted ascending */
	size_t n;
	GElf_Sym *sym;		/* the tightest symbol found for each */
	const char **name;
};

static int match_batch(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct batch_ctx *bc = ctx;
	uint64_t end = sym->st_value + (sym->st_size ? sym->st_size : 1);
	size_t lo = 0, hi = bc->n;

	while (lo < hi) {	/* the first address at or above the symbol */
		size_t mid = (lo + hi) / 2;

		if (bc->vaddr[mid] < sym->st_value)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < bc->n && bc->vaddr[i] < end; i++)
		if (!bc->name[i] || sym->st_value > bc->sym[i].st_value) {
			bc->sym[i] = *sym;
			bc->name[i] = name;
		}
	return 0;
}

int ap_symbols_names_at(const char *elf_path, uint64_t inode, const uint64_t *file_offset,
			size_t n, char **names)
{
	struct batch_ctx bc = { .n = n };
	uint64_t *va = calloc(n + 1, sizeof(*va));
	struct elf_file f;
	struct stat st;
	int ret = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		names[i] = NULL;
	bc.sym = calloc(n + 1, sizeof(*bc.sym));
	bc.name = calloc(n + 1, sizeof(*bc.name));
	if (!va || !bc.sym || !bc.name)
		goto out;
	ret = elf_file_open(&f, elf_path, NULL);
	if (ret)
		goto out;
	if (inode && (fstat(f.fd, &st) || (uint64_t)st.st_ino != inode)) {
		ret = -ESTALE;
		goto close;
	}
	for (size_t i = 0; i < n; i++)
		if (offset_to_vaddr(f.elf, file_offset[i], &va[i]))
			va[i] = UINT64_MAX;	/* in no segment: matches no symbol */
	for (size_t i = 1; i < n; i++)
		if (va[i] < va[i - 1]) {
			ret = -EINVAL;	/* the caller's promise: sorted offsets */
			goto close;
		}
	bc.vaddr = va;
	for_each_func(f.elf, match_batch, &bc);
	ret = 0;
	for (size_t i = 0; i < n && !ret; i++)
		if (bc.name[i] && !(names[i] = strdup(bc.name[i])))
			ret = -ENOMEM;
close:
	elf_file_close(&f);
out:
	free(va);
	free(bc.sym);
	free(bc.name);
	return ret;
}
