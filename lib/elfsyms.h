/*
 * elfsyms.h - what a uprobe or USDT probe can attach to in an ELF file.
 *
 * dc-explore lists it and dc-gen resolves probe specs with it, so both see
 * the same functions at the same offsets.  The reader uses libelf (gelf),
 * checks every libelf return and bounds every section it reads against the
 * file size: a truncated or corrupt file is an error, never a crash.
 *
 * A function is a defined STT_FUNC or STT_GNU_IFUNC symbol with a non-zero
 * value, from .dynsym and .symtab.  Symbols at one address are one
 * function with several names (write, __write, __libc_write).  A uprobe
 * needs the FILE OFFSET of the code, which is the virtual address moved
 * through the PT_LOAD segment that maps it.
 */
#ifndef DC_ELFSYMS_H
#define DC_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

/* One name of a function.  .dynsym names carry their symbol version:
 * "write" with version "GLIBC_2.2.5" and is_default 1 is write@@GLIBC_2.2.5,
 * a hidden (non-default) version is written with a single @. */
struct dc_elf_name {
	char *name;      /* the bare symbol name */
	char *version;   /* version name, or NULL */
	int is_default;  /* 1: @@ (or unversioned), 0: hidden version (@) */
	int from_dynsym; /* found in .dynsym (exported) */
	int binding;     /* STB_GLOBAL, STB_WEAK, STB_LOCAL, ... */
};

struct dc_elf_func {
	uint64_t address;  /* virtual address (st_value) */
	uint64_t offset;   /* file offset for uprobes */
	uint64_t size;     /* st_size of the first name seen */
	int ifunc;         /* STT_GNU_IFUNC: the resolver, not the code */
	size_t nnames;
	struct dc_elf_name *names; /* names[0] is the preferred name */
};

struct dc_elf_usdt {
	char *provider;
	char *name;
	char *args;             /* argument spec, e.g. "-4@%edi 8@%rsi" */
	uint64_t address;       /* pc (adjusted for prelinking) */
	uint64_t offset;        /* file offset of pc */
	uint64_t semaphore;     /* semaphore address, 0 if none */
	uint64_t semaphore_offset; /* its file offset, 0 if none */
};

/* An exported data object: a default-version (or unversioned) .dynsym
 * STT_OBJECT (libc's stdout). */
struct dc_elf_object {
	char *name;
	uint64_t address;  /* virtual address (st_value) */
};

struct dc_elf {
	char *path;
	int elfclass;            /* ELFCLASS64 */
	int type;                /* ET_DYN or ET_EXEC */
	int machine;             /* e_machine */
	size_t nfuncs;
	struct dc_elf_func *funcs;   /* sorted by address */
	size_t nusdts;
	struct dc_elf_usdt *usdts;   /* sorted by provider, name, address */
	size_t nobjects;
	struct dc_elf_object *objects; /* in symbol table order */
};

/* Read PATH.  Returns 0 and sets *out, or returns an exit status and
 * writes a one-line message into err: 1 (DC_EXIT_FAILURE) when the file
 * cannot be opened or read, 4 (DC_EXIT_BADINPUT) when it is not a usable
 * ELF file (not ELF, truncated, corrupt, 32-bit class, relocatable). */
int dc_elf_open(const char *path, struct dc_elf **out, char *err, size_t errlen);
void dc_elf_free(struct dc_elf *elf);

/* The function that has NAME.  NAME may be bare ("write": the default or
 * unversioned symbol is preferred), "name@@VER" or "name@VER". */
const struct dc_elf_func *dc_elf_find(const struct dc_elf *elf,
				      const char *name);

/* The function whose code is at file OFFSET (a uprobe's), or NULL. */
const struct dc_elf_func *dc_elf_func_at(const struct dc_elf *elf,
					 uint64_t offset);

/* The exported data object NAME (bare), or NULL. */
const struct dc_elf_object *dc_elf_find_object(const struct dc_elf *elf,
					       const char *name);

/* A name as a string: "write", "memcpy@GLIBC_2.2.5" (hidden version) or,
 * with full set, "write@@GLIBC_2.2.5".  Returns a new string. */
char *dc_elf_name_string(const struct dc_elf_name *n, int full);

/* Find a shared library the way the dynamic loader would and store its
 * realpath in out.  NAME is a path (contains '/'), a file name
 * ("libc.so.6", "libhdf5.so") or a bare stem ("libhdf5": the plain .so if
 * there is one, else the highest libhdf5.so.N).  Searches LD_LIBRARY_PATH,
 * then /etc/ld.so.cache, then the default directories; only files of this
 * host's ELF class and machine count.  Returns 0, or 1 with a one-line
 * message in err. */
int dc_lib_resolve(const char *name, char *out, size_t outlen, char *err,
		   size_t errlen);

#endif /* DC_ELFSYMS_H */
