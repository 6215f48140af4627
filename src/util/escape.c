// SPDX-License-Identifier: Apache-2.0
/* escape: untrusted text into JSON, XML and CSV (include/arenaprof/util/escape.h). */
#include <stdbool.h>
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

/*
 * Walks s character by character: a valid multi-byte sequence is written as it is, an
 * invalid byte as '?', and every single byte goes to one(f, c).
 */
static size_t walk(FILE *f, const char *s, size_t max, void (*one)(FILE *f, unsigned char c))
{
	size_t n = 0;

	while (s && *s && n < max) {
		int len = ap_utf8_seq(s);

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
	fputc('"', f);
	walk(f, s, (size_t)-1, json_one);
	fputc('"', f);
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
	walk(f, s, max, xml_one);
}

static void csv_one(FILE *f, unsigned char c)
{
	if (c == '"')
		fputc('"', f);
	fputc(c < 0x20 || c == 0x7f ? ' ' : (int)c, f);
}

void ap_fput_csv(FILE *f, const char *s)
{
	fputc('"', f);
	walk(f, s, (size_t)-1, csv_one);
	fputc('"', f);
}

/* U+0080..U+009F: the C1 controls, two bytes in UTF-8 (C2 80 .. C2 9F) */
static bool is_c1(const char *s, int len)
{
	return len == 2 && (unsigned char)s[0] == 0xc2 && (unsigned char)s[1] < 0xa0;
}

const char *ap_text_safe(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return "";
	while (s && *s) {
		int l = ap_utf8_seq(s);
		unsigned char c = (unsigned char)*s;
		bool bad = !l || is_c1(s, l) || (l == 1 && (c < 0x20 || c == 0x7f));
		size_t w = bad ? 1 : (size_t)l;

		if (n + w >= len)
			break;
		if (bad)
			buf[n] = '?';
		else
			memcpy(buf + n, s, w);
		n += w;
		s += l ? l : 1;
	}
	buf[n] = '\0';
	return buf;
}

void ap_fput_text(FILE *f, const char *s)
{
	char buf[256];

	while (s && *s) {
		size_t take = 0;

		/* whole characters, at most 200 bytes at a time */
		while (s[take] && take < 200) {
			int l = ap_utf8_seq(s + take);

			take += l ? (size_t)l : 1;
		}
		{
			char part[208];

			memcpy(part, s, take);
			part[take] = '\0';
			fputs(ap_text_safe(part, buf, sizeof(buf)), f);
		}
		s += take;
	}
}
