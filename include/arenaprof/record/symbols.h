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

/* A run entry point found in an ELF file: its symbol (as stored: mangled), the API. */
struct ap_run_entry {
	char symbol[256];
	const char *api;	/* "Python Interpreter.invoke", ... (static) */
	int group;
};

/*
 * LiteRT's run entry points in an executable or shared library, every API there:
 *   _ZN6tflite19interpreter_wrapper18InterpreterWrapper6InvokeEi   Python Interpreter.invoke
 *   TfLiteInterpreterInvoke                  the interpreter's C API
 *   _ZN20LiteRtCompiledModelT3Run...         where every CompiledModel API converges
 *   _ZN6tflite4impl11Interpreter6InvokeEv    tflite::impl::Interpreter::Invoke() (C++),
 *   _ZN6tflite11Interpreter6InvokeEv         tflite::Interpreter::Invoke() (older TF),
 *                                            only where that Run is not (its caller)
 *   LiteRtRunCompiledModel*                  CompiledModel's C API, only where that
 *                                            internal Run is stripped (libLiteRt.so)
 *   xnn_invoke_runtime                       XNNPACK's, only in a file with none of the
 *                                            above (a program driving XNNPACK itself)
 * The Python wrapper invokes the subgraph itself and never calls Interpreter::Invoke
 * (measured on the ai_edge_litert wheel), and CompiledModel's Run calls
 * Interpreter::Invoke: one API can call another, so the run probe counts only the
 * outermost call on a thread (bpf/arenaprof.bpf.c, run_depth). Fills up to max entries
 * and returns how many; a negative errno when the file cannot be read as ELF (the
 * open's, or -EINVAL).
 */
int ap_symbols_find_runs(const char *elf_path, struct ap_run_entry *out, size_t max);

/* XNNPACK's default allocator (its src/allocator.c): the functions of its table. */
enum ap_xnn_alloc_sym {
	AP_XNN_SYM_ALLOCATE,		/* xnn_allocate */
	AP_XNN_SYM_REALLOCATE,		/* xnn_reallocate */
	AP_XNN_SYM_ALIGNED,		/* xnn_aligned_allocate */
	AP_XNN_SYM_FREE,		/* xnn_deallocate */
	AP_XNN_SYM_ALIGNED_FREE,	/* xnn_aligned_deallocate */
	AP_XNN_N_SYMS,
};

/*
 * The file offsets of XNNPACK's allocator functions in an ELF file, in one pass over its
 * symbol tables (LiteRT's wheel keeps them as local .symtab entries). 1: all five found;
 * 0: not all (an XNNPACK built without them, or a stripped one); a negative errno when
 * the file cannot be read as ELF.
 */
int ap_symbols_find_xnn_allocator(const char *elf_path, uint64_t off[AP_XNN_N_SYMS]);

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

/*
 * ap_symbols_name_at for n file offsets at once (sorted ascending), in one pass over the
 * symbol tables: names[i] gets a strdup of the mangled name holding file_offset[i], or
 * NULL when none does (the caller frees each). 0, or a negative errno (as
 * ap_symbols_name_at's; -EINVAL also when the offsets are not sorted), names all NULL.
 */
int ap_symbols_names_at(const char *elf_path, uint64_t inode, const uint64_t *file_offset,
			size_t n, char **names);
#endif
