// SPDX-License-Identifier: Apache-2.0
/* raster: glyphs against pictures drawn by hand, clipping, blending, the PNG's header. */
#include <errno.h>
#include <stdbool.h>

#include "arenaprof/render/raster.h"
#include "test.h"

/* misc-fixed 6x10 'A' and '?', as a reader sees them ('#' ink). */
static const char *const glyph_a[10] = {
	"......", "..#...", ".#.#..", "#...#.", "#...#.",
	"#####.", "#...#.", "#...#.", "......", "......",
};
static const char *const glyph_q[10] = {
	"......", ".###..", "#...#.", "...#..", "..#...",
	"..#...", "......", "..#...", "......", "......",
};
static const uint8_t black[3] = { 0, 0, 0 };

/* The canvas at (dx, dy) shows the picture p (shifted), white elsewhere. */
static int shows(const struct ap_canvas *c, const char *const p[10], int dx, int dy)
{
	for (uint32_t y = 0; y < c->h; y++)
		for (uint32_t x = 0; x < c->w; x++) {
			int gx = (int)x - dx, gy = (int)y - dy;
			bool ink = gx >= 0 && gx < 6 && gy >= 0 && gy < 10 && p[gy][gx] == '#';
			const uint8_t *px = c->px + ((size_t)y * c->w + x) * 3;

			if (px[0] != (ink ? 0 : 255))
				return 0;
		}
	return 1;
}

int main(void)
{
	struct ap_canvas c;
	char err[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct ap_png_text t = { "arenaprof:plot", "1 2 3 4 5 6" };

	if (ap_canvas_init(&c, 6, 10, err)) {
		CHECK("canvas 6x10", 0, "%s", err);
		TEST_EXIT();
	}
	CHECK_EQ_I64("text: 6 pixels a byte", ap_canvas_text(&c, 0, 0, "A", black), 6);
	CHECK("text: 'A' is misc-fixed's A", shows(&c, glyph_a, 0, 0), "pixels differ");
	ap_canvas_free(&c);

	ap_canvas_init(&c, 8, 8, err);
	ap_canvas_text(&c, -2, -3, "A", black);
	CHECK("text: clipped at the top-left corner, the rest in place",
	      shows(&c, glyph_a, -2, -3), "pixels differ");
	ap_canvas_free(&c);

	ap_canvas_init(&c, 6, 10, err);
	ap_canvas_text(&c, 0, 0, "\x01", black);
	CHECK("text: a control byte is drawn as '?'", shows(&c, glyph_q, 0, 0), "pixels differ");
	ap_canvas_text(&c, 6, 0, "\xff", black);
	ap_canvas_text(&c, 0, 10, "AAAA", black);
	CHECK("text: past the right and bottom edges draws nothing", shows(&c, glyph_q, 0, 0),
	      "pixels differ");

	ap_canvas_fill(&c, 0, 0, 6, 10, (const uint8_t[3]){ 0, 0, 0 }, 255);
	ap_canvas_fill(&c, -100, -100, 1000, 1000, (const uint8_t[3]){ 255, 255, 255 }, 128);
	CHECK_EQ_I64("fill: alpha 128 of white over black", c.px[3 * 59], 128);
	ap_canvas_free(&c);

	CHECK("init: 10000x10000 refused", ap_canvas_init(&c, 10000, 10000, err) == -EINVAL &&
	      strstr(err, "megapixel"), "err '%s'", err);
	CHECK("init: 0 wide refused", ap_canvas_init(&c, 0, 10, err) == -EINVAL, "accepted");

	ap_canvas_init(&c, 300, 7, err);
	f = open_memstream(&buf, &len);
	CHECK("png: written", f && !ap_canvas_png(&c, &t, 1, f, err), "%s", err);
	if (f)
		fclose(f);
	CHECK("png: signature, IHDR 300x7 RGB 8-bit", len > 33 &&
	      !memcmp(buf, "\x89PNG\r\n\x1a\n", 8) && !memcmp(buf + 12, "IHDR", 4) &&
	      !memcmp(buf + 16, "\0\0\x01\x2c\0\0\0\x07\x08\x02", 10), "%zu bytes", len);
	CHECK("png: the tEXt chunk", memmem(buf, len, "tEXtarenaprof:plot\0" "1 2 3 4 5 6", 30),
	      "not found");
	free(buf);
	ap_canvas_free(&c);
	TEST_EXIT();
}
