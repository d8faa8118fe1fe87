/*
 * fuzz-elf - the ELF symbol and USDT note reader (lib/elfsyms.c) that
 * dc-explore and dc-gen run on libraries and executables.
 * Exit: 0 for a usable ELF file, 4 for one it refuses, 1 when unreadable.
 */
#include "config.h"

#include "elfsyms.h"
#include "fuzz.h"

static int elf_one(struct fuzz_input *in)
{
	struct dc_elf *elf;
	char err[512];
	int st;

	st = dc_elf_open(fuzz_input_path(in), &elf, err, sizeof(err));
	if (st != 0)
		return st;
	/* Look names up as dc-gen does: bare, versioned, missing. */
	dc_elf_find(elf, "write");
	dc_elf_find(elf, "write@@GLIBC_2.2.5");
	dc_elf_find(elf, "no_such_function");
	dc_elf_free(elf);
	return 0;
}

const struct fuzz_target fuzz_target = { "fuzz-elf", NULL, elf_one };
