/* SPDX-License-Identifier: Apache-2.0 */
/*
 * raster: an RGB canvas in memory, filled with rectangles and 6x10 bitmap text, written
 * as one PNG (libpng). Enough for a heatmap with labels, an axis and a scale, without a
 * font library: the font is a 950-byte table (font6x10.c).
 */
#ifndef ARENAPROF_RASTER_H
#define ARENAPROF_RASTER_H

#include <stdint.h>
#include <stdio.h>

#define AP_GLYPH_W 6
#define AP_GLYPH_H 10
#define AP_CANVAS_MAX_PIXELS (64u << 20)	/* 192 MiB of RGB: a bound, not a size */

extern const uint8_t ap_font6x10[95][10];

struct ap_canvas {
	uint32_t w, h;
	uint8_t *px;		/* w * h * 3, row-major */
};

struct ap_png_text {
	const char *key, *text;	/* a tEXt chunk: key is 1-79 Latin-1 bytes */
};

/* 0, or with err -EINVAL (too large) or -ENOMEM. The canvas starts white. */
int ap_canvas_init(struct ap_canvas *c, uint32_t w, uint32_t h, char *err);
void ap_canvas_free(struct ap_canvas *c);

/* A rectangle, clipped to the canvas; alpha 0..255 blends it over what is there. */
void ap_canvas_fill(struct ap_canvas *c, int64_t x, int64_t y, int64_t w, int64_t h,
		    const uint8_t rgb[3], uint8_t alpha);
/* A 1-pixel outline. */
void ap_canvas_frame(struct ap_canvas *c, int64_t x, int64_t y, int64_t w, int64_t h,
		     const uint8_t rgb[3]);
/*
 * Text with its top-left corner at x, y, clipped to the canvas. Bytes outside printable
 * ASCII are drawn as '?'. Returns the width drawn in pixels (6 a byte).
 */
int64_t ap_canvas_text(struct ap_canvas *c, int64_t x, int64_t y, const char *s,
		       const uint8_t rgb[3]);
/* Text centred on x, or ending at x. */
void ap_canvas_text_mid(struct ap_canvas *c, int64_t x, int64_t y, const char *s,
			const uint8_t rgb[3]);
void ap_canvas_text_end(struct ap_canvas *c, int64_t x, int64_t y, const char *s,
			const uint8_t rgb[3]);

/* The PNG, with n tEXt chunks. 0, or -ENOMEM or -EIO with err. */
int ap_canvas_png(const struct ap_canvas *c, const struct ap_png_text *t, int n, FILE *f,
		  char *err);

#endif
