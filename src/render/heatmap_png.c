// SPDX-License-Identifier: Apache-2.0
/*
 * heatmap_png: the matrix as an RGB PNG (libpng): cell_w x cell_h pixels per cell, then a
 * 4-pixel white gap and a 10-pixel strip of the colour scale (left: a count of 1, right:
 * the maximum). No text: the SVG has the labels, the CSV the numbers.
 */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/analyze/heatmap.h"

#define GAP 4
#define STRIP 10

void ap_heatmap_png_cell(const struct ap_heatmap *h, uint32_t *cw, uint32_t *ch)
{
	*cw = h->cols ? 1200 / h->cols : 1;
	if (*cw < 1)
		*cw = 1;
	if (*cw > 16)
		*cw = 16;
	*ch = h->rows ? 900 / h->rows : 1;
	if (*ch < 1)
		*ch = 1;
	if (*ch > 12)
		*ch = 12;
}

int ap_heatmap_png(const struct ap_heatmap *h, FILE *f, uint32_t *w, uint32_t *ht, char *err)
{
	png_structp png = NULL;
	png_infop info = NULL;
	uint8_t *line = NULL;
	uint32_t cw, ch, width, height;
	volatile int rc = -1;

	ap_heatmap_png_cell(h, &cw, &ch);
	width = h->cols * cw;
	height = h->rows * ch + GAP + STRIP;
	*w = width;
	*ht = height;
	line = malloc((size_t)width * 3);
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (png)
		info = png_create_info_struct(png);
	if (!line || !png || !info) {
		ap_seterr(err, "out of memory writing the PNG");
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		ap_seterr(err, "libpng failed writing the PNG");
		goto out;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (uint32_t r = 0; r < h->rows; r++) {
		for (uint32_t c = 0; c < h->cols; c++) {
			uint8_t rgb[3];

			ap_hm_rgb(h, h->cell[(uint64_t)r * h->cols + c], rgb);
			for (uint32_t k = 0; k < cw; k++)
				memcpy(line + ((size_t)c * cw + k) * 3, rgb, 3);
		}
		for (uint32_t k = 0; k < ch; k++)
			png_write_row(png, line);
	}
	memset(line, 255, (size_t)width * 3);
	for (uint32_t k = 0; k < GAP; k++)
		png_write_row(png, line);
	for (uint32_t x = 0; x < width; x++)
		ap_hm_rgb_at(width > 1 ? (double)x / (width - 1) : 1, line + (size_t)x * 3);
	for (uint32_t k = 0; k < STRIP; k++)
		png_write_row(png, line);
	png_write_end(png, NULL);
	if (fflush(f) || ferror(f)) {
		ap_seterr(err, "writing the PNG failed");
		goto out;
	}
	rc = 0;
out:
	if (png)
		png_destroy_write_struct(&png, info ? &info : NULL);
	free(line);
	return rc;
}
