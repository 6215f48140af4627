// SPDX-License-Identifier: Apache-2.0
/*
 * pack_z: format 4's deflated blocks (pack.h, man arenaprof-trace(5)). The recorder closes
 * a block at every flush, ten a second: a slow trace (LiteRT's) is hundreds of blocks of a
 * few hundred bytes, whose deltas deflate still shrinks by a fifth (docs/trace-cost.md).
 * Full blocks (a fault storm) stay as they are: reading them is most of a large report.
 */
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "pack.h"

/* raw deflate, no zlib header or checksum: the record's crc covers the bytes */
#define WBITS (-15)

size_t ap_pack_deflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream z;
	size_t got;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	got = deflate(&z, Z_FINISH) == Z_STREAM_END ? cap - z.avail_out : 0;
	deflateEnd(&z);
	return got;
}

int ap_pack_inflate(const uint8_t *in, size_t n, uint8_t *out, size_t want)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	rc = inflateInit2(&z, WBITS);
	if (rc != Z_OK)
		return rc == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)want;
	rc = inflate(&z, Z_FINISH);
	/* exactly want bytes, from exactly the n given */
	rc = rc == Z_STREAM_END && !z.avail_out && !z.avail_in ? 0 :
	     rc == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	inflateEnd(&z);
	return rc;
}
