/* SPDX-License-Identifier: Apache-2.0 */
/*
 * symbols: ELF symbol lookups for uprobe targets (elfutils' libelf, not hand parsing).
 */
#ifndef ARENAPROF_SYMBOLS_H
#define ARENAPROF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Finds a defined function symbol (in .dynsym or .symtab, local symbols included) and
 * gives the file offset of its first instruction, the offset uprobes want. 0 on success,
 * or a negative errno with err: the open's (-ENOENT, -EACCES...), -EINVAL not an ELF file
 * (or the symbol in no loadable segment), -ENOENT no such symbol.
 */
int ap_symbols_lookup(const char *elf_path, const char *symbol, uint64_t *file_offset,
		      char *err);

/*
 * Looks for LiteRT's invoke entry points in an executable or shared library and copies
 * the first found, in this order, into symbol (len bytes):
 *   _ZN6tflite19interpreter_wrapper18InterpreterWrapper6InvokeEi   the Python wrapper
 *   TfLiteInterpreterInvoke                  the C API
 *   _ZN6tflite4impl11Interpreter6InvokeEv    tflite::impl::Interpreter::Invoke()
 *   _ZN6tflite11Interpreter6InvokeEv         tflite::Interpreter::Invoke() (older TF)
 * The outermost entry a program goes through comes first: the Python wrapper invokes the
 * subgraph itself and never calls Interpreter::Invoke (measured on the ai_edge_litert
 * wheel: 3 wrapper calls, 0 Interpreter::Invoke calls for 3 invoke()s), and the C API
 * function is the exported boundary of C-API libraries, whose C++ symbols may be local,
 * stripped or inlined. Returns 1 when found, 0 when none is there, a negative errno when
 * the file cannot be read as ELF (the open's, or -EINVAL).
 */
int ap_symbols_find_invoke(const char *elf_path, char *symbol, size_t len);

/*
 * The function symbol (.symtab or .dynsym) whose bytes hold the instruction at
 * file_offset of the ELF file: its name into name (len bytes, as stored: mangled) and
 * the offset into it into *delta. inode: 0 any file at elf_path; else the file opened
 * must have it (the file a trace saw mapped, not one rebuilt or copied there since).
 * 0, or a negative errno: the file cannot be read (the open's, -EINVAL not ELF), is
 * another file (-ESTALE), or no symbol holds that address (-ENOENT).
 */
int ap_symbols_name_at(const char *elf_path, uint64_t inode, uint64_t file_offset, char *name,
		       size_t len, uint64_t *delta);

#endif
