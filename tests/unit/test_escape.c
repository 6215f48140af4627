// SPDX-License-Identifier: Apache-2.0
/* escape: JSON, XML and CSV writers against outputs written out by hand. */
#include "arenaprof/util/escape.h"
#include "test.h"

enum fmt { JSON, XML, CSV };

static void one(enum fmt k, const char *in, size_t max, const char *want)
{
	static const char *names[] = { "json", "xml", "csv" };
	char *buf = NULL, name[160];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		CHECK("open_memstream", 0, "failed");
		return;
	}
	if (k == JSON)
		ap_fput_json_str(f, in);
	else if (k == XML)
		ap_fput_xml(f, in, max);
	else
		ap_fput_csv(f, in);
	fclose(f);
	snprintf(name, sizeof(name), "%s of %s", names[k], want);
	CHECK(name, !strcmp(buf, want), "got '%s'", buf);
	free(buf);
}

int main(void)
{
	CHECK_EQ_I64("utf8: ASCII is 1", ap_utf8_seq("a"), 1);
	CHECK_EQ_I64("utf8: e-acute is 2", ap_utf8_seq("\xc3\xa9"), 2);
	CHECK_EQ_I64("utf8: euro sign is 3", ap_utf8_seq("\xe2\x82\xac"), 3);
	CHECK_EQ_I64("utf8: a lone continuation byte is none", ap_utf8_seq("\x80"), 0);
	CHECK_EQ_I64("utf8: an overlong 2-byte form is none", ap_utf8_seq("\xc0\xaf"), 0);
	CHECK_EQ_I64("utf8: a cut sequence is none", ap_utf8_seq("\xe2\x82"), 0);

	one(JSON, "conv \"a\\b\"", 0, "\"conv \\\"a\\\\b\\\"\"");
	one(JSON, "a\nb\tc\x1b[2J", 0, "\"a\\nb\\tc\\u001b[2J\"");
	one(JSON, "caf\xc3\xa9 \xff!", 0, "\"caf\xc3\xa9 ?!\"");
	one(JSON, NULL, 0, "\"\"");
	one(XML, "<a & \"b\">\x07", 100, "&lt;a &amp; &quot;b&quot;&gt;?");
	one(XML, "abcdef", 3, "abc");
	one(XML, "\xc3\xa9\xc3\xa9\xc3\xa9", 2, "\xc3\xa9\xc3\xa9");
	one(CSV, "say \"hi\"\r\n", 0, "\"say \"\"hi\"\"  \"");
	one(CSV, "\xfe", 0, "\"?\"");
	{
		char b[16], *mem = NULL;
		size_t ml = 0;
		FILE *f;

		CHECK("text: ESC, newline, BEL and the 8-bit CSI as '?'",
		      !strcmp(ap_text_safe("a\x1b[2J\nb\x07\xc2\x9b" "c", b, sizeof(b)),
			      "a?[2J?b??c"), "got '%s'", b);
		CHECK("text: valid UTF-8 kept, an invalid byte as '?'",
		      !strcmp(ap_text_safe("caf\xc3\xa9\xff", b, sizeof(b)), "caf\xc3\xa9?"),
		      "got '%s'", b);
		CHECK("text: cut at a character boundary",
		      !strcmp(ap_text_safe("\xc3\xa9\xc3\xa9\xc3\xa9", b, 6), "\xc3\xa9\xc3\xa9"),
		      "got '%s'", b);
		f = open_memstream(&mem, &ml);
		if (f) {
			ap_fput_text(f, "x\x1b]52;c;QQ==\x07\ny");
			fclose(f);
			CHECK("fput_text: the same rule, any length", mem &&
			      !strcmp(mem, "x?]52;c;QQ==??y"), "got '%s'", mem ? mem : "");
			free(mem);
		}
	}
	{
		char s1[] = "a\x1b[2J\nb\x07\xc2\x9b" "c\tcaf\xc3\xa9\xff\xe4\xb8\xad"
			    "\xf0\x9f\x98\x80\x7f";
		char s2[] = "\xe4\xb8";	/* a sequence cut short: two invalid bytes */

		CHECK("name_clean: in place, as text_safe shows it, valid UTF-8 kept",
		      ap_name_clean(s1) == s1 && !strcmp(s1, "a?[2J?b??c?caf\xc3\xa9?\xe4\xb8\xad"
		      "\xf0\x9f\x98\x80?"), "got '%s'", s1);
		CHECK("name_clean: a cut sequence byte by byte; NULL stays NULL",
		      !strcmp(ap_name_clean(s2), "??") && !ap_name_clean(NULL), "got '%s'", s2);
	}
	TEST_EXIT();
}
