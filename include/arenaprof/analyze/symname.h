/* SPDX-License-Identifier: Apache-2.0 */
/* symname: an offset into a mapped ELF file, named by its symbol for a report line. */
#ifndef ARENAPROF_SYMNAME_H
#define ARENAPROF_SYMNAME_H

#include <stddef.h>
#include <stdint.h>

/* "symbol (file)" (demangled), or "file+0x1234" without one; inode as for
 * ap_symbols_name_at (0: any file at path). Printable (escape.h). Returns buf. */
const char *ap_file_addr_name(const char *path, uint64_t inode, uint64_t file_off, char *buf,
			      size_t len);

/* A mangled name as its qualified name without parameters ("tflite::xnnpack::Subgraph::
 * Prepare"), with a small demangler: nested and plain names; anything else is m itself.
 * Returns buf or m. */
const char *ap_demangle(const char *m, char *buf, size_t len);

#endif
