// SPDX-License-Identifier: Apache-2.0
/* tui_text: the TUI's figures and texts as strings (tui_pen.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/record/session.h"
#include "tui_pen.h"

/* display columns of a UTF-8 string (every glyph used here is one column wide) */
int tui_text_w(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

bool tui_have(uint64_t v)
{
	return v != AP_NO_VALUE;
}

/* A size in KiB, exactly (as /proc prints it), or '-' when it was not read. */
const char *tui_kib(uint64_t v, char *buf, size_t len)
{
	if (!tui_have(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu64 " KiB", (v + 1023) / 1024);
	return buf;
}


const char *tui_limit(uint64_t v, char *buf, size_t len)
{
	if (v == AP_UNLIMITED)
		return "max";
	return tui_kib(v, buf, len);
}


/* PSI percent x 100, as "1.25" */
const char *tui_pct(uint64_t v, char *buf, size_t len)
{
	if (!tui_have(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu64 ".%02" PRIu64, v / 100, v % 100);
	return buf;
}


const char *tui_rate(double v, char *buf, size_t len)
{
	if (v >= 100)
		snprintf(buf, len, "%.0f/s", v);
	else
		snprintf(buf, len, "%.1f/s", v);
	return buf;
}


/* A run's duration: "850 us", "12.3 ms", "1.25 s" */
const char *tui_duration(uint64_t ns, char *buf, size_t len)
{
	double v = (double)ns;

	if (ns < 1000000)
		snprintf(buf, len, "%.0f us", v / 1e3);
	else if (ns < 10000000)
		snprintf(buf, len, "%.2f ms", v / 1e6);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", v / 1e6);
	else
		snprintf(buf, len, "%.2f s", v / 1e9);
	return buf;
}


/*
 * Fits a command line into w columns by dropping whole arguments from the end (marked
 * "..."); when even the program does not fit, its base name; else "".
 */
void tui_fit_words(const char *s, int w, char *out, size_t len)
{
	const char *end = s + strlen(s), *sp;

	snprintf(out, len, "%s", s);
	if (tui_text_w(out) <= w)
		return;
	while ((sp = memrchr(s, ' ', (size_t)(end - s)))) {
		end = sp;
		snprintf(out, len, "%.*s ...", (int)(end - s), s);
		if (tui_text_w(out) <= w)
			return;
	}
	sp = memrchr(s, '/', (size_t)(end - s));
	snprintf(out, len, "%.*s%s", (int)(end - (sp ? sp + 1 : s)), sp ? sp + 1 : s,
		 end < s + strlen(s) ? " ..." : "");
	if (tui_text_w(out) > w)
		out[0] = '\0';
}

/*
 * s in at most w columns (w < len), its end kept: "...libfoo.so.1" (a path's or a
 * tensor's end names it). One byte, one column: safe_addstr makes it so.
 */
const char *tui_tail_fit(const char *s, int w, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (w < 4 || n <= (size_t)w || (size_t)w >= len)
		snprintf(buf, len, "%.*s", w > 0 ? w : 0, s);
	else
		snprintf(buf, len, "...%s", s + n - (w - 3));
	return buf;
}

/*
 * A size in three figures, in the binary units every size on the screen has (units.h's
 * KiB, MiB, GiB), without the space, for the narrow places: "812B", "210KiB", "1.44MiB".
 */
const char *tui_size(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	double x = (double)v;
	int u = -1;

	if (!tui_have(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (x >= 999.5 && u < 3) {
		x /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64 "B", v);
	else if (x < 9.995)
		snprintf(buf, len, "%.2f%ciB", x, units[u]);
	else if (x < 99.95)
		snprintf(buf, len, "%.1f%ciB", x, units[u]);
	else
		snprintf(buf, len, "%.0f%ciB", x, units[u]);
	return buf;
}

/* A time span: "45s", "4m16s", "2h05m". */
const char *tui_span(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + 500000000ULL) / 1000000000ULL;

	if (s < 60)
		snprintf(buf, len, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s / 60 % 60);
	return buf;
}
