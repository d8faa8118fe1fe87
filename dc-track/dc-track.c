/*
 * dc-track, dc-untrack - add or remove libdcclient.so as a DT_NEEDED
 * entry of a dynamic ELF executable, so the program announces itself to a
 * collector in client mode however it is started (a scheduler, a shell,
 * mpirun), with no LD_PRELOAD to lose on the way.
 *
 * Built twice from this file: DC_UNTRACK selects dc-untrack.
 *
 * Adding an entry needs two things the file must already have room for:
 *  - a spare slot in .dynamic: GNU ld leaves DT_NULL padding after the
 *    terminating DT_NULL; the new DT_NEEDED takes the first one;
 *  - the library's name in the dynamic string table.  The table is full,
 *    so a copy of it with the name appended goes at the end of the file,
 *    mapped by a new PT_LOAD made from a PT_NOTE program header (the
 *    loader ignores notes: the build id and ABI tag stay readable through
 *    the section headers; the GNU property note, which the loader does
 *    read, is never the one taken).  DT_STRTAB, DT_STRSZ and the .dynstr
 *    section header then point at the copy; every old string keeps its
 *    offset.
 * Removing rewrites .dynamic without the entry; the longer string table
 * stays, so tracking again needs no new segment.
 *
 * The change is made with libelf on a copy next to the file, flushed, and
 * renamed over it: the binary is either the old one or the new one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "messages.h"
#include "stream.h"

#define EXIT_UNTRACKABLE 6 /* static, a library, or no room: dc-track(1) */
#define PAGE 4096
#define CLIENT_NAME "libdcclient.so"

struct target {
	const char *file;        /* as given */
	char path[PATH_MAX];     /* the real file (symbolic links followed) */
	char tmp[PATH_MAX + 32];
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	Elf_Scn *dynamic;        /* the .dynamic section */
	Elf_Data *dyn;
	size_t ndyn;             /* slots in .dynamic */
	size_t nused;            /* entries before the first DT_NULL */
	Elf_Scn *dynstr;
	size_t dynstr_index;
	char *strbuf;            /* the grown .dynstr, freed after elf_end */
};

#ifdef DC_UNTRACK
static const char usage_text[] =
	"Usage: %s FILE...\n"
	"Remove the datacrumbs client library from the DT_NEEDED entries\n"
	"of each dynamic executable FILE (undoing dc-track).\n"
	"\n"
	"  -q, --quiet    say nothing when FILE was not tracked\n"
	"  -h, --help     show this help and exit\n"
	"  -V, --version  show the version and exit\n";
#else
static const char usage_text[] =
	"Usage: %s [-l LIB] FILE...\n"
	"Add the datacrumbs client library as a DT_NEEDED entry of each\n"
	"dynamic executable FILE, so it registers with a collector in client\n"
	"mode whoever starts it.\n"
	"\n"
	"  -l, --lib PATH  the library (default: $DC_CLIENT_LIB, else\n"
	"                  " LIBDIR "/" CLIENT_NAME "); recorded by its\n"
	"                  absolute path\n"
	"  -q, --quiet     say nothing when FILE was already tracked\n"
	"  -h, --help      show this help and exit\n"
	"  -V, --version   show the version and exit\n";
#endif

/* One line about FILE, then this file is done with the given status. */
static int __attribute__((format(printf, 3, 4)))
refuse(struct target *t, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn("%s: %s", t->file, msg);
	return status;
}

static bool is_client(const char *name)
{
	const char *base = strrchr(name, '/');

	return strcmp(base ? base + 1 : name, CLIENT_NAME) == 0;
}

/* Find .dynamic and its string table; check this is a dynamic
 * executable.  0, or an exit status after one line. */
static int inspect(struct target *t)
{
	size_t i, nphdr;
	bool interp = false, dynamic = false;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	GElf_Dyn d;

	if (elf_kind(t->elf) != ELF_K_ELF || gelf_getehdr(t->elf, &t->ehdr) == NULL)
		return refuse(t, DC_EXIT_BADINPUT, "not an ELF file");
	if (elf_getphdrnum(t->elf, &nphdr) != 0)
		return refuse(t, DC_EXIT_BADINPUT, "malformed ELF file: %s",
			      elf_errmsg(-1));
	for (i = 0; i < nphdr; i++) {
		if (gelf_getphdr(t->elf, (int)i, &ph) == NULL)
			return refuse(t, DC_EXIT_BADINPUT, "malformed program header");
		interp |= ph.p_type == PT_INTERP;
		dynamic |= ph.p_type == PT_DYNAMIC;
	}
	if (!dynamic || (t->ehdr.e_type == ET_EXEC && !interp))
		return refuse(t, EXIT_UNTRACKABLE, "statically linked: no "
			      "dynamic loader will load the client library; "
			      "cannot track it");
	if (!interp)
		return refuse(t, EXIT_UNTRACKABLE, "not an executable (no "
			      "program interpreter): cannot track it");
	while ((scn = elf_nextscn(t->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return refuse(t, DC_EXIT_BADINPUT, "malformed section header");
		if (sh.sh_type == SHT_DYNAMIC) {
			t->dynamic = scn;
			t->dynstr_index = sh.sh_link;
		}
	}
	if (t->dynamic == NULL || (t->dyn = elf_getdata(t->dynamic, NULL)) == NULL)
		return refuse(t, EXIT_UNTRACKABLE, "no .dynamic section "
			      "(stripped of section headers?): cannot track it");
	t->dynstr = elf_getscn(t->elf, t->dynstr_index);
	if (t->dynstr == NULL)
		return refuse(t, DC_EXIT_BADINPUT, "no dynamic string table");
	t->ndyn = t->dyn->d_size / gelf_fsize(t->elf, ELF_T_DYN, 1, EV_CURRENT);
	for (t->nused = 0; t->nused < t->ndyn; t->nused++) {
		if (gelf_getdyn(t->dyn, (int)t->nused, &d) == NULL)
			return refuse(t, DC_EXIT_BADINPUT, "malformed .dynamic");
		if (d.d_tag == DT_NULL)
			break;
	}
	if (t->nused == t->ndyn)
		return refuse(t, DC_EXIT_BADINPUT, ".dynamic has no DT_NULL");
	return 0;
}

/* The index of the DT_NEEDED entry naming the client library, or -1. */
static long find_client(struct target *t)
{
	Elf_Data *strs = elf_getdata(t->dynstr, NULL);
	GElf_Dyn d;
	size_t i;

	for (i = 0; i < t->nused; i++) {
		gelf_getdyn(t->dyn, (int)i, &d);
		if (d.d_tag != DT_NEEDED || strs == NULL ||
		    d.d_un.d_val >= strs->d_size)
			continue;
		if (memchr((char *)strs->d_buf + d.d_un.d_val, '\0',
			   strs->d_size - d.d_un.d_val) != NULL &&
		    is_client((char *)strs->d_buf + d.d_un.d_val))
			return (long)i;
	}
	return -1;
}

#ifndef DC_UNTRACK
static void set_dyn(struct target *t, GElf_Sxword tag, GElf_Xword val)
{
	GElf_Dyn d;
	size_t i;

	for (i = 0; i < t->nused; i++) {
		gelf_getdyn(t->dyn, (int)i, &d);
		if (d.d_tag == tag) {
			d.d_un.d_val = val;
			gelf_update_dyn(t->dyn, (int)i, &d);
		}
	}
}

/* Where name already is in the string table (as a whole string), or 0. */
static size_t find_string(Elf_Data *strs, const char *name)
{
	size_t n = strlen(name) + 1, off;

	for (off = 1; strs != NULL && off + n <= strs->d_size; off++)
		if ((off == 0 || ((char *)strs->d_buf)[off - 1] == '\0') &&
		    memcmp((char *)strs->d_buf + off, name, n) == 0)
			return off;
	return 0;
}

static GElf_Off align_up(GElf_Off v, GElf_Off a)
{
	return (v + a - 1) / a * a;
}

/* Append name to a copy of the dynamic string table at the end of the
 * file, mapped by a PT_NOTE turned PT_LOAD.  Its offset, or 0 after one
 * line (status in *status). */
static size_t append_string(struct target *t, const char *name, int *status)
{
	Elf_Data *strs = elf_getdata(t->dynstr, NULL);
	GElf_Off file_end, vaddr_end = 0, property = (GElf_Off)-1, off;
	GElf_Addr vaddr;
	size_t nphdr, i, nlen = strlen(name) + 1, old;
	long note = -1, last_load = -1;
	Elf_Scn *scn = NULL;
	unsigned char *buf;
	GElf_Shdr sh;
	GElf_Phdr ph;

	elf_getphdrnum(t->elf, &nphdr);
	for (i = 0; i < nphdr; i++) {
		gelf_getphdr(t->elf, (int)i, &ph);
		if (ph.p_type == PT_GNU_PROPERTY)
			property = ph.p_offset;
		if (ph.p_type == PT_LOAD) {
			last_load = (long)i;
			if (ph.p_vaddr + ph.p_memsz > vaddr_end)
				vaddr_end = ph.p_vaddr + ph.p_memsz;
		}
	}
	/* PT_LOAD headers must stay in ascending address order: only a note
	 * after the last of them can become the highest one. */
	for (i = 0; i < nphdr; i++) {
		gelf_getphdr(t->elf, (int)i, &ph);
		if (ph.p_type == PT_NOTE && (long)i > last_load &&
		    ph.p_offset != property)
			note = (long)i;
	}
	if (strs == NULL || note < 0) {
		*status = refuse(t, EXIT_UNTRACKABLE, "no room for the library's "
				 "name: the string table is full and there is no "
				 "spare program header to map a larger one");
		return 0;
	}
	file_end = t->ehdr.e_shoff + (GElf_Off)t->ehdr.e_shnum * t->ehdr.e_shentsize;
	while ((scn = elf_nextscn(t->elf, scn)) != NULL) {
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > file_end)
			file_end = sh.sh_offset + sh.sh_size;
	}
	off = align_up(file_end, PAGE);
	vaddr = align_up(vaddr_end, PAGE);

	old = strs->d_size;
	buf = xmalloc(old + nlen);
	memcpy(buf, strs->d_buf, old);
	memcpy(buf + old, name, nlen);
	strs->d_buf = buf; /* libelf uses it until elf_end */
	t->strbuf = (char *)buf;
	strs->d_size = old + nlen;
	elf_flagdata(strs, ELF_C_SET, ELF_F_DIRTY);

	gelf_getshdr(t->dynstr, &sh);
	sh.sh_offset = off;
	sh.sh_addr = vaddr;
	sh.sh_size = old + nlen;
	gelf_update_shdr(t->dynstr, &sh);

	gelf_getphdr(t->elf, (int)note, &ph);
	ph.p_type = PT_LOAD;
	ph.p_offset = off;
	ph.p_vaddr = ph.p_paddr = vaddr;
	ph.p_filesz = ph.p_memsz = old + nlen;
	ph.p_flags = PF_R;
	ph.p_align = PAGE;
	gelf_update_phdr(t->elf, (int)note, &ph);
	elf_flagphdr(t->elf, ELF_C_SET, ELF_F_DIRTY);

	set_dyn(t, DT_STRTAB, vaddr);
	set_dyn(t, DT_STRSZ, old + nlen);
	return old;
}

/* Add DT_NEEDED lib.  0, or the status after one line. */
static int add_needed(struct target *t, const char *lib)
{
	size_t off;
	GElf_Dyn d;
	int status = 0;

	if (t->nused + 2 > t->ndyn)
		return refuse(t, EXIT_UNTRACKABLE, "no room for another dynamic "
			      "entry (.dynamic has no spare slot)");
	off = find_string(elf_getdata(t->dynstr, NULL), lib);
	if (off == 0 && (off = append_string(t, lib, &status)) == 0)
		return status;
	/* The terminating DT_NULL moves one slot down, into the padding. */
	d.d_tag = DT_NEEDED;
	d.d_un.d_val = off;
	gelf_update_dyn(t->dyn, (int)t->nused, &d);
	d.d_tag = DT_NULL;
	d.d_un.d_val = 0;
	gelf_update_dyn(t->dyn, (int)t->nused + 1, &d);
	elf_flagdata(t->dyn, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}
#else
static int remove_needed(struct target *t, long at)
{
	GElf_Dyn d;
	size_t i;

	for (i = (size_t)at; i < t->nused; i++) {
		gelf_getdyn(t->dyn, (int)i + 1, &d);
		gelf_update_dyn(t->dyn, (int)i, &d);
	}
	elf_flagdata(t->dyn, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}
#endif

/* A copy of the file next to it, with its mode and owner. */
static int make_copy(struct target *t, const struct stat *st)
{
	char buf[65536];
	ssize_t n;
	int in, out;

	snprintf(t->tmp, sizeof(t->tmp), "%s.dc-track.XXXXXX", t->path);
	out = mkstemp(t->tmp);
	if (out < 0)
		return refuse(t, DC_EXIT_FAILURE, "cannot create a file next to "
			      "it: %s", strerror(errno));
	in = open(t->path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		int e = errno;

		close(out);
		unlink(t->tmp);
		return refuse(t, DC_EXIT_FAILURE, "%s", strerror(e));
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (dc_write_all(out, buf, (size_t)n) != 0)
			break;
	close(in);
	if (n != 0 || fchmod(out, st->st_mode & 07777) != 0 ||
	    (geteuid() == 0 && fchown(out, st->st_uid, st->st_gid) != 0)) {
		int e = errno;

		close(out);
		unlink(t->tmp);
		return refuse(t, DC_EXIT_FAILURE, "cannot copy it: %s", strerror(e));
	}
	t->fd = out;
	return 0;
}

/* Track or untrack one file; its exit status. */
static int process(const char *file, const char *lib, bool quiet)
{
	struct target t;
	struct stat st;
	int status;
	long at;

	memset(&t, 0, sizeof(t));
	t.file = file;
	t.fd = -1;
	if (realpath(file, t.path) == NULL || stat(t.path, &st) != 0)
		return refuse(&t, DC_EXIT_FAILURE, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return refuse(&t, DC_EXIT_BADINPUT, "not a regular file");
	if ((status = make_copy(&t, &st)) != 0)
		return status;
	t.elf = elf_begin(t.fd, ELF_C_RDWR, NULL);
	if (t.elf == NULL) {
		status = refuse(&t, DC_EXIT_BADINPUT, "not an ELF file");
		goto out;
	}
	if ((status = inspect(&t)) != 0)
		goto out;
	at = find_client(&t);
#ifdef DC_UNTRACK
	(void)lib;
	if (at < 0) {
		if (!quiet)
			notice("%s: not tracked", file);
		goto out;
	}
	status = remove_needed(&t, at);
#else
	if (at >= 0) {
		if (!quiet)
			notice("%s: already tracked", file);
		goto out;
	}
	status = add_needed(&t, lib);
#endif
	if (status != 0)
		goto out;
	/* Keep every offset as it is: only what was changed moves. */
	elf_flagelf(t.elf, ELF_C_SET, ELF_F_LAYOUT);
	if (elf_update(t.elf, ELF_C_WRITE) < 0) {
		status = refuse(&t, DC_EXIT_FAILURE, "cannot write it: %s",
				elf_errmsg(-1));
		goto out;
	}
	elf_end(t.elf);
	t.elf = NULL;
	if (fsync(t.fd) != 0 || close(t.fd) != 0) {
		t.fd = -1;
		status = refuse(&t, DC_EXIT_FAILURE, "cannot write it: %s",
				strerror(errno));
		goto out;
	}
	t.fd = -1;
	if (rename(t.tmp, t.path) != 0) {
		status = refuse(&t, DC_EXIT_FAILURE, "cannot replace it: %s",
				strerror(errno));
		goto out;
	}
	t.tmp[0] = '\0';
out:
	if (t.elf != NULL)
		elf_end(t.elf);
	free(t.strbuf);
	if (t.fd >= 0)
		close(t.fd);
	if (t.tmp[0] != '\0')
		unlink(t.tmp);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *lib = NULL;
	char resolved[PATH_MAX];
	bool quiet = false;
	int opt, i, status = 0, s;

	dc_messages_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "l:qhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
#ifdef DC_UNTRACK
			dc_usage_error("--lib is dc-track's option");
#endif
			lib = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			printf(usage_text, dc_program);
			xfclose_stdout();
			exit(0);
		case 'V':
			dc_print_version();
		default:
			dc_try_help();
		}
	}
	if (optind >= argc)
		dc_usage_error("no file given");
	if (elf_version(EV_CURRENT) == EV_NONE)
		die("libelf is too old: %s", elf_errmsg(-1));
#ifndef DC_UNTRACK
	if (lib == NULL)
		lib = getenv("DC_CLIENT_LIB");
	if (lib == NULL || *lib == '\0')
		lib = LIBDIR "/" CLIENT_NAME;
	/* By absolute path: found whatever the program's search path. */
	if (realpath(lib, resolved) == NULL)
		sysdie("cannot use client library %s", lib);
	if (!is_client(resolved))
		die("%s: the client library must be named %s", lib, CLIENT_NAME);
	lib = resolved;
#else
	(void)resolved;
#endif
	for (i = optind; i < argc; i++) {
		s = process(argv[i], lib, quiet);
		if (s != 0 && status == 0)
			status = s;
	}
	return status;
}
