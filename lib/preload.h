/*
 * preload.h - whether a program will load a preloaded library: the rules
 * dc-collect applies after an exec (proc.c) and the client library
 * before one (dc-wrap/exec.c), one copy of each.  Header-only: the
 * client links nothing of lib/; and it reads files through its own
 * pread (a dc_pread_fn), as libc's pread is its own wrapper.
 */
#ifndef DC_PRELOAD_H
#define DC_PRELOAD_H

#include <elf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Whether list (colon or space separated, as ld.so(8) reads it) names
 * lib, a resolved path: by that path, or one that resolves to it. */
static inline bool dc_preload_names(const char *list, const char *lib)
{
	char entry[PATH_MAX], real[PATH_MAX];

	while (*list != '\0') {
		size_t len = strcspn(list, ": ");

		if (len > 0 && len < sizeof(entry)) {
			memcpy(entry, list, len);
			entry[len] = '\0';
			if (strcmp(entry, lib) == 0 ||
			    (entry[0] == '/' && realpath(entry, real) != NULL &&
			     strcmp(real, lib) == 0))
				return true;
		}
		list += len;
		if (*list != '\0')
			list++;
	}
	return false;
}

typedef ssize_t (*dc_pread_fn)(int fd, void *buf, size_t n, off_t off);

/* The ELF file fd's type (ET_*) in *type; 1 if it names an interpreter
 * (PT_INTERP: ld.so, which loads a preload), 0 if not (static), -1 if it
 * is not a 64-bit ELF file (a script: its interpreter decides). */
static inline int dc_elf_interp_rd(int fd, uint16_t *type, dc_pread_fn rd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (rd(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		return -1;
	*type = eh.e_type;
	for (int i = 0; i < eh.e_phnum; i++) {
		off_t at = (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph));

		if (rd(fd, &ph, sizeof(ph), at) != (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type == PT_INTERP)
			return 1;
	}
	return 0;
}

/* How to read a file: pread(2) and fstat(2), or a caller's own. */
struct dc_file_ops {
	dc_pread_fn pread;
	int (*fstat)(int fd, struct stat *st);
};

enum {
	DC_PROGRAM_PRELOADS = 0, /* loads a preload its environment names */
	DC_PROGRAM_STATIC,       /* no interpreter to load one */
	DC_PROGRAM_SECURE,       /* set-ID or with file capabilities */
};

/* What the program file fd does with a preload its environment names.
 * Set-ID (or file capabilities) means AT_SECURE, where ld.so ignores a
 * preload named by a path, unless its owner runs it: a guess on the safe
 * side.  Not ELF (a script): its interpreter decides, which preloads. */
static inline int dc_program_preload(int fd, const struct dc_file_ops *ops)
{
	struct stat st;
	uint16_t type;
	int r = dc_elf_interp_rd(fd, &type, ops->pread);

	if (r == 0)
		return DC_PROGRAM_STATIC;
	if (r == 1 && ops->fstat(fd, &st) == 0 &&
	    ((st.st_mode & (S_ISUID | S_ISGID)) != 0 ||
	     fgetxattr(fd, "security.capability", NULL, 0) >= 0))
		return DC_PROGRAM_SECURE;
	return DC_PROGRAM_PRELOADS;
}

/* cmd as execvp(3) finds it, into buf (len >= PATH_MAX): itself if it
 * names a directory, else the first file of that name in dirs (PATH;
 * NULL: execvp's default) that access(2) says may be executed.  False if
 * there is none. */
static inline bool dc_find_program(const char *cmd, const char *dirs,
				   char *buf, size_t len)
{
	if (len < PATH_MAX || *cmd == '\0')
		return false;
	if (strchr(cmd, '/') != NULL) {
		snprintf(buf, len, "%s", cmd);
		return true;
	}
	if (dirs == NULL)
		dirs = "/bin:/usr/bin";
	for (;;) {
		size_t n = strcspn(dirs, ":");

		/* An empty entry is the current directory. */
		snprintf(buf, len, "%.*s%s%s", (int)n, dirs, n > 0 ? "/" : "",
			 cmd);
		if (access(buf, X_OK) == 0)
			return true;
		if (dirs[n] == '\0')
			return false;
		dirs += n + 1;
	}
}

#endif /* DC_PRELOAD_H */
