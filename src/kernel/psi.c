// SPDX-License-Identifier: Apache-2.0
/*
 * psi: pressure files and triggers (psi.h has the contract).
 *
 * Kernel facts this relies on (kernel/sched/psi.c, kernel/cgroup/cgroup.c, fs/kernfs):
 * - a trigger is a string written to an open pressure file; the kernel keeps it with that
 *   open file, so one fd holds one trigger (a second write is EBUSY) and closing the fd
 *   removes it;
 * - poll() reports EPOLLPRI when it fired since the last poll, and
 *   DEFAULT_POLLMASK | EPOLLERR | EPOLLPRI when the trigger is gone (psi disabled, or the
 *   cgroup file was drained on rmdir): EPOLLERR decides;
 * - /proc/pressure/ is not created at all with psi=0; a cgroup's memory.pressure then
 *   fails with EOPNOTSUPP.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/kernel/psi.h"
#include "arenaprof/util/textparse.h"

#define PSI_FILE_CAP (64u << 10)

void ap_psi_init(struct ap_psi *p)
{
	memset(p, 0xff, sizeof(*p));
}

/* "12.34" -> 1234: integer part, then optionally '.' and digits (hundredths kept). */
static int parse_avg(const char *s, size_t n, uint64_t *out)
{
	const char *dot = memchr(s, '.', n);
	size_t in = dot ? (size_t)(dot - s) : n, fn = dot ? n - in - 1 : 0;
	uint64_t ip, frac = 0;
	int r;

	r = ap_tp_u64(s, in, &ip);
	if (r)
		return r;
	if (dot) {
		if (!fn)
			return AP_TP_NAN;
		for (size_t i = 0; i < fn; i++) {
			if (dot[1 + i] < '0' || dot[1 + i] > '9')
				return AP_TP_NAN;
			if (i < 2)
				frac = frac * 10 + (uint64_t)(dot[1 + i] - '0');
		}
		if (fn == 1)
			frac *= 10;
	}
	if (ip > (UINT64_MAX - 99) / 100)
		return AP_TP_RANGE;
	*out = ip * 100 + frac;
	return AP_TP_OK;
}

static bool is_word(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

static int psi_line(struct ap_tp *t, const char *s, size_t n, struct ap_psi *p)
{
	const char *tok, *rest = s;
	size_t tn, rn = n;
	struct ap_psi_line *l = NULL, tmp;
	char q[AP_TP_QUOTE_LEN];

	ap_tp_token(&rest, &rn, &tok, &tn);
	if (!is_word(tok, tn))
		return ap_tp_bad(t, "'%s' is not a 'some|full avg10=... total=...' line",
				 ap_tp_quote(q, s, n));
	if (ap_tp_eq(tok, tn, "some"))
		l = &p->some;
	else if (ap_tp_eq(tok, tn, "full"))
		l = &p->full;
	memset(&tmp, 0xff, sizeof(tmp));
	while (ap_tp_token(&rest, &rn, &tok, &tn)) {
		const char *eq = memchr(tok, '=', tn), *v;
		size_t kn, vn;
		uint64_t *dst = NULL;
		int r;

		kn = eq ? (size_t)(eq - tok) : 0;
		if (!eq || !is_word(tok, kn))
			return ap_tp_bad(t, "'%s' is not a key=value field",
					 ap_tp_quote(q, tok, tn));
		v = eq + 1;
		vn = tn - kn - 1;
		if (!l)
			continue;	/* a kind this version does not know */
		if (ap_tp_eq(tok, kn, "avg10"))
			dst = &tmp.avg10;
		else if (ap_tp_eq(tok, kn, "avg60"))
			dst = &tmp.avg60;
		else if (ap_tp_eq(tok, kn, "avg300"))
			dst = &tmp.avg300;
		else if (ap_tp_eq(tok, kn, "total"))
			dst = &tmp.total_us;
		if (!dst)
			continue;
		r = dst == &tmp.total_us ? ap_tp_u64(v, vn, dst) : parse_avg(v, vn, dst);
		if (r == AP_TP_RANGE)
			return ap_tp_bad(t, "%.*s: '%s' is too large", (int)kn, tok,
					 ap_tp_quote(q, v, vn));
		if (r)
			return ap_tp_bad(t, "%.*s: '%s' is not a number", (int)kn, tok,
					 ap_tp_quote(q, v, vn));
	}
	if (l)
		*l = tmp;
	return 0;
}

int ap_psi_parse(const char *buf, size_t len, const char *name, struct ap_psi *p, char *err)
{
	struct ap_tp t;
	const char *s;
	size_t n;

	ap_psi_init(p);
	ap_tp_init(&t, buf, len, name, err);
	while (ap_tp_next(&t, &s, &n)) {
		ap_tp_trim(&s, &n);
		if (!n)
			continue;
		int rc = psi_line(&t, s, n, p);

		if (rc) {
			ap_psi_init(p);
			return rc;
		}
	}
	return 0;
}

/* Sets err for a failed open/read/write of a pressure file; returns -e. */
static int sys_fail(const char *path, int e, const char *what, char *err)
{
	switch (e) {
	case ENOENT:
		ap_seterr(err, "PSI is not available: %s: no such file (a kernel without "
			  "CONFIG_PSI, booted with psi=0, or no such cgroup)", path);
		break;
	case EOPNOTSUPP:
		ap_seterr(err, "PSI is not available: %s: %s (the kernel was booted with psi=0?)",
			  path, strerror(e));
		break;
	case ENODEV:
		ap_seterr(err, "%s: the cgroup was removed", path);
		break;
	case EACCES:
	case EPERM:
		ap_seterr(err, "no permission to %s %s (run as root)", what, path);
		break;
	default:
		ap_seterr(err, "%s: %s: %s", path, what, strerror(e));
		break;
	}
	return -e;
}

int ap_psi_read(const char *path, struct ap_psi *p, char *err)
{
	char *buf;
	size_t len;
	int rc;

	ap_psi_init(p);
	rc = ap_read_file(path, PSI_FILE_CAP, &buf, &len);
	if (rc)
		return sys_fail(path, -rc, "read", err);
	rc = ap_psi_parse(buf, len, path, p, err);
	free(buf);
	return rc;
}

/* ---- triggers ---- */

int ap_psi_trigger_parse(const char *spec, struct ap_psi_trigger *t, char *err)
{
	const char *s = spec ? spec : "", *tok[4];
	size_t n = strlen(s), tn[4], k = 0;
	char q[AP_TP_QUOTE_LEN];
	int r1, r2;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	while (k < 4 && ap_tp_token(&s, &n, &tok[k], &tn[k]))
		k++;
	if (k != 3 || (!ap_tp_eq(tok[0], tn[0], "some") && !ap_tp_eq(tok[0], tn[0], "full"))) {
		ap_seterr(err, "PSI trigger '%s' is not 'some|full STALL_US WINDOW_US' "
			  "(e.g. 'some 150000 1000000')", ap_tp_quote(q, spec ? spec : "",
								    strlen(spec ? spec : "")));
		return -EINVAL;
	}
	r1 = ap_tp_u64(tok[1], tn[1], &t->stall_us);
	r2 = ap_tp_u64(tok[2], tn[2], &t->window_us);
	if (r1 || r2) {
		ap_seterr(err, "PSI trigger '%s': the stall and the window are microseconds "
			  "(whole numbers)", ap_tp_quote(q, spec, strlen(spec)));
		return -EINVAL;
	}
	if (t->window_us < AP_PSI_WINDOW_MIN_US || t->window_us > AP_PSI_WINDOW_MAX_US) {
		ap_seterr(err, "PSI trigger '%s': the window must be 500000 to 10000000 us "
			  "(500 ms to 10 s)", ap_tp_quote(q, spec, strlen(spec)));
		return -EINVAL;
	}
	if (!t->stall_us || t->stall_us > t->window_us) {
		ap_seterr(err, "PSI trigger '%s': the stall must be 1 us to the window",
			  ap_tp_quote(q, spec, strlen(spec)));
		return -EINVAL;
	}
	t->full = tok[0][0] == 'f';
	snprintf(t->spec, sizeof(t->spec), "%s %llu %llu", t->full ? "full" : "some",
		 (unsigned long long)t->stall_us, (unsigned long long)t->window_us);
	return 0;
}

int ap_psi_trigger_arm(struct ap_psi_trigger *t, const char *path, char *err)
{
	size_t len = strlen(t->spec) + 1;	/* the kernel takes the NUL too */
	ssize_t w;
	int fd, e;

	if (t->fd >= 0) {
		ap_seterr(err, "PSI trigger '%s' is already armed on %s", t->spec, t->path);
		return -EBUSY;
	}
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->gone = false;
	t->fired = 0;
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(path, errno, "open", err);
	do {
		w = write(fd, t->spec, len);
	} while (w < 0 && errno == EINTR);
	if (w < 0) {
		e = errno;
		close(fd);
		switch (e) {
		case EINVAL:
			ap_seterr(err, "%s: the kernel refused the trigger '%s' (EINVAL)", path,
				  t->spec);
			break;
		case EPERM:
		case EACCES:
			ap_seterr(err, "%s: no permission to arm '%s': unprivileged triggers need "
				  "a window that is a multiple of 2 s (6.4+); or run as root", path,
				  t->spec);
			break;
		case EBUSY:
			ap_seterr(err, "%s: a trigger is already armed on this file", path);
			break;
		default:
			return sys_fail(path, e, "write a trigger to", err);
		}
		return -e;
	}
	t->fd = fd;
	return 0;
}

enum ap_psi_event ap_psi_trigger_event(struct ap_psi_trigger *t, short revents)
{
	if (t->fd < 0 || t->gone)
		return AP_PSI_NONE;
	if (revents & (POLLERR | POLLNVAL)) {
		t->gone = true;
		return AP_PSI_GONE;
	}
	if (revents & POLLPRI) {
		t->fired++;
		return AP_PSI_FIRED;
	}
	return AP_PSI_NONE;
}

int ap_psi_wait(struct ap_psi_trigger *t, size_t n, int timeout_ms, enum ap_psi_event *events,
		char *err)
{
	struct pollfd *pf;
	size_t *idx, m = 0, i;
	int r, fired = 0;

	for (i = 0; events && i < n; i++)
		events[i] = AP_PSI_NONE;
	pf = calloc(n + 1, sizeof(*pf));
	idx = calloc(n + 1, sizeof(*idx));
	if (!pf || !idx) {
		free(pf);
		free(idx);
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (t[i].fd < 0 || t[i].gone)
			continue;
		pf[m].fd = t[i].fd;
		pf[m].events = POLLPRI;
		idx[m++] = i;
	}
	if (!m) {
		free(pf);
		free(idx);
		ap_seterr(err, "no PSI trigger is armed (or every one's source is gone)");
		return -ENODEV;
	}
	do {
		r = poll(pf, (nfds_t)m, timeout_ms);
	} while (r < 0 && errno == EINTR && timeout_ms < 0);
	if (r < 0) {
		int e = errno;

		free(pf);
		free(idx);
		if (e == EINTR)
			return 0;
		ap_seterr(err, "poll on PSI triggers: %s", strerror(e));
		return -e;
	}
	for (i = 0; i < m && r > 0; i++) {
		enum ap_psi_event ev = ap_psi_trigger_event(&t[idx[i]], pf[i].revents);

		if (events)
			events[idx[i]] = ev;
		fired += ev == AP_PSI_FIRED;
	}
	free(pf);
	free(idx);
	return fired;
}

void ap_psi_trigger_close(struct ap_psi_trigger *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
