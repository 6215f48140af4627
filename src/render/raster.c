// SPDX-License-Identifier: Apache-2.0
/*
 * raster: an RGB canvas, rectangles and bitmap text, written through libpng. Every
 * drawing call clips to the canvas, so a caller's geometry can never write outside it.
 */
#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/render/raster.h"
#include "arenaprof/util/err.h"

int ap_canvas_init(struct ap_canvas *c, uint32_t w, uint32_t h, char *err)
{
	c->w = w;
	c->h = h;
	c->px = NULL;
	if (!w || !h || (uint64_t)w * h > AP_CANVAS_MAX_PIXELS) {
		ap_seterr(err, "a %ux%u image is beyond the %u-megapixel bound: fewer rows "
			  "(--rows, --runs) or columns (--cols)", w, h, AP_CANVAS_MAX_PIXELS >> 20);
		return -EINVAL;
	}
	c->px = malloc((size_t)w * h * 3);
	if (!c->px) {
		ap_seterr(err, "out of memory for a %ux%u image", w, h);
		return -ENOMEM;
	}
	memset(c->px, 255, (size_t)w * h * 3);
	return 0;
}

void ap_canvas_free(struct ap_canvas *c)
{
	free(c->px);
	c->px = NULL;
}

static void blend(uint8_t *p, const uint8_t rgb[3], uint8_t alpha)
{
	for (int k = 0; k < 3; k++)
		p[k] = (uint8_t)((rgb[k] * alpha + p[k] * (255 - alpha) + 127) / 255);
}

void ap_canvas_fill(struct ap_canvas *c, int64_t x, int64_t y, int64_t w, int64_t h,
		    const uint8_t rgb[3], uint8_t alpha)
{
	int64_t x1 = x + w, y1 = y + h;

	if (x < 0)
		x = 0;
	if (y < 0)
		y = 0;
	if (x1 > c->w)
		x1 = c->w;
	if (y1 > c->h)
		y1 = c->h;
	for (int64_t j = y; j < y1; j++)
		for (int64_t i = x; i < x1; i++) {
			uint8_t *p = c->px + ((size_t)j * c->w + (size_t)i) * 3;

			if (alpha == 255)
				memcpy(p, rgb, 3);
			else
				blend(p, rgb, alpha);
		}
}

void ap_canvas_frame(struct ap_canvas *c, int64_t x, int64_t y, int64_t w, int64_t h,
		     const uint8_t rgb[3])
{
	ap_canvas_fill(c, x, y, w, 1, rgb, 255);
	ap_canvas_fill(c, x, y + h - 1, w, 1, rgb, 255);
	ap_canvas_fill(c, x, y, 1, h, rgb, 255);
	ap_canvas_fill(c, x + w - 1, y, 1, h, rgb, 255);
}

int64_t ap_canvas_text(struct ap_canvas *c, int64_t x, int64_t y, const char *s,
		       const uint8_t rgb[3])
{
	int64_t x0 = x;

	for (; *s; s++, x += AP_GLYPH_W) {
		unsigned char ch = (unsigned char)*s;
		const uint8_t *g = ap_font6x10[(ch < 0x20 || ch > 0x7e ? '?' : ch) - 0x20];

		for (int j = 0; j < AP_GLYPH_H; j++)
			for (int i = 0; i < AP_GLYPH_W; i++)
				if (g[j] & (0x80 >> i))
					ap_canvas_fill(c, x + i, y + j, 1, 1, rgb, 255);
	}
	return x - x0;
}

static int64_t text_w(const char *s)
{
	return (int64_t)strlen(s) * AP_GLYPH_W;
}

void ap_canvas_text_mid(struct ap_canvas *c, int64_t x, int64_t y, const char *s,
			const uint8_t rgb[3])
{
	ap_canvas_text(c, x - text_w(s) / 2, y, s, rgb);
}

void ap_canvas_text_end(struct ap_canvas *c, int64_t x, int64_t y, const char *s,
			const uint8_t rgb[3])
{
	ap_canvas_text(c, x - text_w(s), y, s, rgb);
}

int ap_canvas_png(const struct ap_canvas *c, const struct ap_png_text *t, int n, FILE *f,
		  char *err)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	png_text *txt = calloc(n > 0 ? (size_t)n : 1, sizeof(*txt));
	volatile int rc = -ENOMEM;

	if (!png || !info || !txt) {
		ap_seterr(err, "out of memory writing the PNG");
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		ap_seterr(err, "libpng failed writing the PNG");
		rc = -EIO;
		goto out;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, c->w, c->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	for (int i = 0; i < n; i++) {
		txt[i].compression = PNG_TEXT_COMPRESSION_NONE;
		txt[i].key = (png_charp)t[i].key;
		txt[i].text = (png_charp)t[i].text;
	}
	if (n > 0)
		png_set_text(png, info, txt, n);
	png_write_info(png, info);
	for (uint32_t j = 0; j < c->h; j++)
		png_write_row(png, c->px + (size_t)j * c->w * 3);
	png_write_end(png, NULL);
	if (fflush(f) || ferror(f)) {
		ap_seterr(err, "writing the PNG failed");
		rc = -EIO;
		goto out;
	}
	rc = 0;
out:
	if (png)
		png_destroy_write_struct(&png, info ? &info : NULL);
	free(txt);
	return rc;
}
