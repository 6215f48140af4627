// SPDX-License-Identifier: Apache-2.0
/*
 * heatmap_ansi: the matrix in a terminal (boards are used over ssh): one line per row, a
 * label, then one character cell per group of columns (summed) so that the line fits the
 * width, coloured with the 256-colour palette (the SVG's scale, nearest cube colour).
 * NO_COLOR set, or not writing to a terminal (-o - > file): shades of ' .:-=+*#%@'
 * instead of colour escapes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/analyze/heatmap.h"
#include "arenaprof/util/numparse.h"

#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

static unsigned term_width(FILE *f)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");
	uint64_t cols;

	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	if (c && !ap_parse_u64(c, 10, 1, 10000, &cols))
		return (unsigned)cols;
	return 80;
}

/* xterm-256: the nearest colour of the 6x6x6 cube */
static int cube(const uint8_t rgb[3])
{
	static const int lv[6] = { 0, 95, 135, 175, 215, 255 };
	int idx[3];

	for (int k = 0; k < 3; k++) {
		int best = 0;

		for (int i = 1; i < 6; i++)
			if (abs(lv[i] - rgb[k]) < abs(lv[best] - rgb[k]))
				best = i;
		idx[k] = best;
	}
	return 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
}

int ap_heatmap_ansi(const struct ap_heatmap *h, FILE *f, unsigned width, char *err)
{
	static const char shades[] = " .:-=+*#%@";
	bool mono = (getenv("NO_COLOR") && getenv("NO_COLOR")[0]) || !isatty(fileno(f));
	unsigned lw, pw, group, out_cols;
	struct ap_heatmap s = *h;	/* the scale of the merged cells */
	uint64_t *m;
	char a[32], b[32];

	if (!width)
		width = term_width(f);
	if (width < 40)
		width = 40;
	lw = width / 3 < 34 ? width / 3 : 34;
	pw = width - lw - 2;
	group = (h->cols + pw - 1) / pw;
	if (!group)
		group = 1;
	out_cols = (h->cols + group - 1) / group;
	m = calloc((size_t)h->rows * out_cols + 1, sizeof(*m));
	if (!m) {
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	s.max = 0;
	for (uint32_t r = 0; r < h->rows; r++)
		for (uint32_t c = 0; c < h->cols; c++) {
			uint64_t *v = &m[(size_t)r * out_cols + c / group];

			*v += h->cell[(uint64_t)r * h->cols + c];
			if (*v > s.max)
				s.max = *v;
		}
	/* the title names the model and the labels its operators: a model is not trusted */
	fprintf(f, "%.*s\n%.*s\n", (int)width, TS(h->title), (int)width, TS(h->subtitle));
	if (h->mismatch && h->warning[0])
		fprintf(f, "%s%.*s%s\n", mono ? "" : "\033[1;31m", (int)width, h->warning,
			mono ? "" : "\033[0m");
	for (uint32_t r = 0; r < h->rows; r++) {
		int last = -1;

		char cut[64];

		fprintf(f, "%-*.*s ", (int)lw, (int)lw, ap_hm_fit_label(TS(h->row[r].label), lw,
									 cut, sizeof(cut)));
		for (uint32_t c = 0; c < out_cols; c++) {
			uint64_t v = m[(size_t)r * out_cols + c];
			uint8_t rgb[3];
			int col;

			if (mono) {
				double t = s.max > 1 ? (double)(v - 1) / (s.max - 1) : 1;
				int i = v ? 1 + (int)(t * 8.999) : 0;

				fputc(shades[i], f);
				continue;
			}
			ap_hm_rgb(&s, v, rgb);
			col = v ? cube(rgb) : -1;
			if (col != last) {
				if (col < 0)
					fputs("\033[0m\033[38;5;240m", f);
				else
					fprintf(f, "\033[48;5;%dm", col);
				last = col;
			}
			fputc(col < 0 ? (r % 2 ? ' ' : '.') : ' ', f);
		}
		fputs(mono ? "\n" : "\033[0m\n", f);
	}
	{
		int64_t end = h->col0_offset + (int64_t)(h->cols * h->col_bytes);

		fprintf(f, "%*s %-*s%*s\n", (int)lw, "offset", (int)(out_cols / 2),
			ap_hm_offset(h->col0_offset < 0 ? 0 : h->col0_offset, a),
			(int)(out_cols - out_cols / 2), ap_hm_offset(end, b));
	}
	fprintf(f, "%*s ", (int)lw, "scale");
	for (int i = 0; i <= 20; i++) {
		uint8_t rgb[3];

		ap_hm_rgb_at(i / 20.0, rgb);
		if (mono)
			fputc(shades[1 + i * 8 / 20], f);
		else
			fprintf(f, "\033[48;5;%dm ", cube(rgb));
	}
	{
		char line[160];

		snprintf(line, sizeof(line), " 1..%" PRIu64 " %s per cell of %u column%s",
			 s.max ? s.max : 1, h->all_faults ? "faults" : "first touches", group,
			 group == 1 ? "" : "s");
		fprintf(f, "%s%.*s\n", mono ? "" : "\033[0m", (int)(width - lw - 22), line);
	}
	free(m);
	if (fflush(f) || ferror(f)) {
		int e = errno ? errno : EIO;

		return ap_fail(err, -e, "writing to the terminal: %s", strerror(e));
	}
	return 0;
}
