// SPDX-License-Identifier: Apache-2.0
/*
 * psi: every field of the fixtures in tests/fixtures/psi/ (real samples of this project's
 * development machine and of the VM suite's 6.1 and 6.12 guests, and hand-written
 * variants, see the README there), the error (file and line) of every broken one, every
 * prefix of the real samples and random bytes (no crash, no half-filled result); trigger
 * specs; then live, reading only: /proc/pressure/memory. Triggers are armed for real in
 * the VM suite (tests/fixtures/cg_check.c). Run from the repository root.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/kernel/psi.h"
#include "test.h"

#define FIX "tests/fixtures/psi/"
#define NV AP_NO_VALUE

static char name_buf[256];

static const char *nm(const char *tag, const char *what)
{
	snprintf(name_buf, sizeof(name_buf), "%s: %s", tag, what);
	return name_buf;
}

struct want {
	uint64_t s10, s60, s300, stot, f10, f60, f300, ftot;
};

static void check_fields(const char *tag, const struct ap_psi *p, const struct want *w)
{
	CHECK_U64(nm(tag, "some avg10"), p->some.avg10, w->s10);
	CHECK_U64(nm(tag, "some avg60"), p->some.avg60, w->s60);
	CHECK_U64(nm(tag, "some avg300"), p->some.avg300, w->s300);
	CHECK_U64(nm(tag, "some total"), p->some.total_us, w->stot);
	CHECK_U64(nm(tag, "full avg10"), p->full.avg10, w->f10);
	CHECK_U64(nm(tag, "full avg60"), p->full.avg60, w->f60);
	CHECK_U64(nm(tag, "full avg300"), p->full.avg300, w->f300);
	CHECK_U64(nm(tag, "full total"), p->full.total_us, w->ftot);
}

static void fixture(const char *file, const struct want *w)
{
	char path[128], err[AP_ERR_LEN] = "";
	struct ap_psi p;
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return;
	CHECK(nm(file, "parses"), ap_psi_parse(buf, len, path, &p, err) == 0, "%s", err);
	check_fields(file, &p, w);
	free(buf);
}

static bool all_absent(const struct ap_psi *p)
{
	const uint64_t *v = (const uint64_t *)p;

	for (size_t i = 0; i < sizeof(*p) / sizeof(*v); i++)
		if (v[i] != NV)
			return false;
	return true;
}

static void fixture_err(const char *file, const char *want_msg)
{
	char path[128], err[AP_ERR_LEN] = "", want[AP_ERR_LEN];
	struct ap_psi p;
	size_t len;
	char *buf;
	int rc;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return;
	rc = ap_psi_parse(buf, len, path, &p, err);
	snprintf(want, sizeof(want), "%s:%s", path, want_msg);
	CHECK(nm(file, "refused with the file and line"), rc == -EINVAL &&
	      !strcmp(err, want), "rc %d err '%s', want '%s'", rc, err, want);
	CHECK(nm(file, "nothing half-filled"), all_absent(&p), "fields left set");
	free(buf);
}

/* Every prefix of a real sample: parses or fails cleanly, never half-filled. */
static void prefixes(const char *file)
{
	char path[128], err[AP_ERR_LEN];
	size_t len, bad = 0;
	struct ap_psi p;
	char *buf;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return;
	for (size_t n = 0; n <= len; n++) {
		char *copy = malloc(n ? n : 1);	/* exact size: ASan sees an overread */

		memcpy(copy, buf, n);
		if (ap_psi_parse(copy, n, path, &p, err) && (!all_absent(&p) ||
							      !strstr(err, path)))
			bad++;
		free(copy);
	}
	CHECK(nm(file, "every prefix parses or fails cleanly with the file named"), bad == 0,
	      "%zu prefixes misbehaved", bad);
	free(buf);
}

static void random_bytes(void)
{
	char err[AP_ERR_LEN], buf[256];
	uint32_t x = 12345;
	struct ap_psi p;
	size_t bad = 0;

	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(i % 255) + 1;

		for (size_t k = 0; k < n; k++) {
			x = x * 1103515245 + 12345;
			/* mostly the file's own alphabet, to get deep into the parser */
			buf[k] = "somefulavg1036=.t \n9"[(x >> 16) % 20];
			if (((x >> 8) & 63) == 0)
				buf[k] = (char)(x >> 24);
		}
		if (ap_psi_parse(buf, n, "random", &p, err) && !all_absent(&p))
			bad++;
	}
	CHECK("20000 random buffers: no crash, failures leave nothing set", bad == 0,
	      "%zu half-filled", bad);
}

static void triggers(void)
{
	static const struct {
		const char *spec;
		bool ok;
		const char *norm;
		const char *msg_part;
	} cases[] = {
		{ "some 150000 1000000", true, "some 150000 1000000", NULL },
		{ "full 100000 1000000", true, "full 100000 1000000", NULL },
		{ "  full\t500000   500000 ", true, "full 500000 500000", NULL },
		{ "some 1 10000000", true, "some 1 10000000", NULL },
		{ "some 150000 499999", false, NULL, "500 ms to 10 s" },
		{ "some 150000 10000001", false, NULL, "500 ms to 10 s" },
		{ "some 0 1000000", false, NULL, "1 us to the window" },
		{ "some 1000001 1000000", false, NULL, "1 us to the window" },
		{ "both 1 1000000", false, NULL, "some|full" },
		{ "some 1000000", false, NULL, "some|full" },
		{ "some 1 1000000 9", false, NULL, "some|full" },
		{ "some 1.5 1000000", false, NULL, "whole numbers" },
		{ "some -1 1000000", false, NULL, "whole numbers" },
		{ "some 150000 99999999999999999999", false, NULL, "whole numbers" },
		{ "", false, NULL, "some|full" },
		{ "\x01\xff", false, NULL, "some|full" },
	};
	char err[AP_ERR_LEN], tag[96];
	struct ap_psi_trigger t;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		err[0] = '\0';
		snprintf(tag, sizeof(tag), "trigger spec '%s'", cases[i].spec);
		rc = ap_psi_trigger_parse(cases[i].spec, &t, err);
		if (cases[i].ok)
			CHECK(nm(tag, "accepted, normalised"), rc == 0 && t.fd == -1 &&
			      !strcmp(t.spec, cases[i].norm), "rc %d spec '%s' err '%s'", rc,
			      t.spec, err);
		else
			CHECK(nm(tag, "refused with the reason"), rc == -EINVAL &&
			      strstr(err, cases[i].msg_part), "rc %d err '%s'", rc, err);
	}
	ap_psi_trigger_parse("full 100000 2000000", &t, err);
	CHECK_U64("trigger fields: full", t.full, 1);
	CHECK_U64("trigger fields: stall", t.stall_us, 100000);
	CHECK_U64("trigger fields: window", t.window_us, 2000000);
	CHECK("a NULL spec is refused", ap_psi_trigger_parse(NULL, &t, err) == -EINVAL, "accepted");

	/* revents interpretation: POLLERR wins (a removed cgroup reports ERR|PRI) */
	ap_psi_trigger_parse("some 150000 1000000", &t, err);
	t.fd = 1000;	/* pretend it is armed; never polled */
	CHECK("revents POLLPRI: fired", ap_psi_trigger_event(&t, 0x002) == AP_PSI_FIRED &&
	      t.fired == 1, "fired %" PRIu64, t.fired);
	CHECK("revents 0: nothing", ap_psi_trigger_event(&t, 0) == AP_PSI_NONE, "event");
	CHECK("revents POLLERR|POLLPRI: gone, not fired",
	      ap_psi_trigger_event(&t, 0x008 | 0x002) == AP_PSI_GONE && t.gone && t.fired == 1,
	      "gone %d fired %" PRIu64, t.gone, t.fired);
	CHECK("a gone trigger reports nothing more", ap_psi_trigger_event(&t, 0x002) ==
	      AP_PSI_NONE && t.fired == 1, "fired %" PRIu64, t.fired);
	t.fd = -1;
	CHECK("waiting on no armed trigger: ENODEV", ap_psi_wait(&t, 1, 0, NULL, err) == -ENODEV,
	      "%s", err);
	CHECK("arming on a missing file: PSI is not available",
	      ap_psi_trigger_parse("some 150000 1000000", &t, err) == 0 &&
	      ap_psi_trigger_arm(&t, "/nonexistent/memory.pressure", err) == -ENOENT &&
	      strstr(err, "PSI is not available") && t.fd == -1, "%s", err);
}

static void live(void)
{
	char err[AP_ERR_LEN];
	struct ap_psi p;

	if (access(AP_PSI_SYSTEM_MEMORY, R_OK)) {
		CHECK("live: a missing /proc/pressure/memory says PSI is not available",
		      ap_psi_read(AP_PSI_SYSTEM_MEMORY, &p, err) < 0 &&
		      strstr(err, "PSI is not available"), "%s", err);
		return;
	}
	CHECK("live: /proc/pressure/memory parses", ap_psi_read(AP_PSI_SYSTEM_MEMORY, &p, err) == 0,
	      "%s", err);
	CHECK("live: some and full lines with totals", p.some.total_us != NV &&
	      p.full.total_us != NV && p.some.avg10 <= 10000 && p.full.avg300 <= 10000,
	      "some total %" PRIu64 " full total %" PRIu64, p.some.total_us, p.full.total_us);
	CHECK("live: full never exceeds some", p.full.total_us <= p.some.total_us,
	      "full %" PRIu64 " some %" PRIu64, p.full.total_us, p.some.total_us);
	CHECK("live: a missing cgroup file says so",
	      ap_psi_read("/sys/fs/cgroup/no-such-cgroup/memory.pressure", &p, err) == -ENOENT &&
	      strstr(err, "no-such-cgroup"), "%s", err);
}

int main(void)
{
	/* real: this machine (6.18), the VM guests after an OOM-killed run under memory.high */
	fixture("memory", &(struct want){ 0, 0, 0, 0, 0, 0, 0, 0 });
	fixture("cpu", &(struct want){ 517, 1348, 997, 227634275, 0, 0, 0, 0 });
	fixture("memory.pressure", &(struct want){ 9793, 5818, 1680, 58823046,
						   9793, 5818, 1680, 58823046 });
	fixture("memory.pressure.6_1", &(struct want){ 8728, 5082, 1439, 52793153,
						       8728, 5082, 1439, 52793153 });
	/* hand-written */
	fixture("memory.some_only", &(struct want){ 12, 5, 1, 123456, NV, NV, NV, NV });
	fixture("memory.unknown", &(struct want){ 150, 50, 0, 10, 0, 0, 0, 5 });
	fixture("memory.crlf", &(struct want){ 25, 0, 0, 7, 0, 0, 0, 3 });
	fixture("memory.repeated", &(struct want){ 200, 0, 0, 2, NV, NV, NV, NV });
	fixture("memory.empty", &(struct want){ NV, NV, NV, NV, NV, NV, NV, NV });
	fixture_err("memory.garbage", "2: '?? junk' is not a 'some|full avg10=... total=...' line");
	fixture_err("memory.truncated", "2: 'avg' is not a key=value field");
	fixture_err("memory.truncated_value", "2: total: '' is not a number");
	fixture_err("memory.bad_value", "1: total: '12x' is not a number");
	fixture_err("memory.bad_avg", "1: avg10: '1.2.3' is not a number");
	fixture_err("memory.huge", "2: total: '99999999999999999999' is too large");
	prefixes("memory.pressure");
	prefixes("cpu");
	prefixes("memory.unknown");
	random_bytes();
	triggers();
	live();
	TEST_EXIT();
}
