// SPDX-License-Identifier: Apache-2.0
/* symname: an address of a mapped ELF file named by its symbol (symname.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/symname.h"
#include "arenaprof/record/symbols.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/path.h"

/*
 * A small demangler for the names callers have: nested names (_ZN ... E) and plain
 * ones (_Z3foo), without their parameters; anything else stays as it is.
 */
const char *ap_demangle(const char *m, char *buf, size_t len)
{
	const char *p = m;
	size_t n = 0;
	bool nested;

	static const struct {
		const char *mangled, *name;
	} special[] = {
		{ "_Znwm", "operator new" }, { "_Znam", "operator new[]" },
		{ "_ZnwmSt11align_val_t", "operator new" },
		{ "_ZnamSt11align_val_t", "operator new[]" },
	};

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(m, special[i].mangled))
			return special[i].name;
	if (strncmp(p, "_Z", 2))
		return m;
	p += 2;
	nested = *p == 'N';
	if (nested)
		p++;
	while (*p == 'K' || *p == 'V' || *p == 'r')	/* cv-qualifiers of a method */
		p++;
	buf[0] = '\0';
	while (*p >= '1' && *p <= '9') {
		char *end;
		unsigned long l = strtoul(p, &end, 10);

		if (strlen(end) < l || n + l + 3 >= len)
			return m;
		if (n) {
			memcpy(buf + n, "::", 2);
			n += 2;
		}
		memcpy(buf + n, end, l);
		n += l;
		buf[n] = '\0';
		p = end + l;
		if (!nested)
			break;
	}
	if (!n || (nested && *p != 'E' && *p != 'C' && *p != 'D' && *p != 'I'))
		return n ? buf : m;
	return buf;
}

const char *ap_file_addr_name(const char *path, uint64_t inode, uint64_t file_off, char *buf,
			      size_t len)
{
	char sym[512], dm[512];
	uint64_t d;

	if (!ap_symbols_name_at(path, inode, file_off, sym, sizeof(sym), &d))
		snprintf(buf, len, "%s (%s)", ap_demangle(sym, dm, sizeof(dm)),
			 ap_base_name(path));
	else
		snprintf(buf, len, "%s+0x%" PRIx64, ap_base_name(path), file_off);
	return ap_name_clean(buf);	/* an ELF file's symbol is its author's text */
}
