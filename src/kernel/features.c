// SPDX-License-Identifier: Apache-2.0
/*
 * features: the feature list of `arenaprof check` and the probes of what the kernel shows
 * in files (include/arenaprof/kernel/features.h). Each probe does what the face that needs
 * the feature does: reads the file it reads, writes what it writes (to this process's own
 * files only), through the same functions (procfs.h, cgroup.h, psi.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arenaprof/kernel/cgroup.h"
#include "arenaprof/kernel/cgroup_run.h"
#include "arenaprof/kernel/features.h"
#include "arenaprof/kernel/procfs.h"
#include "arenaprof/kernel/psi.h"

#define U AP_FACE_UNAVAILABLE
#define D AP_FACE_DEGRADED

void ap_features_init(struct ap_features *fs)
{
	struct utsname u;

	memset(fs, 0, sizeof(*fs));
	if (uname(&u)) {
		snprintf(fs->kernel, sizeof(fs->kernel), "unknown");
		snprintf(fs->arch, sizeof(fs->arch), "unknown");
		return;
	}
	snprintf(fs->kernel, sizeof(fs->kernel), "%s", u.release);
	snprintf(fs->arch, sizeof(fs->arch), "%s", u.machine);
}

struct ap_feature *ap_features_add(struct ap_features *fs, const char *name,
				   const char *affects, const char *kernel_option)
{
	static struct ap_feature spare;	/* the list full (a bug): probes need not check */
	struct ap_feature *f = fs->n < AP_FEAT_MAX ? &fs->f[fs->n++] : &spare;

	memset(f, 0, sizeof(*f));
	f->name = name;
	f->affects = affects;
	f->kernel_option = kernel_option;
	return f;
}

void ap_feature_set(struct ap_feature *f, enum ap_feat_status st, const char *fmt, ...)
{
	va_list ap;

	f->status = st;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
}

const struct ap_feature *ap_features_find(const struct ap_features *fs, const char *name)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].name, name))
			return &fs->f[i];
	return NULL;
}

const char *ap_feat_status_name(enum ap_feat_status st)
{
	switch (st) {
	case AP_FEAT_OK:
		return "ok";
	case AP_FEAT_MISSING:
		return "missing";
	case AP_FEAT_REFUSED:
		return "refused";
	}
	return "?";
}

const char *ap_face_name(enum ap_face f)
{
	static const char *const names[AP_FACE_N] = { "record", "top", "run", "plan" };

	return f < AP_FACE_N ? names[f] : "?";
}

const char *ap_face_state_name(enum ap_face_state s)
{
	switch (s) {
	case AP_FACE_OK:
		return "ok";
	case AP_FACE_DEGRADED:
		return "degraded";
	case AP_FACE_UNAVAILABLE:
		return "unavailable";
	}
	return "?";
}

/* A feature added with its costs to record, top and run. */
static struct ap_feature *add(struct ap_features *fs, const char *name, const char *affects,
			      const char *option, enum ap_face_state rec, enum ap_face_state top,
			      enum ap_face_state run)
{
	struct ap_feature *f = ap_features_add(fs, name, affects, option);

	f->cost[AP_FACE_RECORD] = rec;
	f->cost[AP_FACE_TOP] = top;
	f->cost[AP_FACE_RUN] = run;
	return f;
}

static void probe_uprobes(struct ap_features *fs)
{
	struct ap_feature *f = add(fs, "uprobes", "record and top run without run and operator "
				   "markers (--run-probe, --op-probe, LiteRT's invoke found by "
				   "itself) and without the allocation probe: no runs or "
				   "operators, the arena found by the mapping rule",
				   "CONFIG_UPROBES=y (CONFIG_UPROBE_EVENTS=y)", D, D, 0);
	const char *path = "/sys/bus/event_source/devices/uprobe/type";
	char buf[32] = "";
	FILE *fp = fopen(path, "re");

	if (!fp) {
		ap_feature_set(f, AP_FEAT_MISSING, "no uprobe PMU: %s: %s", path, strerror(errno));
		return;
	}
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	ap_feature_set(f, AP_FEAT_OK, "uprobe PMU, perf type %s", buf[0] ? buf : "?");
}

/* Is a file system of type fstype mounted? dir gets its first mount point. */
static bool mounted(const char *fstype, char *dir, size_t len)
{
	char line[1024], dev[256], mnt[512], type[64];
	FILE *fp = fopen("/proc/mounts", "re");
	bool found = false;

	if (!fp)
		return false;
	while (!found && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%255s %511s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, fstype)) {
			snprintf(dir, len, "%s", mnt);
			found = true;
		}
	fclose(fp);
	return found;
}

static void probe_tracefs(struct ap_features *fs)
{
	struct ap_feature *f = add(fs, "tracefs", "nothing: uprobes attach through the uprobe "
				   "PMU and tracepoints through BTF; only listing trace events "
				   "needs it", "CONFIG_TRACING=y; mount -t tracefs nodev "
				   "/sys/kernel/tracing", 0, 0, 0);
	char dir[512];

	if (mounted("tracefs", dir, sizeof(dir)))
		ap_feature_set(f, AP_FEAT_OK, "mounted at %s", dir);
	else
		ap_feature_set(f, AP_FEAT_MISSING, "not mounted (/proc/mounts has no tracefs)");
}

/* A cgroup directory with a memory.peak under the v2 mount: this process's, or a child of
 * the root (the root cgroup has none). path gets memory.peak's path; false for none. */
static bool find_peak(const struct ap_cg_where *w, char *path, size_t len)
{
	char dir[AP_CG_PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (w->m.has_v2 && !ap_cg_join(w->mt.v2_dir, w->mt.v2_root, w->m.v2, dir, sizeof(dir),
				       NULL)) {
		snprintf(path, len, "%s/memory.peak", dir);
		if (!access(path, F_OK))
			return true;
	}
	d = opendir(w->mt.v2_dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.') {
			if (snprintf(path, len, "%s/%s/memory.peak", w->mt.v2_dir,
				     de->d_name) < (int)len)
				found = !access(path, F_OK);
		}
	closedir(d);
	return found;
}

static void probe_peak(struct ap_features *fs, const struct ap_cg_where *w, bool memcg)
{
	struct ap_feature *f = add(fs, "memory_peak", "the cgroup peak is the largest "
				   "memory.current sampled (record, top) or polled (run), a lower "
				   "bound", "Linux 5.19+ with CONFIG_MEMCG=y", D, D, D);
	char path[AP_CG_PATH_MAX + 64];
	int major = 0, minor = 0;

	sscanf(fs->kernel, "%d.%d", &major, &minor);
	if (!memcg)
		ap_feature_set(f, AP_FEAT_MISSING, "no cgroup v2 memory controller here to show "
			       "it (this kernel, %d.%d, is %s 5.19)", major, minor,
			       major > 5 || (major == 5 && minor >= 19) ? "at least" : "before");
	else if (find_peak(w, path, sizeof(path)))
		ap_feature_set(f, AP_FEAT_OK, "%s", path);
	else
		ap_feature_set(f, AP_FEAT_MISSING, "no memory.peak under %s (Linux %d.%d)",
			       w->mt.v2_dir, major, minor);
}

static void probe_cgroup(struct ap_features *fs)
{
	struct ap_feature *v2 = add(fs, "cgroup_v2", "run cannot run (a fresh cgroup v2 per "
				    "run); record and top read the cgroup v1 memory hierarchy, if "
				    "any, or no cgroup fields",
				    "CONFIG_CGROUPS=y; systemd.unified_cgroup_hierarchy=1 or mount "
				    "-t cgroup2", D, D, U);
	struct ap_feature *mem = add(fs, "memcg_v2", "run cannot run; record and top read the "
				     "cgroup v1 memory hierarchy, if any, or no cgroup fields",
				     "CONFIG_MEMCG=y; the memory controller not bound to cgroup "
				     "v1, no cgroup_disable=memory", D, D, U);
	struct ap_cg_where *w = calloc(1, sizeof(*w));
	char err[AP_ERR_LEN], dir[AP_CG_PATH_MAX];
	bool memcg = false;

	if (!w || ap_cg_read_where(getpid(), w, err)) {
		if (!w)
			snprintf(err, sizeof(err), "out of memory");
		ap_feature_set(v2, AP_FEAT_MISSING, "%s", err);
		ap_feature_set(mem, AP_FEAT_MISSING, "%s", err);
		free(w);
		return;
	}
	if (!w->mt.has_v2) {
		ap_feature_set(v2, AP_FEAT_MISSING, "no cgroup2 file system mounted%s%s",
			       w->mt.has_v1_memory ? "; cgroup v1 memory at " : "",
			       w->mt.has_v1_memory ? w->mt.v1_memory_dir : "");
		ap_feature_set(mem, AP_FEAT_MISSING, "no cgroup v2");
	} else {
		ap_feature_set(v2, AP_FEAT_OK, "mounted at %s%s%s", w->mt.v2_dir,
			       w->mt.has_v1_memory ? " (hybrid: cgroup v1 memory at " : "",
			       w->mt.has_v1_memory ? w->mt.v1_memory_dir : "");
		if (w->mt.has_v1_memory)
			strncat(v2->detail, ")", sizeof(v2->detail) - strlen(v2->detail) - 1);
		memcg = ap_cg_dir_list_has(w->mt.v2_dir, "cgroup.controllers", "memory");
		/* what run itself checks, with its own words */
		if (ap_cg_v2_parent(getpid(), dir, sizeof(dir), err))
			ap_feature_set(mem, memcg ? AP_FEAT_OK : AP_FEAT_MISSING,
				       "%s%s", memcg ? "in cgroup.controllers, but run " : "", err);
		else
			ap_feature_set(mem, AP_FEAT_OK, "in %s/cgroup.controllers; run's parent "
				       "cgroup: %s", w->mt.v2_dir, dir);
	}
	probe_peak(fs, w, memcg);
	free(w);
}

static void probe_psi(struct ap_features *fs)
{
	struct ap_feature *f = add(fs, "psi", "no memory pressure in record's and top's "
				   "samples, no top --psi-alarm, no run --psi-trigger",
				   "CONFIG_PSI=y, and psi=1 with CONFIG_PSI_DEFAULT_DISABLED",
				   D, D, D);
	char err[AP_ERR_LEN];
	struct ap_psi p;

	if (ap_psi_read(AP_PSI_SYSTEM_MEMORY, &p, err))
		ap_feature_set(f, AP_FEAT_MISSING, "%s", err);
	else
		ap_feature_set(f, AP_FEAT_OK, "%s: some avg10=%llu.%02llu%%",
			       AP_PSI_SYSTEM_MEMORY, (unsigned long long)p.some.avg10 / 100,
			       (unsigned long long)p.some.avg10 % 100);
}

static void probe_procfs(struct ap_features *fs)
{
	struct ap_feature *sm = add(fs, "smaps_rollup", "no Rss/Pss breakdown (anonymous, "
				    "file, shmem) in record's and top's samples: VmRSS only",
				    "CONFIG_PROC_PAGE_MONITOR=y, Linux 4.14+", D, D, 0);
	struct ap_feature *cr = add(fs, "clear_refs", "top's r cannot reset VmHWM: the peak is "
				    "since exec", "CONFIG_PROC_PAGE_MONITOR=y, Linux 4.0+",
				    0, D, 0);
	char err[AP_ERR_LEN];
	struct ap_smaps s;
	int rc;

	if (ap_procfs_smaps_rollup(getpid(), &s, err))
		ap_feature_set(sm, AP_FEAT_MISSING, "%s", err);
	else
		ap_feature_set(sm, AP_FEAT_OK, "/proc/%d/smaps_rollup read (Rss %llu KiB)",
			       (int)getpid(), (unsigned long long)s.rss / 1024);
	/* "5" resets this process's own VmHWM to its VmRSS: nothing else changes */
	rc = ap_procfs_reset_hwm(getpid(), err);
	if (rc)
		ap_feature_set(cr, rc == -EPERM || rc == -EACCES ? AP_FEAT_REFUSED :
			       AP_FEAT_MISSING, "%s", err);
	else
		ap_feature_set(cr, AP_FEAT_OK, "/proc/%d/clear_refs took 5 (VmHWM reset)",
			       (int)getpid());
}

void ap_features_probe_files(struct ap_features *fs)
{
	probe_uprobes(fs);
	probe_tracefs(fs);
	probe_cgroup(fs);
	probe_psi(fs);
	probe_procfs(fs);
}

/* The order of the table: what record needs first, the BPF side, then the samplers'. */
static const char *const order[] = {
	"btf", "bpf", "kernel_btf", "ringbuf", "bpf_find_vma", "uprobes", "tp_btf", "tracepoint",
	"fentry", "perf_events", "tracefs", "cgroup_v2", "memcg_v2", "memory_peak", "psi",
	"smaps_rollup", "clear_refs",
};

static size_t rank_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(order[i], name))
			break;
	return i;
}

void ap_features_sort(struct ap_features *fs)
{
	/* insertion sort: stable, and the list is short */
	for (size_t i = 1; i < fs->n; i++) {
		struct ap_feature t = fs->f[i];
		size_t j = i, r = rank_of(t.name);

		for (; j > 0 && rank_of(fs->f[j - 1].name) > r; j--)
			fs->f[j] = fs->f[j - 1];
		fs->f[j] = t;
	}
}

int ap_features_judge(struct ap_features *fs)
{
	int first = 0, best = 0, worst = 0;

	for (int k = 0; k < AP_FACE_N; k++)
		fs->face[k] = AP_FACE_OK;
	for (size_t i = 0; i < fs->n; i++) {
		const struct ap_feature *f = &fs->f[i];

		if (f->method_rank) {
			if (!first || f->method_rank < first)
				first = f->method_rank;
			if (f->status == AP_FEAT_OK && (!best || f->method_rank < best))
				best = f->method_rank;
		}
		if (f->status == AP_FEAT_OK)
			continue;
		for (int k = 0; k < AP_FACE_N; k++)
			if (f->cost[k] > fs->face[k])
				fs->face[k] = f->cost[k];
	}
	if (first) {
		enum ap_face_state m = !best ? U : best == first ? AP_FACE_OK : D;

		for (int k = AP_FACE_RECORD; k <= AP_FACE_TOP; k++)
			if (m > fs->face[k])
				fs->face[k] = m;
	}
	if (fs->top_procfs && fs->face[AP_FACE_TOP] == U)
		fs->face[AP_FACE_TOP] = D;
	fs->face[AP_FACE_PLAN] = AP_FACE_OK;	/* a model file, nothing of the kernel's */
	for (int k = 0; k < AP_FACE_N; k++)
		if ((int)fs->face[k] > worst)
			worst = (int)fs->face[k];
	return worst;
}
