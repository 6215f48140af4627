// SPDX-License-Identifier: Apache-2.0
/*
 * bpf_load: an object loaded by its generated loader program. See
 * include/arenaprof/record/bpf_load.h.
 *
 * The loader leaves the fds it created in a context block laid out as a light
 * skeleton's: struct bpf_loader_ctx, one bpf_map_desc a map in the object's order, then
 * one bpf_prog_desc a loaded program in the object's order (libbpf's gen_loader.c).
 *
 * With a BTF file (--btf, btf_custom.h) libbpf loads the object itself: a loader program
 * would have the kernel relocate against its own BTF and ignore the file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/skel_internal.h>

#include "arenaprof/util/err.h"
#include "arenaprof/record/bpf_load.h"
#include "arenaprof/record/btf_custom.h"

#define LOG_SIZE (4u << 20)

static size_t count_maps(struct bpf_object *obj)
{
	struct bpf_map *m;
	size_t n = 0;

	bpf_object__for_each_map(m, obj)
		n++;
	return n;
}

static size_t count_progs(struct bpf_object *obj)
{
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program(p, obj)
		n++;
	return n;
}

/* The global data maps, mapped where libbpf keeps its copies (as its skeleton load does). */
static int map_global_data(struct bpf_object *obj, const struct ap_bpf_loaded *l, char *err)
{
	long page = sysconf(_SC_PAGESIZE);
	struct bpf_map *m;
	size_t i = 0;

	bpf_object__for_each_map(m, obj) {
		size_t vsz, sz;
		void *at = (void *)bpf_map__initial_value(m, &vsz);
		int prot = PROT_READ;

		if (at && (bpf_map__map_flags(m) & BPF_F_MMAPABLE)) {
			sz = (size_t)((vsz + 7) & ~(size_t)7) * bpf_map__max_entries(m);
			sz = (sz + (size_t)page - 1) & ~((size_t)page - 1);
			if (!(bpf_map__map_flags(m) & BPF_F_RDONLY_PROG))
				prot |= PROT_WRITE;
			if (mmap(at, sz, prot, MAP_SHARED | MAP_FIXED, l->map_fd[i], 0) ==
			    MAP_FAILED) {
				int e = errno;

				ap_seterr(err, "mapping %s: %s", bpf_map__name(m), strerror(e));
				return -e;
			}
		}
		i++;
	}
	return 0;
}

/* libbpf's words while it loads with a BTF file: a CO-RE relocation it failed, kept. */
static libbpf_print_fn_t prev_print;
static char core_failed[160];

static int watch_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char *const marks[] = { "failed to resolve CO-RE relocation ",
					     "target candidate search failed for " };
	char *line = NULL;
	va_list aq;
	size_t n;

	/* whole: the verifier's log comes as one message, the relocation inside it */
	va_copy(aq, ap);
	if (level == LIBBPF_WARN && vasprintf(&line, fmt, aq) < 0)
		line = NULL;
	va_end(aq);
	for (size_t i = 0; line && i < 2 && !core_failed[0]; i++) {
		const char *p = strstr(line, marks[i]);

		if (!p)
			continue;
		/* "<byte_off> [375] struct vm_area_struct.vm_flags (0:2 @ offset 32)" */
		p += strlen(marks[i]);
		if (*p == '<' && strchr(p, ' '))
			p = strchr(p, ' ') + 1;
		if (*p == '[' && strchr(p, ' '))
			p = strchr(p, ' ') + 1;
		n = strcspn(p, "\n(:");
		while (n && p[n - 1] == ' ')
			n--;
		snprintf(core_failed, sizeof(core_failed), "%.*s", (int)n, p);
	}
	free(line);
	return prev_print ? prev_print(level, fmt, ap) : 0;
}

/* bpf_object__load with the BTF file, the fds libbpf's (it closes them). */
static int load_custom(struct bpf_object *obj, struct ap_bpf_loaded *l, char *err)
{
	struct bpf_program *p;
	struct utsname u;
	struct bpf_map *m;
	size_t i = 0;
	int ret;

	core_failed[0] = '\0';
	prev_print = libbpf_set_print(watch_print);
	ret = bpf_object__load(obj);
	libbpf_set_print(prev_print);
	if (ret && core_failed[0] && !uname(&u))
		return ap_fail(err, AP_BPF_ECORE, "%s is not this kernel's BTF (uname -r %s): "
			       "CO-RE cannot relocate %s against it: the BTF is probably for "
			       "another kernel", ap_btf_said(), u.release, core_failed);
	if (ret) {
		ap_seterr(err, "%s", strerror(-ret));
		return ret;
	}
	l->borrowed = true;
	bpf_object__for_each_map(m, obj)
		l->map_fd[i++] = bpf_map__fd(m);
	i = 0;
	bpf_object__for_each_program(p, obj)
		l->prog_fd[i++] = bpf_program__autoload(p) ? bpf_program__fd(p) : -1;
	return 0;
}

int ap_bpf_load(struct bpf_object *obj, struct ap_bpf_loaded *l, bool verbose, char *err)
{
	LIBBPF_OPTS(gen_loader_opts, gen);
	struct bpf_load_and_run_opts run = { 0 };
	struct bpf_loader_ctx *ctx;
	struct bpf_map_desc *maps;
	struct bpf_prog_desc *progs;
	struct bpf_program *p;
	size_t i, k = 0, sz;
	char *log = NULL;
	int ret;

	memset(l, 0, sizeof(*l));
	l->obj = obj;
	l->n_maps = count_maps(obj);
	l->n_progs = count_progs(obj);
	if (ap_btf_path()) {
		l->map_fd = calloc(l->n_maps ? l->n_maps : 1, sizeof(int));
		l->prog_fd = calloc(l->n_progs ? l->n_progs : 1, sizeof(int));
		ret = !l->map_fd || !l->prog_fd ? ap_fail(err, -ENOMEM, "out of memory") :
		      load_custom(obj, l, err);
		if (!ret)
			ret = map_global_data(obj, l, err);
		if (ret)
			ap_bpf_unload(l);
		return ret;
	}
	ret = bpf_object__gen_loader(obj, &gen);
	if (!ret)
		ret = bpf_object__load(obj);	/* writes the loader; loads nothing */
	if (ret) {
		ap_seterr(err, "generating the BPF loader: %s", strerror(-ret));
		return ret;
	}
	sz = sizeof(*ctx) + l->n_maps * sizeof(*maps) + l->n_progs * sizeof(*progs);
	ctx = calloc(1, sz);
	l->map_fd = calloc(l->n_maps ? l->n_maps : 1, sizeof(int));
	l->prog_fd = calloc(l->n_progs ? l->n_progs : 1, sizeof(int));
	if (verbose)
		log = malloc(LOG_SIZE);
	if (!ctx || !l->map_fd || !l->prog_fd || (verbose && !log)) {
		ret = -ENOMEM;
		ap_seterr(err, "out of memory");
		goto out;
	}
	ctx->sz = (__u32)sz;
	if (log) {
		log[0] = '\0';
		ctx->log_level = 1;
		ctx->log_size = LOG_SIZE;
		ctx->log_buf = (__u64)(unsigned long)log;
	}
	run.ctx = ctx;
	run.data = gen.data;
	run.data_sz = gen.data_sz;
	run.insns = gen.insns;
	run.insns_sz = gen.insns_sz;
	ret = bpf_load_and_run(&run);
	if (ret) {
		/* run.errstr says which syscall; the errno is the kernel's answer */
		ap_seterr(err, "%s", strerror(-ret));
		if (log && log[0])
			fprintf(stderr, "%s\n", log);
		goto out;
	}
	maps = (struct bpf_map_desc *)(ctx + 1);
	progs = (struct bpf_prog_desc *)(maps + l->n_maps);
	for (i = 0; i < l->n_maps; i++)
		l->map_fd[i] = maps[i].map_fd;
	i = 0;
	bpf_object__for_each_program(p, obj)
		l->prog_fd[i++] = bpf_program__autoload(p) ? progs[k++].prog_fd : -1;
	ret = map_global_data(obj, l, err);
	if (ret)
		ap_bpf_unload(l);
out:
	if (ret) {
		free(l->map_fd);
		free(l->prog_fd);
		memset(l, 0, sizeof(*l));
	}
	free(log);
	free(ctx);
	return ret;
}

int ap_bpf_map_fd(const struct ap_bpf_loaded *l, const struct bpf_map *map)
{
	struct bpf_map *m;
	size_t i = 0;

	bpf_object__for_each_map(m, l->obj) {
		if (m == map)
			return i < l->n_maps ? l->map_fd[i] : -1;
		i++;
	}
	return -1;
}

int ap_bpf_prog_fd(const struct ap_bpf_loaded *l, const struct bpf_program *prog)
{
	struct bpf_program *p;
	size_t i = 0;

	bpf_object__for_each_program(p, l->obj) {
		if (p == prog)
			return i < l->n_progs ? l->prog_fd[i] : -1;
		i++;
	}
	return -1;
}

void ap_bpf_unload(struct ap_bpf_loaded *l)
{
	if (l->borrowed) {
		free(l->map_fd);
		free(l->prog_fd);
		memset(l, 0, sizeof(*l));
		return;
	}
	for (size_t i = 0; l->prog_fd && i < l->n_progs; i++)
		if (l->prog_fd[i] > 0)
			close(l->prog_fd[i]);
	for (size_t i = 0; l->map_fd && i < l->n_maps; i++)
		if (l->map_fd[i] > 0)
			close(l->map_fd[i]);
	free(l->map_fd);
	free(l->prog_fd);
	memset(l, 0, sizeof(*l));
}
