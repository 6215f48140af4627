// SPDX-License-Identifier: Apache-2.0
/*
 * cgroup_session: the sampler of a process's memory cgroup and of the system's memory
 * pressure, for record and the TUI (cgroup_session.h has the contract). It holds
 * memory.current and memory.peak open for its whole life (cgroup.c's kernel facts apply).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/kernel/cgroup_session.h"
#include "arenaprof/util/err.h"
#include "arenaprof/kernel/psi.h"
#include "arenaprof/util/textparse.h"
#include "arenaprof/trace/trace.h"

/* fail(err, EINVAL, ...): every error of this reader, as a negative errno (err.c) */
#define fail(err, e, ...) ap_fail(err, -(e), __VA_ARGS__)

static void msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf for messages: a long path may cut them, which is fine. */
static void msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

#define MAX_NOTES 16
#define NOTE_LEN (AP_ERR_LEN + 128)

enum { F_CURRENT, F_PEAK, F_PSI, F_N };

struct ap_cg_session {
	int pid;
	enum ap_cg_mode mode;
	enum ap_cg_peak peak;
	char dir[AP_CG_PATH_MAX];
	int fd[F_N];			/* held: memory.current, memory.peak, /proc/pressure */
	bool has_psi;
	uint64_t polled_peak;		/* AP_PEAK_POLLED: the largest current since reset */
	bool reported[F_N];		/* a read failure of that file was noted */
	char notes[MAX_NOTES][NOTE_LEN];
	unsigned int n_notes, head;
	unsigned int lost_notes;
	char out[NOTE_LEN];		/* what ap_cg_next_note returned */
};

static void note(struct ap_cg_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct ap_cg_session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->n_notes == MAX_NOTES) {
		s->lost_notes++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s->notes[(s->head + s->n_notes) % MAX_NOTES], NOTE_LEN, fmt, ap);
	va_end(ap);
	s->n_notes++;
}

const char *ap_cg_next_note(struct ap_cg_session *s)
{
	if (!s->n_notes) {
		if (!s->lost_notes)
			return NULL;
		snprintf(s->out, sizeof(s->out), "cgroup sampler: %u more notes were left out",
			 s->lost_notes);
		s->lost_notes = 0;
		return s->out;
	}
	memcpy(s->out, s->notes[s->head], NOTE_LEN);
	s->head = (s->head + 1) % MAX_NOTES;
	s->n_notes--;
	return s->out;
}

static int open_in(const char *dir, const char *file, int flags)
{
	char path[AP_CG_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return open(path, flags | O_CLOEXEC);
}

static void close_fds(struct ap_cg_session *s)
{
	for (int i = 0; i < F_N; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}

/* v2: memory.current and memory.peak of w's cgroup, held open. */
static bool open_v2(struct ap_cg_session *s, const struct ap_cg_where *w, char *why, size_t wlen)
{
	char err[AP_ERR_LEN], path[AP_CG_PATH_MAX + 64];
	struct stat st;

	if (!w->m.has_v2 || !w->mt.has_v2) {
		msg(why, wlen, w->mt.has_v2 ? "process %d has no cgroup v2 path" :
		    "no cgroup v2 is mounted", s->pid);
		return false;
	}
	if (ap_cg_join(w->mt.v2_dir, w->mt.v2_root, w->m.v2, s->dir, sizeof(s->dir), err)) {
		msg(why, wlen, "%s", err);
		return false;
	}
	s->fd[F_CURRENT] = open_in(s->dir, "memory.current", O_RDONLY);
	if (s->fd[F_CURRENT] < 0) {
		int e = errno;

		if (e == ENOENT && !strcmp(w->m.v2, "/"))
			msg(why, wlen, "process %d is in the cgroup v2 root, which has no "
			    "memory.current", s->pid);
		else if (e == ENOENT && w->mt.has_v1_memory &&
			 !ap_cg_dir_list_has(w->mt.v2_dir, "cgroup.controllers", "memory"))
			msg(why, wlen, "the memory controller is bound to cgroup v1 (%s), "
			    "not to cgroup v2 (%s)", w->mt.v1_memory_dir, w->mt.v2_dir);
		else if (e == ENOENT)
			msg(why, wlen, "%s has no memory.current (the memory controller is "
			    "not enabled for it)", s->dir);
		else
			msg(why, wlen, "%s/memory.current: %s", s->dir, strerror(e));
		s->dir[0] = '\0';
		return false;
	}
	s->mode = AP_CG_V2;
	snprintf(path, sizeof(path), "%s/memory.peak", s->dir);
	if (stat(path, &st)) {
		s->peak = AP_PEAK_POLLED;
		s->polled_peak = 0;
		note(s, "%s has no memory.peak (a kernel before 5.19): the cgroup peak is the "
		     "largest memory.current sampled", s->dir);
		return true;
	}
	if (st.st_mode & S_IWUSR) {
		s->fd[F_PEAK] = open(path, O_RDWR | O_CLOEXEC);
		if (s->fd[F_PEAK] >= 0) {
			s->peak = AP_PEAK_RESETTABLE;
			return true;
		}
		note(s, "%s: cannot open for writing (%s): the peak cannot be reset here, it is "
		     "the peak since the cgroup was created", path, strerror(errno));
	} else {
		note(s, "%s is read-only on this kernel (resettable from 6.12): it is the peak "
		     "since the cgroup was created; for a per-run peak use a fresh cgroup per "
		     "run (arenaprof run)", path);
	}
	s->fd[F_PEAK] = open(path, O_RDONLY | O_CLOEXEC);
	s->peak = s->fd[F_PEAK] >= 0 ? AP_PEAK_READONLY : AP_PEAK_NONE;
	return true;
}

static bool open_v1(struct ap_cg_session *s, const struct ap_cg_where *w, char *why, size_t wlen)
{
	char err[AP_ERR_LEN];

	if (!w->m.has_v1_memory || !w->mt.has_v1_memory) {
		msg(why, wlen, "no cgroup v1 memory hierarchy");
		return false;
	}
	if (ap_cg_join(w->mt.v1_memory_dir, w->mt.v1_memory_root, w->m.v1_memory, s->dir,
		       sizeof(s->dir), err)) {
		msg(why, wlen, "%s", err);
		return false;
	}
	s->fd[F_CURRENT] = open_in(s->dir, "memory.usage_in_bytes", O_RDONLY);
	if (s->fd[F_CURRENT] < 0) {
		msg(why, wlen, "%s/memory.usage_in_bytes: %s", s->dir, strerror(errno));
		s->dir[0] = '\0';
		return false;
	}
	s->fd[F_PEAK] = open_in(s->dir, "memory.max_usage_in_bytes", O_RDONLY);
	s->mode = AP_CG_V1;
	s->peak = s->fd[F_PEAK] >= 0 ? AP_PEAK_V1 : AP_PEAK_NONE;
	note(s, "cgroup v1 memory controller (%s): memory.usage_in_bytes and "
	     "memory.max_usage_in_bytes are read, never written: the v1 peak reset is global "
	     "(it would clear the peak for every reader of the cgroup)", s->dir);
	return true;
}

int ap_cg_session_open(struct ap_cg_session **sp, int pid, char *err)
{
	struct ap_cg_session *s;
	char why2[AP_ERR_LEN], why1[AP_ERR_LEN], e[AP_ERR_LEN];
	struct ap_cg_where *w;
	struct ap_psi psi;
	int rc;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	w = calloc(1, sizeof(*w));
	if (!s || !w) {
		free(s);
		free(w);
		return fail(err, ENOMEM, "out of memory");
	}
	s->pid = pid;
	for (int i = 0; i < F_N; i++)
		s->fd[i] = -1;
	rc = ap_cg_read_where(pid, w, err);
	if (rc) {
		free(s);
		free(w);
		return rc;
	}
	if (!open_v2(s, w, why2, sizeof(why2)) && !open_v1(s, w, why1, sizeof(why1))) {
		close_fds(s);
		s->mode = AP_CG_NONE;
		s->peak = AP_PEAK_NONE;
		s->dir[0] = '\0';
		note(s, "no memory cgroup to read for process %d: %s; %s: the cgroup fields "
		     "stay empty", pid, why2, why1);
	}
	free(w);
	s->fd[F_PSI] = open(AP_PSI_SYSTEM_MEMORY, O_RDONLY | O_CLOEXEC);
	if (s->fd[F_PSI] < 0) {
		ap_psi_read(AP_PSI_SYSTEM_MEMORY, &psi, e);	/* for its message */
		note(s, "%s: the PSI fields stay empty", e);
	} else {
		s->has_psi = true;
	}
	*sp = s;
	return 0;
}

enum ap_cg_mode ap_cg_session_mode(const struct ap_cg_session *s)
{
	return s->mode;
}

enum ap_cg_peak ap_cg_session_peak(const struct ap_cg_session *s)
{
	return s->peak;
}

const char *ap_cg_session_dir(const struct ap_cg_session *s)
{
	return s->dir;
}

bool ap_cg_session_has_psi(const struct ap_cg_session *s)
{
	return s->has_psi;
}

/* The cgroup is gone: say so once and read nothing more from it. */
static void lost(struct ap_cg_session *s, int e)
{
	note(s, "cgroup %s was removed (%s): the cgroup fields are empty from now on", s->dir,
	     strerror(e));
	close(s->fd[F_CURRENT]);
	s->fd[F_CURRENT] = -1;
	if (s->fd[F_PEAK] >= 0)
		close(s->fd[F_PEAK]);
	s->fd[F_PEAK] = -1;
	s->mode = AP_CG_NONE;
	s->peak = AP_PEAK_NONE;
}

/*
 * One held file's value: 0, or the negative errno of the read or the parse that failed
 * (-EBADF: the file is not held, its open failed). A failure is noted the first time.
 */
static int read_held(struct ap_cg_session *s, int which, const char *file, uint64_t *v)
{
	char name[AP_CG_PATH_MAX + 64], err[AP_ERR_LEN], *buf;
	size_t len;
	int rc;

	*v = AP_NO_VALUE;
	if (s->fd[which] < 0)
		return -EBADF;
	snprintf(name, sizeof(name), "%s/%s", s->dir, file);
	rc = ap_read_fd(s->fd[which], AP_CG_FILE_CAP, &buf, &len);
	if (rc) {
		if (rc == -ENODEV || rc == -ENOENT) {
			lost(s, -rc);
			return rc;
		}
		rc = ap_cg_sys_fail(name, -rc, "read", err);
		goto noted;
	}
	rc = ap_cg_parse_value(buf, len, name, false, v, err);
	free(buf);
	if (!rc) {
		s->reported[which] = false;
		return 0;
	}
noted:
	if (!s->reported[which])
		note(s, "%s (noted once)", err);
	s->reported[which] = true;
	return rc;
}

/* /proc/pressure/memory through the held fd; a failure is noted the first time. */
static void read_sys_psi(struct ap_cg_session *s, struct ap_psi *p)
{
	char err[AP_ERR_LEN], *buf;
	size_t len;
	int rc;

	ap_psi_init(p);
	if (s->fd[F_PSI] < 0)
		return;
	rc = ap_read_fd(s->fd[F_PSI], 1 << 16, &buf, &len);
	if (rc) {
		ap_cg_sys_fail(AP_PSI_SYSTEM_MEMORY, -rc, "read", err);
		goto noted;
	}
	if (ap_psi_parse(buf, len, AP_PSI_SYSTEM_MEMORY, p, err)) {
		free(buf);
		goto noted;
	}
	free(buf);
	s->reported[F_PSI] = false;
	return;
noted:
	if (!s->reported[F_PSI])
		note(s, "%s (noted once)", err);
	s->reported[F_PSI] = true;
}

/* cg_current and cg_peak of smp */
static void sample_cg(struct ap_cg_session *s, struct ap_rec_sample *smp)
{
	uint64_t v;

	smp->cg_current = smp->cg_peak = AP_NO_VALUE;
	if (s->mode == AP_CG_NONE)
		return;
	if (!read_held(s, F_CURRENT, s->mode == AP_CG_V1 ? "memory.usage_in_bytes" :
		       "memory.current", &v))
		smp->cg_current = v;
	if (s->mode == AP_CG_NONE)
		return;
	if (s->peak == AP_PEAK_POLLED) {
		if (v != AP_NO_VALUE && v > s->polled_peak)
			s->polled_peak = v;
		if (smp->cg_current != AP_NO_VALUE)
			smp->cg_peak = s->polled_peak;
		return;
	}
	if (!read_held(s, F_PEAK, s->mode == AP_CG_V1 ? "memory.max_usage_in_bytes" :
		       "memory.peak", &v))
		smp->cg_peak = v;
}

void ap_cg_sample(struct ap_cg_session *s, struct ap_rec_sample *smp)
{
	struct ap_psi p;

	read_sys_psi(s, &p);
	smp->psi_some_avg10 = p.some.avg10;
	smp->psi_full_avg10 = p.full.avg10;
	smp->psi_some_total = p.some.total_us;
	smp->psi_full_total = p.full.total_us;
	sample_cg(s, smp);
}

/* v1 prints "no limit" as a huge page-aligned number (LONG_MAX rounded down to pages) */
#define V1_UNLIMITED_FROM (1ULL << 62)

void ap_cg_snapshot(struct ap_cg_session *s, struct ap_cg_snapshot *snap)
{
	struct ap_rec_sample smp;
	char err[AP_ERR_LEN], path[AP_CG_PATH_MAX + 64];

	memset(snap, 0xff, sizeof(*snap));
	read_sys_psi(s, &snap->system);
	ap_psi_init(&snap->pressure);
	sample_cg(s, &smp);
	snap->current = smp.cg_current;
	snap->peak = smp.cg_peak;
	if (s->mode == AP_CG_NONE)
		return;
	ap_cg_read_stat(s->dir, &snap->stat, err);
	if (s->mode == AP_CG_V1) {
		if (!ap_cg_read_value(s->dir, "memory.limit_in_bytes", false, &snap->max, err) &&
		    snap->max >= V1_UNLIMITED_FROM)
			snap->max = AP_CG_UNLIMITED;
		return;
	}
	ap_cg_read_value(s->dir, "memory.max", true, &snap->max, err);
	ap_cg_read_value(s->dir, "memory.high", true, &snap->high, err);
	ap_cg_read_value(s->dir, "memory.min", false, &snap->min, err);
	ap_cg_read_value(s->dir, "memory.low", false, &snap->low, err);
	ap_cg_read_events(s->dir, false, &snap->events, err);
	ap_cg_read_events(s->dir, true, &snap->events_local, err);
	snprintf(path, sizeof(path), "%s/memory.pressure", s->dir);
	ap_psi_read(path, &snap->pressure, err);
}

int ap_cg_reset_peak(struct ap_cg_session *s, char *err)
{
	static const char reset[] = "reset\n";
	ssize_t w;
	uint64_t v;
	int e;

	switch (s->peak) {
	case AP_PEAK_RESETTABLE:
		do {
			w = write(s->fd[F_PEAK], reset, sizeof(reset) - 1);
		} while (w < 0 && errno == EINTR);
		if (w >= 0)
			return 0;
		e = errno;
		if (e == ENODEV || e == ENOENT) {
			lost(s, e);
			return fail(err, ENODEV, "cgroup %s was removed", s->dir);
		}
		return fail(err, EOPNOTSUPP, "%s/memory.peak: the reset was refused (%s): the "
			    "kernel cannot reset it (6.12+ can)", s->dir, strerror(e));
	case AP_PEAK_POLLED:
		if (!read_held(s, F_CURRENT, "memory.current", &v))
			s->polled_peak = v;
		else
			s->polled_peak = 0;
		return 0;
	case AP_PEAK_READONLY:
		return fail(err, EOPNOTSUPP, "%s/memory.peak cannot be reset on this kernel "
			    "(read-only before 6.12): it is the peak since the cgroup was "
			    "created; for a per-run peak use a fresh cgroup per run "
			    "(arenaprof run)", s->dir);
	case AP_PEAK_V1:
		return fail(err, EOPNOTSUPP, "cgroup v1: the only reset of %s/"
			    "memory.max_usage_in_bytes is global (writing 0 clears it for every "
			    "reader), so arenaprof does not do it; per-run peaks need cgroup v2 "
			    "(arenaprof run) or VmHWM (clear_refs)", s->dir);
	case AP_PEAK_NONE:
		break;
	}
	if (s->mode == AP_CG_NONE)
		return fail(err, EOPNOTSUPP, "no memory cgroup is read for process %d: no peak "
			    "to reset", s->pid);
	return fail(err, EOPNOTSUPP, "%s: memory.peak cannot be read or reset", s->dir);
}

void ap_cg_session_close(struct ap_cg_session *s)
{
	if (!s)
		return;
	close_fds(s);
	free(s);
}
