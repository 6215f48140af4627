// SPDX-License-Identifier: Apache-2.0
/*
 * xnn_preload.so: XNNPACK's allocator, counted from inside the process, for hosts with no
 * bpftrace (the arm64 guest of scripts/vmtest --xnn). LD_PRELOAD it into a Python that
 * runs LiteRT; the child (xnn_child.py) calls xnn_oracle_mark(k) through ctypes at each
 * phase.
 *
 * How it sees the allocator: XNNPACK's default allocator is a table of five function
 * pointers (struct xnn_allocator, context first) named xnn_default_allocator in the .symtab
 * of LiteRT's libpywrap_litert_common.so; xnn_initialize(NULL) copies that table into
 * xnn_params once, and every allocation of XNNPACK goes through the copy. The five
 * functions themselves are tail calls into malloc/realloc/free on both x86-64 and arm64,
 * so a return address in malloc would not name them: instead, on the first mark (after the
 * import, before the interpreter exists) the table is rewritten to point at the hooks
 * below, which call the originals and keep a map of the live blocks (the requested sizes,
 * as the bpftrace oracle counts them). If xnn_params already holds the default table, the
 * copy is rewritten too and the output says "late".
 *
 * Output (XNN_ORACLE_OUT, a file appended to, else stderr), one line a mark:
 *   XNNORACLE mark K live BYTES blocks N total BYTES peak BYTES calls N
 * and at the mark XNN_ORACLE_DUMP (a phase number) every live block:
 *   XNNBLOCK SIZE ALIGN SITE_OFFSET_HEX MARK_AT_ALLOC
 * SITE is the hook's return address less the library's load base: the XNNPACK function
 * that allocated (symbolize it with the .so's .symtab on the host).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LIB_NAME "libpywrap_litert_common.so"

struct xnn_alloc_table {
	void *context;
	void *(*allocate)(void *context, size_t size);
	void *(*reallocate)(void *context, void *pointer, size_t size);
	void (*deallocate)(void *context, void *pointer);
	void *(*aligned_allocate)(void *context, size_t alignment, size_t size);
	void (*aligned_deallocate)(void *context, void *pointer);
};

struct block {
	uintptr_t ptr;		/* 0: empty, 1: deleted */
	size_t size;
	uint32_t align;
	uint32_t mark;
	uintptr_t site;
};

static struct xnn_alloc_table orig;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct block *tab;
static size_t cap, used, nlive;
static size_t live, total, peak, calls;
static uintptr_t base;
static uint32_t cur_mark;
static int installed;
static const char *late = "";

static size_t slot_of(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ULL) & (cap - 1);
}

static void put(uintptr_t p, size_t size, uint32_t align, uintptr_t site);

static void grow(void)
{
	struct block *old = tab;
	size_t oc = cap;

	cap = cap ? cap * 2 : 4096;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		abort();
	used = nlive = 0;
	for (size_t i = 0; i < oc; i++)
		if (old[i].ptr > 1)
			put(old[i].ptr, old[i].size, old[i].align, old[i].site);
	free(old);
}

static void put(uintptr_t p, size_t size, uint32_t align, uintptr_t site)
{
	size_t i;

	if ((used + 1) * 2 > cap)
		grow();
	for (i = slot_of(p); tab[i].ptr > 1; i = (i + 1) & (cap - 1))
		;
	if (tab[i].ptr == 0)
		used++;
	tab[i] = (struct block){ p, size, align, cur_mark, site };
	nlive++;
}

static void track(void *p, size_t size, uint32_t align, void *ra)
{
	if (!p)
		return;
	pthread_mutex_lock(&lock);
	put((uintptr_t)p, size, align, (uintptr_t)ra - base);
	live += size;
	total += size;
	calls++;
	if (live > peak)
		peak = live;
	pthread_mutex_unlock(&lock);
}

static void untrack(void *p)
{
	size_t i;

	if (!p || !cap)
		return;
	pthread_mutex_lock(&lock);
	for (i = slot_of((uintptr_t)p); tab[i].ptr; i = (i + 1) & (cap - 1)) {
		if (tab[i].ptr == (uintptr_t)p) {
			live -= tab[i].size;
			tab[i].ptr = 1;
			nlive--;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

static void *hook_allocate(void *c, size_t size)
{
	void *p = orig.allocate(c, size);

	track(p, size, 0, __builtin_return_address(0));
	return p;
}

static void *hook_reallocate(void *c, void *old, size_t size)
{
	void *p = orig.reallocate(c, old, size);

	if (p || !size)
		untrack(old);
	track(p, size, 0, __builtin_return_address(0));
	return p;
}

static void hook_deallocate(void *c, void *p)
{
	untrack(p);
	orig.deallocate(c, p);
}

static void *hook_aligned_allocate(void *c, size_t align, size_t size)
{
	void *p = orig.aligned_allocate(c, align, size);

	track(p, size, (uint32_t)align, __builtin_return_address(0));
	return p;
}

static void hook_aligned_deallocate(void *c, void *p)
{
	untrack(p);
	orig.aligned_deallocate(c, p);
}

struct found {
	uintptr_t base;
	char path[4096];
};

static int find_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	struct found *f = data;
	const char *n = info->dlpi_name;
	size_t len = strlen(n), ln = strlen(LIB_NAME);

	(void)size;
	if (len >= ln && !strcmp(n + len - ln, LIB_NAME)) {
		f->base = info->dlpi_addr;
		snprintf(f->path, sizeof(f->path), "%s", n);
		return 1;
	}
	return 0;
}

/* the st_value of each name in the ELF file's .symtab (0 where absent) */
static int symtab_lookup(const char *path, const char **names, uintptr_t *vals, int n)
{
	struct stat st;
	const unsigned char *m;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	eh = (const Elf64_Ehdr *)m;
	sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (int s = 0; s < eh->e_shnum; s++) {
		const Elf64_Sym *sym;
		const char *str;
		size_t cnt;

		if (sh[s].sh_type != SHT_SYMTAB)
			continue;
		sym = (const Elf64_Sym *)(m + sh[s].sh_offset);
		str = (const char *)(m + sh[sh[s].sh_link].sh_offset);
		cnt = sh[s].sh_size / sizeof(*sym);
		for (size_t i = 0; i < cnt; i++)
			for (int k = 0; k < n; k++)
				if (!vals[k] && !strcmp(str + sym[i].st_name, names[k]))
					vals[k] = sym[i].st_value;
	}
	munmap((void *)m, st.st_size);
	return 0;
}

static FILE *out(void)
{
	static FILE *f;
	const char *p;

	if (f)
		return f;
	p = getenv("XNN_ORACLE_OUT");
	f = p && *p ? fopen(p, "a") : NULL;
	if (!f)
		f = stderr;
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static int writable(void *addr, size_t len, int prot)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)addr & ~(uintptr_t)(pg - 1);
	uintptr_t e = ((uintptr_t)addr + len + pg - 1) & ~(uintptr_t)(pg - 1);

	return mprotect((void *)a, e - a, prot);
}

static void patch(struct xnn_alloc_table *t)
{
	t->allocate = hook_allocate;
	t->reallocate = hook_reallocate;
	t->deallocate = hook_deallocate;
	t->aligned_allocate = hook_aligned_allocate;
	t->aligned_deallocate = hook_aligned_deallocate;
}

static int install(void)
{
	static const char *names[] = { "xnn_default_allocator", "xnn_params" };
	uintptr_t vals[2] = { 0, 0 };
	struct xnn_alloc_table *def, *params;
	struct found f;

	memset(&f, 0, sizeof(f));
	if (!dl_iterate_phdr(find_lib, &f)) {
		fprintf(out(), "XNNORACLE error %s is not loaded\n", LIB_NAME);
		return -1;
	}
	if (symtab_lookup(f.path, names, vals, 2) || !vals[0] || !vals[1]) {
		fprintf(out(), "XNNORACLE error no xnn_default_allocator/xnn_params in %s\n", f.path);
		return -1;
	}
	base = f.base;
	def = (struct xnn_alloc_table *)(base + vals[0]);
	/* struct xnn_parameters: a uint32_t init_flags, then the allocator (8-aligned) */
	params = (struct xnn_alloc_table *)(base + vals[1] + 8);
	orig = *def;
	if (writable(def, sizeof(*def), PROT_READ | PROT_WRITE)) {
		fprintf(out(), "XNNORACLE error mprotect\n");
		return -1;
	}
	patch(def);
	writable(def, sizeof(*def), PROT_READ);
	if (params->allocate == orig.allocate) {
		patch(params);
		late = " late";
	}
	fprintf(out(), "XNNORACLE installed base 0x%lx default 0x%lx params 0x%lx%s lib %s\n",
		(unsigned long)base, (unsigned long)vals[0], (unsigned long)vals[1], late, f.path);
	return 0;
}

int xnn_oracle_mark(int k)
{
	const char *d = getenv("XNN_ORACLE_DUMP");
	FILE *f = out();

	pthread_mutex_lock(&lock);
	if (!installed)
		installed = install() ? -1 : 1;
	cur_mark = (uint32_t)k;
	fprintf(f, "XNNORACLE mark %d live %zu blocks %zu total %zu peak %zu calls %zu%s\n",
		k, live, nlive, total, peak, calls, late);
	if (d && *d && atoi(d) == k)
		for (size_t i = 0; i < cap; i++)
			if (tab[i].ptr > 1)
				fprintf(f, "XNNBLOCK %zu %u %lx %u\n", tab[i].size, tab[i].align,
					(unsigned long)tab[i].site, tab[i].mark);
	pthread_mutex_unlock(&lock);
	return installed;
}
