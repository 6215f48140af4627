// SPDX-License-Identifier: Apache-2.0
/* escape: untrusted text into JSON, XML and CSV (include/arenaprof/util/escape.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arenaprof/util/escape.h"

int ap_utf8_seq(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = *p;
	int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		  (c & 0xf8) == 0xf0 ? 4 : 0;

	if (!len || (len == 2 && c < 0xc2) || (len == 4 && c > 0xf4))
		return 0;
	for (int i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The ASCII bytes an escaper changes, one bit each (all of them below 0x80). */
struct specials {
	uint64_t lo, hi;
};

#define SPECIAL(c) ((c) < 64 ? (struct specials){ UINT64_C(1) << (c), 0 } : \
		    (struct specials){ 0, UINT64_C(1) << ((c) - 64) })

static bool is_special(struct specials sp, unsigned char c)
{
	return c < 64 ? sp.lo >> c & 1 : sp.hi >> (c - 64) & 1;
}

/* The bytes at s, at most max, that are printable ASCII and none of the specials. */
static size_t plain_run(const char *s, size_t max, struct specials sp)
{
	size_t n = 0;

	while (n < max && (unsigned char)s[n] >= 0x20 && (unsigned char)s[n] < 0x7f &&
	       !is_special(sp, (unsigned char)s[n]))
		n++;
	return n;
}

/*
 * Walks s character by character: a valid multi-byte sequence is written as it is, an
 * invalid byte as '?', and every single byte goes to one(f, c), except runs of printable
 * ASCII without specials, which one would write unchanged: those go in one fwrite (a
 * byte at a time was most of writing a report --json of a million mappings).
 */
static size_t walk(FILE *f, const char *s, size_t max, struct specials specials,
		   void (*one)(FILE *f, unsigned char c))
{
	size_t n = 0;

	while (s && *s && n < max) {
		size_t run = plain_run(s, max - n, specials);
		int len;

		if (run) {
			ap_put_bytes(f, s, run);
			s += run;
			n += run;
			continue;
		}
		len = ap_utf8_seq(s);
		if (!len) {
			fputc('?', f);
			s++;
		} else if (len > 1) {
			fwrite(s, 1, (size_t)len, f);
			s += len;
		} else {
			one(f, (unsigned char)*s++);
		}
		n++;
	}
	return n;
}

static void json_one(FILE *f, unsigned char c)
{
	switch (c) {
	case '"': fputs("\\\"", f); break;
	case '\\': fputs("\\\\", f); break;
	case '\n': fputs("\\n", f); break;
	case '\r': fputs("\\r", f); break;
	case '\t': fputs("\\t", f); break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

void ap_fput_json_str(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	walk(f, s, (size_t)-1, (struct specials){ SPECIAL('"').lo, SPECIAL('\\').hi },
	     json_one);
	putc_unlocked('"', f);
}

static void xml_one(FILE *f, unsigned char c)
{
	switch (c) {
	case '&': fputs("&amp;", f); break;
	case '<': fputs("&lt;", f); break;
	case '>': fputs("&gt;", f); break;
	case '"': fputs("&quot;", f); break;
	default: fputc(c < 0x20 || c == 0x7f ? '?' : (int)c, f);
	}
}

void ap_fput_xml(FILE *f, const char *s, size_t max)
{
	walk(f, s, max, (struct specials){ SPECIAL('&').lo | SPECIAL('<').lo | SPECIAL('>').lo |
					  SPECIAL('"').lo, 0 }, xml_one);
}

static void csv_one(FILE *f, unsigned char c)
{
	if (c == '"')
		fputc('"', f);
	fputc(c < 0x20 || c == 0x7f ? ' ' : (int)c, f);
}

void ap_fput_csv(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	walk(f, s, (size_t)-1, SPECIAL('"'), csv_one);
	putc_unlocked('"', f);
}

/*
 * The character at s for a terminal: its byte count when it is printable as it is, 0 when
 * it must be shown as '?' (a C0 control, DEL, a C1 control U+0080..U+009F such as the
 * 8-bit CSI, or an invalid byte). *adv: the bytes it takes in s.
 */
static int text_char(const char *s, int *adv)
{
	int l = ap_utf8_seq(s);
	unsigned char c = (unsigned char)*s;

	*adv = l ? l : 1;
	if (!l || (l == 1 && (c < 0x20 || c == 0x7f)) ||
	    (l == 2 && c == 0xc2 && (unsigned char)s[1] < 0xa0))
		return 0;
	return l;
}

const char *ap_text_safe(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return "";
	while (s && *s) {
		int adv, l = text_char(s, &adv);
		size_t w = l ? (size_t)l : 1;

		if (n + w >= len)
			break;
		if (l)
			memcpy(buf + n, s, w);
		else
			buf[n] = '?';
		n += w;
		s += adv;
	}
	buf[n] = '\0';
	return buf;
}

void ap_fput_text(FILE *f, const char *s)
{
	while (s && *s) {
		int adv, l = text_char(s, &adv);

		if (l)
			fwrite(s, 1, (size_t)l, f);
		else
			fputc('?', f);
		s += adv;
	}
}

char *ap_name_clean(char *s)
{
	char *out = s;

	for (const char *in = s; in && *in;) {
		int adv, l = text_char(in, &adv);

		if (l) {
			memmove(out, in, (size_t)l);
			out += l;
		} else {
			*out++ = '?';
		}
		in += adv;
	}
	if (out)
		*out = '\0';
	return s;
}
