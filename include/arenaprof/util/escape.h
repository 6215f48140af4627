/* SPDX-License-Identifier: Apache-2.0 */
/*
 * escape: untrusted text (operator and tensor names from a model, mapping paths and
 * command lines from a traced process) written into a format, one writer per format.
 * Invalid UTF-8 becomes '?', so every output stays valid UTF-8 whatever the input held.
 */
#ifndef ARENAPROF_ESCAPE_H
#define ARENAPROF_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* n bytes of s to f, a byte at a time into stdio's buffer when they are few (fwrite's call
 * costs more than a key or a number does): the writers' inner step. */
static inline void ap_put_bytes(FILE *f, const char *s, size_t n)
{
	if (n > 24) {
		fwrite_unlocked(s, 1, n, f);
		return;
	}
	while (n--)
		putc_unlocked(*s++, f);
}

/* Bytes of the valid UTF-8 sequence at p (1 for ASCII), 0 when p holds none. */
int ap_utf8_seq(const char *p);

/* A JSON string with its quotes: '"' and '\' escaped, control bytes as \n, \t, \u00XX. */
void ap_fput_json_str(FILE *f, const char *s);
/* XML character data or an attribute value: markup escaped, control bytes as '?'; at most
 * max characters. */
void ap_fput_xml(FILE *f, const char *s, size_t max);
/* A CSV field with its quotes: quotes doubled, control bytes as spaces. */
void ap_fput_csv(FILE *f, const char *s);

/*
 * The one sanitation point of names read from outside (a model's, a trace's, /proc's, an
 * imported plan's), applied where they are read: in place, every control character (C0
 * with newline and tab, DEL, C1) and every invalid UTF-8 byte becomes '?', as
 * ap_text_safe shows them. A name cleaned so is printable as it is in text, and a JSON or
 * CSV writer has only its own syntax to escape. Returns s (NULL stays NULL).
 */
char *ap_name_clean(char *s);

/*
 * Text for a terminal or a text report: a copy of s in buf (len bytes) with every control
 * character (C0 with newline and tab, DEL, and C1 such as the 8-bit CSI) and every invalid
 * UTF-8 byte as '?', so a name cannot move the cursor, clear the screen, write the
 * clipboard (OSC 52) or start a line of its own. Cut at a character boundary. Returns buf.
 */
const char *ap_text_safe(const char *s, char *buf, size_t len);
/* fputs of ap_text_safe(s), of any length. */
void ap_fput_text(FILE *f, const char *s);

#endif
