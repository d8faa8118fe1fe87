/*
 * elfsyms.c - functions, symbol versions and USDT notes of an ELF file,
 * and library lookup by name (see elfsyms.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsyms.h"
#include "messages.h"

#define EXIT_FAIL 1   /* DC_EXIT_FAILURE */
#define EXIT_BAD 4    /* DC_EXIT_BADINPUT */

/* USDT notes: name "stapsdt", type 3 (the SystemTap SDT v3 layout). */
#define STAPSDT_NOTE_NAME "stapsdt"
#define STAPSDT_NOTE_TYPE 3


/* A symbol before grouping by address. */
struct raw_sym {
	uint64_t address, size;
	int ifunc;
	struct dc_elf_name n;
};

struct reader {
	const char *path;
	Elf *elf;
	uint64_t file_size;
	size_t nload;
	GElf_Phdr *load;          /* PT_LOAD headers */
	struct raw_sym *syms;
	size_t nsyms, cap;
	struct dc_elf *out;       /* its objects are added as read */
	char *err;
	size_t errlen;
};

static int add_sym(struct reader *r, const struct raw_sym *s)
{
	if (r->nsyms == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct raw_sym *p = realloc(r->syms, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		r->syms = p;
		r->cap = cap;
	}
	r->syms[r->nsyms++] = *s;
	return 0;
}

/* File offset of a virtual address, through the PT_LOAD segment that
 * holds its bytes in the file.  Returns -1 if none does. */
static int vaddr_to_offset(const struct reader *r, uint64_t vaddr,
			   uint64_t *offset)
{
	size_t i;

	for (i = 0; i < r->nload; i++) {
		const GElf_Phdr *ph = &r->load[i];

		if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr < ph->p_filesz) {
			*offset = vaddr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -1;
}

static int corrupt(struct reader *r, const char *what)
{
	int e = elf_errno();

	if (e != 0)
		dc_format_error(r->err, r->errlen, "%s: corrupt ELF file: %s: %s", r->path,
		       what, elf_errmsg(e));
	else
		dc_format_error(r->err, r->errlen, "%s: corrupt ELF file: %s", r->path,
		       what);
	return EXIT_BAD;
}

/* Version names by index, from .gnu.version_d. */
struct verdefs {
	size_t n;
	const char **names;  /* names[ndx], NULL where undefined */
};

static int read_verdefs(struct reader *r, Elf_Scn *scn, const GElf_Shdr *sh,
			struct verdefs *vd)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, count;

	if (data == NULL)
		return corrupt(r, "unreadable .gnu.version_d");
	/* sh_info is the number of entries; never walk more than that nor
	 * past the data, whatever vd_next says. */
	for (count = 0; count < sh->sh_info && count < 0x8000; count++) {
		GElf_Verdef def;
		GElf_Verdaux aux;
		const char *name;
		size_t ndx;

		if (off >= data->d_size || gelf_getverdef(data, (int)off, &def) == NULL)
			return corrupt(r, "bad .gnu.version_d entry");
		if (def.vd_cnt > 0 && off + def.vd_aux < data->d_size &&
		    gelf_getverdaux(data, (int)(off + def.vd_aux), &aux) != NULL) {
			name = elf_strptr(r->elf, sh->sh_link, aux.vda_name);
			if (name == NULL)
				return corrupt(r, "bad version name");
			ndx = def.vd_ndx & 0x7fff;
			if (ndx >= vd->n) {
				const char **p = realloc(vd->names,
							 (ndx + 1) * sizeof(*p));

				if (p == NULL)
					return EXIT_FAIL;
				memset(p + vd->n, 0, (ndx + 1 - vd->n) * sizeof(*p));
				vd->names = p;
				vd->n = ndx + 1;
			}
			/* Index 1 is the file's own base version (its
			 * soname): symbols there count as unversioned. */
			if (!(def.vd_flags & VER_FLG_BASE))
				vd->names[ndx] = name;
		}
		if (def.vd_next == 0)
			break;
		off += def.vd_next;
	}
	return 0;
}

/* Whether .dynsym's symbol i is unversioned or its version's default
 * (name@@VER), not a hidden one (name@VER). */
static int is_default_version(Elf_Data *versym, size_t i)
{
	GElf_Versym v;

	return versym == NULL || gelf_getversym(versym, (int)i, &v) == NULL ||
	       !(v & 0x8000);
}

/* An exported data object (a default-version .dynsym STT_OBJECT). */
static int add_object(struct reader *r, const char *name, uint64_t address)
{
	struct dc_elf *e = r->out;
	struct dc_elf_object *p;

	if (e->nobjects % 64 == 0) {
		p = realloc(e->objects, (e->nobjects + 64) * sizeof(*p));
		if (p == NULL)
			return -1;
		e->objects = p;
	}
	p = &e->objects[e->nobjects];
	p->address = address;
	p->name = strdup(name);
	if (p->name == NULL)
		return -1;
	e->nobjects++;
	return 0;
}

static int read_symbols(struct reader *r, Elf_Scn *scn, const GElf_Shdr *sh,
			Elf_Data *versym, const struct verdefs *vd)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	int dynamic = sh->sh_type == SHT_DYNSYM;
	size_t i, n;

	if (data == NULL)
		return corrupt(r, dynamic ? "unreadable .dynsym" : "unreadable .symtab");
	if (sh->sh_entsize == 0)
		return corrupt(r, "symbol table with entry size 0");
	n = data->d_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		struct raw_sym s;
		GElf_Sym sym;
		const char *name;
		int type;

		if (gelf_getsym(data, (int)i, &sym) == NULL)
			return corrupt(r, "bad symbol");
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC &&
		     (type != STT_OBJECT || !dynamic)) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(r->elf, sh->sh_link, sym.st_name);
		if (name == NULL)
			return corrupt(r, "bad symbol name");
		if (*name == '\0')
			continue;
		if (type == STT_OBJECT) {
			if (is_default_version(versym, i) &&
			    add_object(r, name, sym.st_value) != 0)
				return EXIT_FAIL;
			continue;
		}
		memset(&s, 0, sizeof(s));
		s.address = sym.st_value;
		s.size = sym.st_size;
		s.ifunc = type == STT_GNU_IFUNC;
		s.n.is_default = 1;
		s.n.from_dynsym = dynamic;
		s.n.binding = GELF_ST_BIND(sym.st_info);
		if (dynamic && versym != NULL) {
			GElf_Versym v;

			if (gelf_getversym(versym, (int)i, &v) != NULL) {
				size_t ndx = v & 0x7fff;

				if (ndx >= 2 && ndx < vd->n && vd->names[ndx]) {
					s.n.version = strdup(vd->names[ndx]);
					if (s.n.version == NULL)
						return EXIT_FAIL;
					s.n.is_default = !(v & 0x8000);
				}
			}
		}
		/* .symtab may spell versions into the name itself. */
		s.n.name = strdup(name);
		if (s.n.name == NULL || add_sym(r, &s) != 0) {
			free(s.n.name);
			free(s.n.version);
			return EXIT_FAIL;
		}
	}
	return 0;
}

static int count_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static int binding_rank(int b)
{
	return b == STB_GLOBAL ? 0 : b == STB_WEAK ? 1 : 2;
}

/* Order of names within a function: the one a user would write first. */
static int name_cmp(const void *a, const void *b)
{
	const struct dc_elf_name *x = a, *y = b;
	int d;

	if (x->is_default != y->is_default)
		return y->is_default - x->is_default;
	if (x->from_dynsym != y->from_dynsym)
		return y->from_dynsym - x->from_dynsym;
	d = count_underscores(x->name) - count_underscores(y->name);
	if (d != 0)
		return d;
	d = binding_rank(x->binding) - binding_rank(y->binding);
	if (d != 0)
		return d;
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	d = strcmp(x->name, y->name);
	if (d != 0)
		return d;
	return strcmp(x->version ? x->version : "", y->version ? y->version : "");
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	/* .dynsym first so its versioned name wins over a .symtab twin. */
	if (x->n.from_dynsym != y->n.from_dynsym)
		return y->n.from_dynsym - x->n.from_dynsym;
	return name_cmp(&x->n, &y->n);
}

static int same_name(const struct dc_elf_name *a, const struct dc_elf_name *b)
{
	if (strcmp(a->name, b->name) != 0)
		return 0;
	/* An unversioned .symtab copy of a versioned .dynsym name. */
	if (a->version == NULL || b->version == NULL)
		return 1;
	return strcmp(a->version, b->version) == 0;
}

static int group_functions(struct reader *r, struct dc_elf *out)
{
	size_t i = 0, j, k;

	if (r->nsyms > 1) /* qsort(NULL, 0) is undefined */
		qsort(r->syms, r->nsyms, sizeof(*r->syms), raw_cmp);
	out->funcs = calloc(r->nsyms + 1, sizeof(*out->funcs));
	if (out->funcs == NULL)
		return EXIT_FAIL;
	while (i < r->nsyms) {
		struct dc_elf_func *f = &out->funcs[out->nfuncs];
		uint64_t offset;

		for (j = i; j < r->nsyms && r->syms[j].address == r->syms[i].address; j++)
			;
		if (vaddr_to_offset(r, r->syms[i].address, &offset) != 0) {
			/* Not mapped from the file: nothing to probe. */
			for (k = i; k < j; k++) {
				free(r->syms[k].n.name);
				free(r->syms[k].n.version);
			}
			i = j;
			continue;
		}
		f->address = r->syms[i].address;
		f->offset = offset;
		f->size = r->syms[i].size;
		f->names = calloc(j - i, sizeof(*f->names));
		if (f->names == NULL)
			return EXIT_FAIL;
		for (k = i; k < j; k++) {
			struct raw_sym *s = &r->syms[k];
			size_t m;
			int dup = 0;

			if (s->ifunc)
				f->ifunc = 1;
			if (f->size == 0)
				f->size = s->size;
			for (m = 0; m < f->nnames && !dup; m++)
				dup = same_name(&f->names[m], &s->n);
			if (dup) {
				free(s->n.name);
				free(s->n.version);
				continue;
			}
			f->names[f->nnames++] = s->n;
		}
		if (f->nnames > 1)
			qsort(f->names, f->nnames, sizeof(*f->names), name_cmp);
		out->nfuncs++;
		i = j;
	}
	r->nsyms = 0;
	return 0;
}

static uint64_t get_addr(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

static int usdt_cmp(const void *a, const void *b)
{
	const struct dc_elf_usdt *x = a, *y = b;
	int d = strcmp(x->provider, y->provider);

	if (d == 0)
		d = strcmp(x->name, y->name);
	if (d == 0 && x->address != y->address)
		d = x->address < y->address ? -1 : 1;
	return d;
}

static int read_usdt(struct reader *r, struct dc_elf *out, Elf_Scn *scn,
		     int have_base, uint64_t base_addr, int swap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, next, cap = 0;
	size_t name_off, desc_off;
	GElf_Nhdr nh;

	if (data == NULL)
		return corrupt(r, "unreadable .note.stapsdt");
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *desc = (const unsigned char *)data->d_buf + desc_off;
		const char *strs[3], *p, *end;
		struct dc_elf_usdt *u;
		uint64_t pc, base, sem;
		int s;

		off = next;
		if (nh.n_type != STAPSDT_NOTE_TYPE || nh.n_namesz != sizeof(STAPSDT_NOTE_NAME) ||
		    memcmp((const char *)data->d_buf + name_off, STAPSDT_NOTE_NAME,
			   sizeof(STAPSDT_NOTE_NAME)) != 0)
			continue;
		if (nh.n_descsz < 3 * 8 + 3 || desc_off + nh.n_descsz > data->d_size)
			return corrupt(r, "short USDT note");
		pc = get_addr(desc, swap);
		base = get_addr(desc + 8, swap);
		sem = get_addr(desc + 16, swap);
		p = (const char *)desc + 24;
		end = (const char *)desc + nh.n_descsz;
		for (s = 0; s < 3; s++) {
			const char *nul = memchr(p, '\0', (size_t)(end - p));

			if (nul == NULL)
				return corrupt(r, "unterminated string in USDT note");
			strs[s] = p;
			p = nul + 1;
			if (p >= end && s < 2)
				return corrupt(r, "short USDT note");
		}
		/* Prelinking moves the file; the note keeps the link-time
		 * address of .stapsdt.base, so shift by the difference. */
		if (have_base && base != 0) {
			pc += base_addr - base;
			if (sem != 0)
				sem += base_addr - base;
		}
		if (out->nusdts == cap) {
			struct dc_elf_usdt *n;

			cap = cap ? cap * 2 : 16;
			n = realloc(out->usdts, cap * sizeof(*n));
			if (n == NULL)
				return EXIT_FAIL;
			out->usdts = n;
		}
		u = &out->usdts[out->nusdts];
		memset(u, 0, sizeof(*u));
		u->address = pc;
		if (vaddr_to_offset(r, pc, &u->offset) != 0)
			return corrupt(r, "USDT probe address outside the loaded segments");
		u->semaphore = sem;
		if (sem != 0 && vaddr_to_offset(r, sem, &u->semaphore_offset) != 0)
			u->semaphore_offset = 0;
		u->provider = strdup(strs[0]);
		u->name = strdup(strs[1]);
		u->args = strdup(strs[2]);
		out->nusdts++;
		if (!u->provider || !u->name || !u->args)
			return EXIT_FAIL;
	}
	if (out->nusdts > 1)
		qsort(out->usdts, out->nusdts, sizeof(*out->usdts), usdt_cmp);
	return 0;
}

/* The ELF header: a 64-bit executable or shared object.  *swap: the
 * file's byte order is not the host's. */
static int read_header(struct reader *r, struct dc_elf *out, GElf_Ehdr *eh,
		       int *swap)
{
	if (gelf_getehdr(r->elf, eh) == NULL)
		return corrupt(r, "unreadable ELF header");
	out->elfclass = gelf_getclass(r->elf);
	out->type = eh->e_type;
	out->machine = eh->e_machine;
	if (out->elfclass != ELFCLASS64) {
		dc_format_error(r->err, r->errlen,
		       "%s: %s ELF file: only 64-bit (ELFCLASS64) files are supported",
		       r->path, out->elfclass == ELFCLASS32 ? "32-bit" : "unknown-class");
		return EXIT_BAD;
	}
	if (eh->e_type != ET_DYN && eh->e_type != ET_EXEC) {
		dc_format_error(r->err, r->errlen,
		       "%s: not an executable or shared object (ELF type %u)",
		       r->path, (unsigned)eh->e_type);
		return EXIT_BAD;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	*swap = eh->e_ident[EI_DATA] != ELFDATA2LSB;
#else
	*swap = eh->e_ident[EI_DATA] != ELFDATA2MSB;
#endif
	return 0;
}

/* The PT_LOAD segments into r->load, each inside the file. */
static int read_segments(struct reader *r, const GElf_Ehdr *eh)
{
	size_t phnum, i;

	if (elf_getphdrnum(r->elf, &phnum) != 0)
		return corrupt(r, "unreadable program headers");
	if (eh->e_phnum > phnum)
		phnum = eh->e_phnum;
	if (eh->e_phoff > r->file_size ||
	    gelf_fsize(r->elf, ELF_T_PHDR, phnum, EV_CURRENT) >
		    r->file_size - eh->e_phoff)
		return corrupt(r, "program headers beyond the end of the file (truncated?)");
	r->load = calloc(phnum + 1, sizeof(*r->load));
	if (r->load == NULL)
		return EXIT_FAIL;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(r->elf, (int)i, &ph) == NULL)
			return corrupt(r, "bad program header");
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > r->file_size ||
		    ph.p_filesz > r->file_size - ph.p_offset) {
			dc_format_error(r->err, r->errlen,
			       "%s: truncated ELF file: segment %zu ends at byte %llu, the file has %llu",
			       r->path, i,
			       (unsigned long long)(ph.p_offset + ph.p_filesz),
			       (unsigned long long)r->file_size);
			return EXIT_BAD;
		}
		r->load[r->nload++] = ph;
	}
	return 0;
}

/* The sections read_elf reads from. */
struct sections {
	Elf_Scn *dynsym, *symtab, *stapsdt;
	GElf_Shdr dynsym_sh, symtab_sh;
	Elf_Data *versym;
	struct verdefs vd;
	int have_base;          /* .stapsdt.base is there, at base_addr */
	uint64_t base_addr;
};

/* One section: check it lies inside the file and note it if it is one of
 * those in struct sections. */
static int take_section(struct reader *r, Elf_Scn *scn, size_t shstrndx,
			struct sections *sec)
{
	const char *name;
	GElf_Shdr sh;

	if (gelf_getshdr(scn, &sh) == NULL)
		return corrupt(r, "bad section header");
	if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
	    (sh.sh_offset > r->file_size ||
	     sh.sh_size > r->file_size - sh.sh_offset)) {
		dc_format_error(r->err, r->errlen,
		       "%s: truncated ELF file: section %zu ends past byte %llu",
		       r->path, elf_ndxscn(scn),
		       (unsigned long long)r->file_size);
		return EXIT_BAD;
	}
	name = elf_strptr(r->elf, shstrndx, sh.sh_name);
	if (name == NULL)
		return corrupt(r, "bad section name");
	switch (sh.sh_type) {
	case SHT_DYNSYM:
		sec->dynsym = scn;
		sec->dynsym_sh = sh;
		break;
	case SHT_SYMTAB:
		sec->symtab = scn;
		sec->symtab_sh = sh;
		break;
	case SHT_GNU_versym:
		sec->versym = elf_getdata(scn, NULL);
		if (sec->versym == NULL)
			return corrupt(r, "unreadable .gnu.version");
		break;
	case SHT_GNU_verdef:
		return read_verdefs(r, scn, &sh, &sec->vd);
	case SHT_NOTE:
		if (strcmp(name, ".note.stapsdt") == 0)
			sec->stapsdt = scn;
		break;
	default:
		if (strcmp(name, ".stapsdt.base") == 0) {
			sec->have_base = 1;
			sec->base_addr = sh.sh_addr;
		}
		break;
	}
	return 0;
}

static int read_sections(struct reader *r, const GElf_Ehdr *eh,
			 struct sections *sec)
{
	Elf_Scn *scn = NULL;
	size_t shnum, shstrndx;
	int rc;

	if (elf_getshdrnum(r->elf, &shnum) != 0 ||
	    elf_getshdrstrndx(r->elf, &shstrndx) != 0)
		return corrupt(r, "unreadable section headers");
	/* libelf quietly shows no sections when their headers lie past the
	 * end of the file; the ELF header still says how many there are. */
	if (eh->e_shnum > shnum)
		shnum = eh->e_shnum;
	if (shnum > 0 && (eh->e_shoff > r->file_size ||
			  gelf_fsize(r->elf, ELF_T_SHDR, shnum, EV_CURRENT) >
				  r->file_size - eh->e_shoff)) {
		dc_format_error(r->err, r->errlen,
		       "%s: truncated or corrupt ELF file: section headers end past byte %llu",
		       r->path, (unsigned long long)r->file_size);
		return EXIT_BAD;
	}
	while ((scn = elf_nextscn(r->elf, scn)) != NULL)
		if ((rc = take_section(r, scn, shstrndx, sec)) != 0)
			return rc;
	if (elf_errno() != 0)
		return corrupt(r, "bad section list");
	return 0;
}

static int read_elf(struct reader *r, struct dc_elf *out)
{
	struct sections sec;
	GElf_Ehdr eh;
	int swap = 0, rc;

	memset(&sec, 0, sizeof(sec));
	if ((rc = read_header(r, out, &eh, &swap)) != 0 ||
	    (rc = read_segments(r, &eh)) != 0)
		return rc;
	if ((rc = read_sections(r, &eh, &sec)) != 0)
		goto out;
	if (sec.dynsym && (rc = read_symbols(r, sec.dynsym, &sec.dynsym_sh,
					     sec.versym, &sec.vd)) != 0)
		goto out;
	if (sec.symtab && (rc = read_symbols(r, sec.symtab, &sec.symtab_sh,
					     NULL, &sec.vd)) != 0)
		goto out;
	if ((rc = group_functions(r, out)) != 0)
		goto out;
	if (sec.stapsdt)
		rc = read_usdt(r, out, sec.stapsdt, sec.have_base,
			       sec.base_addr, swap);
out:
	free(sec.vd.names);
	return rc;
}

void dc_elf_free(struct dc_elf *elf)
{
	size_t i, j;

	if (elf == NULL)
		return;
	for (i = 0; i < elf->nfuncs; i++) {
		for (j = 0; j < elf->funcs[i].nnames; j++) {
			free(elf->funcs[i].names[j].name);
			free(elf->funcs[i].names[j].version);
		}
		free(elf->funcs[i].names);
	}
	free(elf->funcs);
	for (i = 0; i < elf->nusdts; i++) {
		free(elf->usdts[i].provider);
		free(elf->usdts[i].name);
		free(elf->usdts[i].args);
	}
	free(elf->usdts);
	for (i = 0; i < elf->nobjects; i++)
		free(elf->objects[i].name);
	free(elf->objects);
	free(elf->path);
	free(elf);
}

int dc_elf_open(const char *path, struct dc_elf **out, char *err, size_t errlen)
{
	struct reader r;
	struct dc_elf *e;
	struct stat st;
	int fd, rc;
	size_t i;

	*out = NULL;
	memset(&r, 0, sizeof(r));
	r.path = path;
	r.err = err;
	r.errlen = errlen;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		dc_format_error(err, errlen, "libelf is too old: %s", elf_errmsg(-1));
		return EXIT_FAIL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		dc_format_error(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	if (fstat(fd, &st) != 0) {
		dc_format_error(err, errlen, "cannot stat %s: %s", path, strerror(errno));
		close(fd);
		return EXIT_FAIL;
	}
	if (!S_ISREG(st.st_mode)) {
		dc_format_error(err, errlen, "%s: not a regular file", path);
		close(fd);
		return EXIT_BAD;
	}
	if (st.st_size == 0) {
		dc_format_error(err, errlen, "%s: empty file, not an ELF file", path);
		close(fd);
		return EXIT_BAD;
	}
	r.file_size = (uint64_t)st.st_size;
	r.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (r.elf == NULL) {
		dc_format_error(err, errlen, "%s: not an ELF file: %s", path, elf_errmsg(-1));
		close(fd);
		return EXIT_BAD;
	}
	if (elf_kind(r.elf) != ELF_K_ELF) {
		dc_format_error(err, errlen, "%s: not an ELF file", path);
		elf_end(r.elf);
		close(fd);
		return EXIT_BAD;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL || (e->path = strdup(path)) == NULL) {
		free(e);
		elf_end(r.elf);
		close(fd);
		dc_format_error(err, errlen, "out of memory");
		return EXIT_FAIL;
	}
	r.out = e;
	rc = read_elf(&r, e);
	if (rc == EXIT_FAIL && (err == NULL || err[0] == '\0'))
		dc_format_error(err, errlen, "%s: out of memory", path);
	for (i = 0; i < r.nsyms; i++) {
		free(r.syms[i].n.name);
		free(r.syms[i].n.version);
	}
	free(r.syms);
	free(r.load);
	elf_end(r.elf);
	close(fd);
	if (rc != 0) {
		dc_elf_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

char *dc_elf_name_string(const struct dc_elf_name *n, int full)
{
	char *s;

	if (n->version == NULL || (n->is_default && !full))
		return strdup(n->name);
	if (asprintf(&s, "%s%s%s", n->name, n->is_default ? "@@" : "@",
		     n->version) < 0)
		return NULL;
	return s;
}

const struct dc_elf_func *dc_elf_func_at(const struct dc_elf *elf,
					 uint64_t offset)
{
	size_t i;

	for (i = 0; i < elf->nfuncs; i++)
		if (elf->funcs[i].offset == offset)
			return &elf->funcs[i];
	return NULL;
}

const struct dc_elf_object *dc_elf_find_object(const struct dc_elf *elf,
					       const char *name)
{
	size_t i;

	for (i = 0; i < elf->nobjects; i++)
		if (strcmp(elf->objects[i].name, name) == 0)
			return &elf->objects[i];
	return NULL;
}

const struct dc_elf_func *dc_elf_find(const struct dc_elf *elf, const char *name)
{
	const char *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);
	const char *want_ver = NULL;
	int want_default = -1;
	size_t i, j;

	if (at) {
		want_default = at[1] == '@';
		want_ver = at + 1 + want_default;
	}
	for (i = 0; i < elf->nfuncs; i++) {
		const struct dc_elf_func *f = &elf->funcs[i];

		for (j = 0; j < f->nnames; j++) {
			const struct dc_elf_name *n = &f->names[j];

			if (strlen(n->name) != len || strncmp(n->name, name, len) != 0)
				continue;
			if (want_ver) {
				if (n->version && strcmp(n->version, want_ver) == 0 &&
				    (want_default == n->is_default || !want_default))
					return f;
				continue;
			}
			/* A bare name binds to the default version only,
			 * as the linker would; hidden ones need "@VER". */
			if (n->is_default)
				return f;
		}
	}
	return NULL;
}

/* ---- library lookup ---- */

/* An ELF file's class (e_ident[EI_CLASS]) and machine (e_machine). */
struct elf_arch {
	int class, machine;
};

/* path's architecture: 0, or -1 if it cannot be read or is not ELF. */
static int read_arch(const char *path, struct elf_arch *a)
{
	unsigned char h[20];
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) &&
	    memcmp(h, ELFMAG, SELFMAG) == 0) {
		a->class = h[EI_CLASS];
		a->machine = h[EI_DATA] == ELFDATA2MSB ? (h[18] << 8) | h[19]
						       : h[18] | (h[19] << 8);
		rc = 0;
	}
	close(fd);
	return rc;
}

/* An ELF file of this program's architecture (any, if that cannot be
 * read), so the 32-bit libc in /lib32 does not answer for "libc.so.6". */
static int matches_host(const char *path)
{
	struct elf_arch host, lib;

	if (read_arch(path, &lib) != 0)
		return 0;
	if (read_arch("/proc/self/exe", &host) != 0)
		return 1;
	return lib.class == host.class && lib.machine == host.machine;
}

/* The best candidate so far for a bare stem: an exact "stem.so" wins,
 * otherwise the highest "stem.so.N". */
struct pick {
	const char *want;   /* exact file name, or NULL */
	const char *stem;   /* "libhdf5" when matching a bare stem */
	char best[PATH_MAX];
	char best_name[NAME_MAX + 1];
	int exact;
};

static int stem_match(const struct pick *p, const char *file, int *exact)
{
	size_t n = strlen(p->stem);

	if (strncmp(file, p->stem, n) != 0 || strncmp(file + n, ".so", 3) != 0)
		return 0;
	if (file[n + 3] == '\0') {
		*exact = 1;
		return 1;
	}
	*exact = 0;
	return file[n + 3] == '.';
}

static int name_matches(const struct pick *p, const char *file, int *exact)
{
	if (p->want) {
		*exact = 1;
		return strcmp(file, p->want) == 0;
	}
	return stem_match(p, file, exact);
}

/* Consider dir/file; returns 1 when the search may stop. */
static int consider(struct pick *p, const char *dir, const char *file)
{
	char path[PATH_MAX];
	int exact;

	if (!name_matches(p, file, &exact))
		return 0;
	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, file);
	else
		snprintf(path, sizeof(path), "%s", file);
	if (access(path, R_OK) != 0 || !matches_host(path))
		return 0;
	if (exact) {
		snprintf(p->best, sizeof(p->best), "%s", path);
		p->exact = 1;
		return 1;
	}
	if (p->best[0] == '\0' || strverscmp(file, p->best_name) > 0) {
		snprintf(p->best, sizeof(p->best), "%s", path);
		snprintf(p->best_name, sizeof(p->best_name), "%s", file);
	}
	return 0;
}

static int search_dir(struct pick *p, const char *dir)
{
	DIR *d;
	struct dirent *de;
	int done = 0;

	if (p->want) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", dir, p->want);
		if (access(path, F_OK) != 0)
			return 0;
		return consider(p, dir, p->want);
	}
	d = opendir(dir);
	if (d == NULL)
		return 0;
	while (!done && (de = readdir(d)) != NULL)
		done = consider(p, dir, de->d_name);
	closedir(d);
	return done;
}

/* /etc/ld.so.cache, new format ("glibc-ld.so.cache1.1"): a header, then
 * 24-byte entries {flags, key, value, osversion, hwcap} whose key and
 * value are offsets of the soname and path from the header's start. */
#define LDCACHE_MAGIC "glibc-ld.so.cache1.1"
#define LDCACHE_HDR 48
#define LDCACHE_ENTRY 24

static int search_ldcache(struct pick *p, const char *cache_path)
{
	unsigned char *buf = NULL;
	size_t len = 0, i;
	uint32_t nlibs;
	struct stat st;
	int fd, done = 0;
	ssize_t n;

	fd = open(cache_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || st.st_size < LDCACHE_HDR ||
	    st.st_size > (64 << 20)) {
		close(fd);
		return 0;
	}
	buf = malloc((size_t)st.st_size);
	while (buf && len < (size_t)st.st_size &&
	       (n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (buf == NULL)
		return 0;
	if (len < LDCACHE_HDR || memcmp(buf, LDCACHE_MAGIC, strlen(LDCACHE_MAGIC)) != 0) {
		/* The old libc5-compatible format: let the default
		 * directories answer instead. */
		static int warned;

		if (!warned++)
			warn("%s: unknown format, not used", cache_path);
		free(buf);
		return 0;
	}
	memcpy(&nlibs, buf + 20, sizeof(nlibs));
	for (i = 0; i < nlibs && !done; i++) {
		size_t e = LDCACHE_HDR + i * LDCACHE_ENTRY;
		uint32_t key, value;
		const char *file, *path, *slash;
		int exact;

		if (e + LDCACHE_ENTRY > len)
			break;
		memcpy(&key, buf + e + 4, 4);
		memcpy(&value, buf + e + 8, 4);
		if (key >= len || value >= len ||
		    memchr(buf + key, '\0', len - key) == NULL ||
		    memchr(buf + value, '\0', len - value) == NULL)
			continue;
		file = (const char *)buf + key;
		path = (const char *)buf + value;
		slash = strrchr(path, '/');
		/* The cache maps sonames to paths: match the soname, then
		 * use the path. */
		if (slash == NULL || !name_matches(p, file, &exact) ||
		    access(path, R_OK) != 0 || !matches_host(path))
			continue;
		if (exact) {
			snprintf(p->best, sizeof(p->best), "%s", path);
			p->exact = 1;
			done = 1;
		} else if (p->best[0] == '\0' || strverscmp(file, p->best_name) > 0) {
			snprintf(p->best, sizeof(p->best), "%s", path);
			snprintf(p->best_name, sizeof(p->best_name), "%s", file);
		}
	}
	free(buf);
	return done;
}

static const char *const default_dirs[] = {
#if defined(__x86_64__)
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	"/lib/powerpc64le-linux-gnu", "/usr/lib/powerpc64le-linux-gnu",
#elif defined(__s390x__)
	"/lib/s390x-linux-gnu", "/usr/lib/s390x-linux-gnu",
#endif
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

int dc_lib_resolve(const char *name, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	char real[PATH_MAX];
	const char *ldpath, *cache;
	struct pick p;
	size_t i;

	if (name == NULL || *name == '\0') {
		dc_format_error(err, errlen, "empty library name");
		return 1;
	}
	memset(&p, 0, sizeof(p));
	if (strchr(name, '/')) {
		if (realpath(name, real) == NULL) {
			dc_format_error(err, errlen, "%s: %s", name, strerror(errno));
			return 1;
		}
		goto found;
	}
	if (strstr(name, ".so") && (strstr(name, ".so")[3] == '\0' ||
				    strstr(name, ".so")[3] == '.'))
		p.want = name;
	else
		p.stem = name;

	/* The order of the dynamic loader: LD_LIBRARY_PATH, the cache, the
	 * default directories.  A stem keeps looking in one place for the
	 * plain .so before settling on a versioned file, and an earlier
	 * place's versioned match beats a later place. */
	ldpath = getenv("LD_LIBRARY_PATH");
	if (ldpath && *ldpath) {
		char *copy = strdup(ldpath), *save = NULL, *dir;

		for (dir = copy ? strtok_r(copy, ":;", &save) : NULL; dir;
		     dir = strtok_r(NULL, ":;", &save))
			if (search_dir(&p, dir))
				break;
		free(copy);
		if (p.best[0])
			goto resolve;
	}
	cache = getenv("DC_LDSO_CACHE");
	if (search_ldcache(&p, cache ? cache : "/etc/ld.so.cache") || p.best[0])
		goto resolve;
	for (i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++)
		if (search_dir(&p, default_dirs[i]))
			break;
	if (p.best[0] == '\0') {
		dc_format_error(err, errlen,
		       "library %s not found (searched LD_LIBRARY_PATH, /etc/ld.so.cache and the default directories)",
		       name);
		return 1;
	}
resolve:
	if (realpath(p.best, real) == NULL) {
		dc_format_error(err, errlen, "%s: %s", p.best, strerror(errno));
		return 1;
	}
found:
	if (strlen(real) >= outlen) {
		dc_format_error(err, errlen, "%s: path too long", real);
		return 1;
	}
	memcpy(out, real, strlen(real) + 1);
	return 0;
}
