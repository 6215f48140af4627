// SPDX-License-Identifier: Apache-2.0
/* ap_crc32 must equal zlib's crc32 on every length and alignment, chained or not. */
#include <stdlib.h>
#include <zlib.h>

#include "arenaprof/trace/crc32.h"
#include "test.h"

int main(void)
{
	static uint8_t buf[4096 + 16];
	uint32_t seed = 12345;
	int bad = 0, n = 0;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	CHECK_EQ_I64("crc32 of '123456789' is the check value", ap_crc32(0, "123456789", 9),
		     0xcbf43926);
	CHECK_EQ_I64("crc32 of nothing is 0", ap_crc32(0, buf, 0), 0);
	for (size_t off = 0; off < 16; off++) {
		for (size_t len = 0; len < 300; len++, n++) {
			uint32_t z = (uint32_t)crc32(0, buf + off, (uInt)len);
			uint32_t a = ap_crc32(0, buf + off, len);
			/* chained: header then payload, as the trace computes it */
			uint32_t zc = (uint32_t)crc32(crc32(7, buf, 8), buf + off, (uInt)len);
			uint32_t ac = ap_crc32(ap_crc32(7, buf, 8), buf + off, len);

			bad += a != z || ac != zc;
		}
	}
	CHECK("equals zlib's crc32 for lengths 0-299 at 16 alignments, chained and not",
	      bad == 0, "%d of %d differ", bad, n);
	CHECK_EQ_I64("equals zlib on 4 KiB", ap_crc32(0, buf, 4096),
		     (uint32_t)crc32(0, buf, 4096));
	TEST_EXIT();
}
