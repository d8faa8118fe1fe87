/*
 * sign.c - signing keys, signed probe specs and their verification
 * (dc-signed(5)).  Shared by dc-sign, dc-signd and dc-collect.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <zlib.h>

#include "sign.h"
#include "spec.h"
#include "messages.h"
#include "stream.h"

#define CANONICAL_FLAGS (JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII)
#define GZIP_MAX_OUTPUT (256u << 20) /* a bigger spec is a zip bomb */


static void hex_encode(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode exactly 2*n hex digits; -1 on anything else. */
static int hex_decode(const char *in, size_t len, unsigned char *out, size_t n)
{
	size_t i;

	if (len != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		int hi = hex_value((unsigned char)in[2 * i]);
		int lo = hex_value((unsigned char)in[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

const char *dc_default_key_path(void)
{
	const char *env = getenv("DC_KEY");

	if (env != NULL && *env != '\0')
		return env;
	return SYSCONFDIR "/datacrumbs/signing.key";
}

/* ---- keys ---- */

static void key_set_id(struct dc_key *key)
{
	unsigned char digest[SHA256_DIGEST_LENGTH];
	char hex[2 * SHA256_DIGEST_LENGTH + 1];

	SHA256(key->bytes, DC_KEY_BYTES, digest);
	hex_encode(digest, sizeof(digest), hex);
	memcpy(key->id, hex, DC_KEY_ID_CHARS);
	key->id[DC_KEY_ID_CHARS] = '\0';
}

void dc_key_clear(struct dc_key *key)
{
	if (key != NULL)
		OPENSSL_cleanse(key, sizeof(*key));
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "uid %ld", (long)uid);
	return buf;
}

int dc_key_load(const char *path, struct dc_key *key, char *err,
		size_t errlen)
{
	/* 64 hex digits, a newline, and room to notice anything longer. */
	char text[2 * DC_KEY_BYTES + 8];
	char owner[64], me[64];
	struct stat st;
	ssize_t n;
	size_t len;
	int fd;

	if (path == NULL)
		path = dc_default_key_path();
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			dc_format_error(err, errlen,
			       "no signing key at %s (make one with dc-sign --gen-key -k %s)",
			       path, path);
		else
			dc_format_error(err, errlen, "cannot open signing key %s: %s",
			       path, strerror(errno));
		return DC_EXIT_FAILURE;
	}
	/* Check the file we opened, not the name, so it cannot be swapped. */
	if (fstat(fd, &st) != 0) {
		dc_format_error(err, errlen, "cannot stat signing key %s: %s", path,
		       strerror(errno));
		close(fd);
		return DC_EXIT_FAILURE;
	}
	if (!S_ISREG(st.st_mode)) {
		dc_format_error(err, errlen, "signing key %s is not a regular file", path);
		close(fd);
		return DC_EXIT_FAILURE;
	}
	if (st.st_uid != geteuid()) {
		dc_format_error(err, errlen,
		       "signing key %s is owned by %s, not by %s who runs this: refusing a key another user controls",
		       path, user_name(st.st_uid, owner, sizeof(owner)),
		       user_name(geteuid(), me, sizeof(me)));
		close(fd);
		return DC_EXIT_FAILURE;
	}
	if ((st.st_mode & 077) != 0) {
		dc_format_error(err, errlen,
		       "permissions %04o for signing key %s are too open: it must not be accessible by group or others (chmod 600 %s)",
		       (unsigned)(st.st_mode & 07777), path, path);
		close(fd);
		return DC_EXIT_FAILURE;
	}
	len = 0;
	while (len < sizeof(text)) {
		n = read(fd, text + len, sizeof(text) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			dc_format_error(err, errlen, "cannot read signing key %s: %s",
			       path, strerror(errno));
			close(fd);
			OPENSSL_cleanse(text, sizeof(text));
			return DC_EXIT_FAILURE;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len != 2 * DC_KEY_BYTES + 1 || text[2 * DC_KEY_BYTES] != '\n' ||
	    hex_decode(text, 2 * DC_KEY_BYTES, key->bytes, DC_KEY_BYTES) != 0) {
		dc_format_error(err, errlen,
		       "malformed signing key %s: expected %d hex digits and a newline",
		       path, 2 * DC_KEY_BYTES);
		OPENSSL_cleanse(text, sizeof(text));
		dc_key_clear(key);
		return DC_EXIT_FAILURE;
	}
	OPENSSL_cleanse(text, sizeof(text));
	key_set_id(key);
	return 0;
}

/* A temporary file next to path, for writing then renaming. */
static int open_temp_beside(const char *path, char **tmp_out)
{
	char *tmp;
	int fd;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -1;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(tmp);
		errno = e;
		return -1;
	}
	*tmp_out = tmp;
	return fd;
}

/* data into fd, a new file for path (tmp, if not NULL, is its name until
 * it is renamed over path), with permissions mode and, if sync, on disk;
 * fd is closed.  0, or DC_EXIT_FAILURE with err set and the new file
 * removed. */
static int finish_file(int fd, const char *tmp, const char *path,
		       mode_t mode, int sync, const void *data, size_t len,
		       char *err, size_t errlen)
{
	const char *name = tmp != NULL ? tmp : path;
	int failed;

	failed = fchmod(fd, mode) != 0 || dc_write_all(fd, data, len) != 0 ||
		 (sync && fsync(fd) != 0);
	if (close(fd) != 0)
		failed = 1;
	if (failed) {
		dc_format_error(err, errlen, "cannot write %s: %s", path,
				strerror(errno));
		unlink(name);
		return DC_EXIT_FAILURE;
	}
	if (tmp != NULL && rename(tmp, path) != 0) {
		dc_format_error(err, errlen, "cannot rename %s to %s: %s", tmp,
				path, strerror(errno));
		unlink(tmp);
		return DC_EXIT_FAILURE;
	}
	return 0;
}

/* The default key lives in SYSCONFDIR/datacrumbs, which a fresh install
 * may not have yet: make that one directory level. */
static int make_key_dir(const char *path, char *err, size_t errlen)
{
	char *dir_copy = strdup(path);
	const char *dir;
	struct stat st;
	int rc = 0;

	if (dir_copy == NULL)
		return 0;
	dir = dirname(dir_copy);
	if (stat(dir, &st) != 0 && errno == ENOENT &&
	    mkdir(dir, 0755) != 0 && errno != EEXIST) {
		dc_format_error(err, errlen, "cannot create directory %s: %s",
				dir, strerror(errno));
		rc = DC_EXIT_FAILURE;
	}
	free(dir_copy);
	return rc;
}

/* The key file, new; with force, a file beside it (*tmp) that will
 * replace it atomically: a reader sees the old key or the new.  Its fd,
 * or -1 with err set. */
static int open_key_file(const char *path, int force, char **tmp,
			 char *err, size_t errlen)
{
	int fd;

	if (force) {
		fd = open_temp_beside(path, tmp);
		if (fd < 0)
			dc_format_error(err, errlen,
					"cannot create a file beside %s: %s",
					path, strerror(errno));
		return fd;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 && errno == EEXIST)
		dc_format_error(err, errlen,
				"%s already exists: refusing to overwrite a signing key (use --force to replace it)",
				path);
	else if (fd < 0)
		dc_format_error(err, errlen, "cannot create %s: %s", path,
				strerror(errno));
	return fd;
}

int dc_key_generate(const char *path, int force, struct dc_key *key,
		    char *err, size_t errlen)
{
	char text[2 * DC_KEY_BYTES + 2];
	char *tmp = NULL;
	int fd, rc;

	if (path == NULL)
		path = dc_default_key_path();
	if (RAND_bytes(key->bytes, DC_KEY_BYTES) != 1) {
		dc_format_error(err, errlen, "cannot get random bytes from libcrypto");
		return DC_EXIT_FAILURE;
	}
	hex_encode(key->bytes, DC_KEY_BYTES, text);
	text[2 * DC_KEY_BYTES] = '\n';
	text[2 * DC_KEY_BYTES + 1] = '\0';
	key_set_id(key);

	rc = make_key_dir(path, err, errlen);
	if (rc == 0) {
		fd = open_key_file(path, force, &tmp, err, errlen);
		/* The umask may have taken bits away; 0600 is what we
		 * promise. */
		rc = fd < 0 ? DC_EXIT_FAILURE
			    : finish_file(fd, tmp, path, 0600, 1, text,
					  strlen(text), err, errlen);
	}
	free(tmp);
	OPENSSL_cleanse(text, sizeof(text));
	if (rc != 0)
		dc_key_clear(key);
	return rc;
}

/* ---- reading and writing JSON, plain or gzip ---- */

static int gunzip(const unsigned char *in, size_t inlen, const char *name,
		  unsigned char **out, size_t *outlen, char *err,
		  size_t errlen)
{
	z_stream zs;
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0;
	int rc;

	memset(&zs, 0, sizeof(zs));
	/* 16 + MAX_WBITS: a gzip wrapper, not zlib or raw deflate. */
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		dc_format_error(err, errlen, "%s: cannot start gzip decompression", name);
		return DC_EXIT_FAILURE;
	}
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)inlen;
	for (;;) {
		if (len == cap) {
			unsigned char *nb;

			if (cap >= GZIP_MAX_OUTPUT) {
				dc_format_error(err, errlen,
				       "%s: decompresses to more than %u MiB",
				       name, GZIP_MAX_OUTPUT >> 20);
				rc = DC_EXIT_BADINPUT;
				goto out;
			}
			cap = cap ? cap * 2 : inlen * 4 + 4096;
			if (cap > GZIP_MAX_OUTPUT)
				cap = GZIP_MAX_OUTPUT;
			nb = realloc(buf, cap);
			if (nb == NULL) {
				dc_format_error(err, errlen, "%s: out of memory", name);
				rc = DC_EXIT_FAILURE;
				goto out;
			}
			buf = nb;
		}
		zs.next_out = buf + len;
		zs.avail_out = (uInt)(cap - len);
		rc = inflate(&zs, Z_NO_FLUSH);
		len = cap - zs.avail_out;
		if (rc == Z_STREAM_END) {
			/* Concatenated members (gzip -c a b) are one file. */
			if (zs.avail_in > 0) {
				if (inflateReset(&zs) != Z_OK) {
					rc = DC_EXIT_FAILURE;
					goto out;
				}
				continue;
			}
			break;
		}
		if (rc == Z_OK)
			continue;
		if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
			dc_format_error(err, errlen, "%s: truncated gzip data", name);
			rc = DC_EXIT_BADINPUT;
			goto out;
		}
		if (rc == Z_BUF_ERROR)
			continue;
		dc_format_error(err, errlen, "%s: corrupt gzip data: %s", name,
		       zs.msg ? zs.msg : "inflate failed");
		rc = DC_EXIT_BADINPUT;
		goto out;
	}
	inflateEnd(&zs);
	*out = buf;
	*outlen = len;
	return 0;
out:
	inflateEnd(&zs);
	free(buf);
	return rc;
}

json_t *dc_json_read_buffer(const void *buf, size_t len, const char *name,
			    char *err, size_t errlen, int *status)
{
	const unsigned char *p = buf;
	unsigned char *plain = NULL;
	json_error_t jerr;
	json_t *doc;
	int rc;

	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		rc = gunzip(p, len, name, &plain, &len, err, errlen);
		if (rc != 0) {
			*status = rc;
			return NULL;
		}
		p = plain;
	}
	/* Duplicate keys would let two readers see two different specs. */
	doc = json_loadb((const char *)p, len, JSON_REJECT_DUPLICATES, &jerr);
	free(plain);
	if (doc == NULL) {
		if (len == 0)
			dc_format_error(err, errlen, "%s: empty file, not JSON", name);
		else
			dc_format_error(err, errlen, "%s:%d:%d: malformed JSON: %s", name,
			       jerr.line, jerr.column, jerr.text);
		*status = DC_EXIT_BADINPUT;
		return NULL;
	}
	return doc;
}

json_t *dc_json_read_file(const char *path, char *err, size_t errlen,
			  int *status)
{
	const char *name = strcmp(path, "-") == 0 ? "standard input" : path;
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0;
	json_t *doc;
	int fd;

	fd = strcmp(path, "-") == 0 ? STDIN_FILENO
				    : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		dc_format_error(err, errlen, "cannot open %s: %s", path, strerror(errno));
		*status = DC_EXIT_FAILURE;
		return NULL;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			unsigned char *nb;

			if (cap >= DC_SIGN_MAX_INPUT) {
				dc_format_error(err, errlen, "%s: larger than %u MiB", name,
				       DC_SIGN_MAX_INPUT >> 20);
				*status = DC_EXIT_BADINPUT;
				goto fail;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap + 1);
			if (nb == NULL) {
				dc_format_error(err, errlen, "%s: out of memory", name);
				*status = DC_EXIT_FAILURE;
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			dc_format_error(err, errlen, "cannot read %s: %s", name,
			       strerror(errno));
			*status = DC_EXIT_FAILURE;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	doc = dc_json_read_buffer(buf, len, name, err, errlen, status);
	free(buf);
	return doc;
fail:
	if (fd != STDIN_FILENO)
		close(fd);
	free(buf);
	return NULL;
}

char *dc_json_pretty(json_t *doc, size_t *len)
{
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	char *withnl;
	size_t n;

	if (text == NULL)
		return NULL;
	n = strlen(text);
	withnl = realloc(text, n + 2);
	if (withnl == NULL) {
		free(text);
		return NULL;
	}
	withnl[n] = '\n';
	withnl[n + 1] = '\0';
	*len = n + 1;
	return withnl;
}

static int gzip_buffer(const char *in, size_t inlen, unsigned char **out,
		       size_t *outlen)
{
	z_stream zs;
	unsigned char *buf;
	size_t cap;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	cap = deflateBound(&zs, (uLong)inlen);
	buf = malloc(cap);
	if (buf == NULL) {
		deflateEnd(&zs);
		return -1;
	}
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)inlen;
	zs.next_out = buf;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(buf);
		return -1;
	}
	*outlen = cap - zs.avail_out;
	deflateEnd(&zs);
	*out = buf;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A device or pipe (/dev/stdout, a FIFO) is written in place; renaming
 * over it would replace the device node itself. */
static int write_in_place(const char *path, const void *data, size_t len,
			  char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 || dc_write_all(fd, data, len) != 0) {
		dc_format_error(err, errlen, "cannot write %s: %s", path,
				strerror(errno));
		if (fd >= 0)
			close(fd);
		return DC_EXIT_FAILURE;
	}
	if (close(fd) != 0) {
		dc_format_error(err, errlen, "cannot write %s: %s", path,
				strerror(errno));
		return DC_EXIT_FAILURE;
	}
	return 0;
}

/* A regular file (or none yet) is replaced atomically, by a file beside
 * it with the permissions a new file gets (0666 less the umask). */
static int write_replacing(const char *path, const void *data, size_t len,
			   char *err, size_t errlen)
{
	char *tmp = NULL;
	mode_t mask;
	int fd, rc;

	fd = open_temp_beside(path, &tmp);
	if (fd < 0) {
		dc_format_error(err, errlen, "cannot create a file beside %s: %s",
				path, strerror(errno));
		return DC_EXIT_FAILURE;
	}
	mask = umask(0);
	umask(mask);
	rc = finish_file(fd, tmp, path, 0666 & ~mask, 0, data, len, err, errlen);
	free(tmp);
	return rc;
}

int dc_json_write_file(const char *path, json_t *doc, char *err,
		       size_t errlen)
{
	unsigned char *gz = NULL;
	const void *data;
	size_t len, gzlen;
	struct stat st;
	char *text;
	int rc;

	text = dc_json_pretty(doc, &len);
	if (text == NULL) {
		dc_format_error(err, errlen, "cannot serialise JSON: out of memory");
		return DC_EXIT_FAILURE;
	}
	data = text;
	if (path == NULL || strcmp(path, "-") == 0) {
		rc = 0;
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
			dc_format_error(err, errlen, "cannot write standard output: %s",
					strerror(errno));
			rc = DC_EXIT_FAILURE;
		}
	} else if (ends_with(path, ".gz") &&
		   gzip_buffer(text, len, &gz, &gzlen) != 0) {
		dc_format_error(err, errlen, "cannot gzip %s", path);
		rc = DC_EXIT_FAILURE;
	} else {
		if (gz != NULL) {
			data = gz;
			len = gzlen;
		}
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
			rc = write_in_place(path, data, len, err, errlen);
		else
			rc = write_replacing(path, data, len, err, errlen);
	}
	free(text);
	free(gz);
	return rc;
}

/* ---- canonical form ---- */

/* Find a real number; write its JSON path (cut to fit) into where. */
static int find_real(json_t *v, char *where, size_t len, size_t pos)
{
	const char *key;
	json_t *child;
	size_t i, next;
	int n;

	where[pos] = '\0';
	if (json_is_real(v))
		return 1;
	if (json_is_object(v)) {
		json_object_foreach(v, key, child) {
			n = snprintf(where + pos, len - pos, ".%s", key);
			next = n < 0 ? pos : pos + (size_t)n;
			if (find_real(child, where, len, next < len ? next : len - 1))
				return 1;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			n = snprintf(where + pos, len - pos, "[%zu]", i);
			next = n < 0 ? pos : pos + (size_t)n;
			if (find_real(child, where, len, next < len ? next : len - 1))
				return 1;
		}
	}
	where[pos] = '\0';
	return 0;
}

char *dc_canonical_json(json_t *v, char *err, size_t errlen)
{
	char where[256] = "";
	char *text;

	if (find_real(v, where, sizeof(where), 0)) {
		dc_format_error(err, errlen,
		       "real number at %s: signed files hold integers only",
		       where[0] ? where + (where[0] == '.') : "top level");
		return NULL;
	}
	text = json_dumps(v, CANONICAL_FLAGS | JSON_ENCODE_ANY);
	if (text == NULL)
		dc_format_error(err, errlen, "cannot serialise JSON: out of memory");
	return text;
}

int dc_canonical_sha256(json_t *v, char hex[65], char *err, size_t errlen)
{
	unsigned char digest[SHA256_DIGEST_LENGTH];
	char *text = dc_canonical_json(v, err, errlen);

	if (text == NULL)
		return -1;
	SHA256((const unsigned char *)text, strlen(text), digest);
	free(text);
	hex_encode(digest, sizeof(digest), hex);
	return 0;
}

/* HMAC-SHA256 of the canonical form of doc without "signature". */
static int compute_signature(json_t *doc, const struct dc_key *key,
			     unsigned char mac[32], char *err, size_t errlen)
{
	json_t *unsigned_doc = json_copy(doc);
	unsigned int maclen = 0;
	char *text;

	if (unsigned_doc == NULL) {
		dc_format_error(err, errlen, "out of memory");
		return -1;
	}
	json_object_del(unsigned_doc, "signature");
	text = dc_canonical_json(unsigned_doc, err, errlen);
	json_decref(unsigned_doc);
	if (text == NULL)
		return -1;
	if (HMAC(EVP_sha256(), key->bytes, DC_KEY_BYTES,
		 (const unsigned char *)text, strlen(text), mac,
		 &maclen) == NULL || maclen != 32) {
		free(text);
		dc_format_error(err, errlen, "HMAC-SHA256 failed in libcrypto");
		return -1;
	}
	free(text);
	return 0;
}

/* ---- signing ---- */

static json_t *layer_names(const struct dc_spec *spec)
{
	json_t *layers = json_array();
	size_t i, j, n = 0;
	const char **names = calloc(spec->nprobes + 1, sizeof(*names));

	if (layers == NULL || names == NULL) {
		free(names);
		json_decref(layers);
		return NULL;
	}
	/* Sorted and unique, so the summary reads the same for any order. */
	for (i = 0; i < spec->nprobes; i++) {
		const char *l = spec->probes[i].layer;

		for (j = 0; j < n && strcmp(names[j], l) < 0; j++)
			;
		if (j < n && strcmp(names[j], l) == 0)
			continue;
		memmove(names + j + 1, names + j, (n - j) * sizeof(*names));
		names[j] = l;
		n++;
	}
	for (i = 0; i < n; i++)
		json_array_append_new(layers, json_string(names[i]));
	free(names);
	return layers;
}

json_t *dc_sign_spec(json_t *spec, const struct dc_key *key,
		     const struct dc_signer *signer, char *err, size_t errlen,
		     int *status)
{
	struct dc_spec *model;
	char spec_hash[65], sigerr[256];
	char sig[2 * 32 + 1];
	unsigned char mac[32];
	char host[256];
	json_t *doc, *summary;

	model = dc_spec_from_json(spec, err, errlen);
	if (model == NULL) {
		*status = DC_EXIT_BADINPUT;
		return NULL;
	}
	if (dc_canonical_sha256(spec, spec_hash, err, errlen) != 0) {
		dc_spec_free(model);
		*status = DC_EXIT_BADINPUT;
		return NULL;
	}
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';

	summary = json_pack("{s:s, s:I, s:I, s:s, s:s, s:I, s:o, s:s}",
			    "signer", signer->user,
			    "uid", (json_int_t)signer->uid,
			    "signed_at", (json_int_t)time(NULL),
			    "host", host,
			    "tool", signer->tool,
			    "probes", (json_int_t)model->nprobes,
			    "layers", layer_names(model),
			    "spec_sha256", spec_hash);
	dc_spec_free(model);
	if (summary == NULL) {
		dc_format_error(err, errlen, "cannot build the summary (bad user name?)");
		*status = DC_EXIT_FAILURE;
		return NULL;
	}
	doc = json_pack("{s:i, s:s, s:s, s:o, s:O}",
			"datacrumbs_signed", DC_SIGNED_VERSION,
			"algorithm", DC_SIGN_ALGORITHM,
			"key_id", key->id,
			"summary", summary,
			"spec", spec);
	if (doc == NULL) {
		dc_format_error(err, errlen, "out of memory");
		*status = DC_EXIT_FAILURE;
		return NULL;
	}
	if (compute_signature(doc, key, mac, sigerr, sizeof(sigerr)) != 0) {
		dc_format_error(err, errlen, "%s", sigerr);
		json_decref(doc);
		*status = DC_EXIT_BADINPUT;
		return NULL;
	}
	hex_encode(mac, sizeof(mac), sig);
	OPENSSL_cleanse(mac, sizeof(mac));
	json_object_set_new(doc, "signature", json_string(sig));
	return doc;
}

/* ---- verification ---- */

/* A signed spec of this version at all; *status says why not. */
static int check_envelope(json_t *doc, char *err, size_t errlen, int *status)
{
	json_t *v;

	if (!json_is_object(doc)) {
		dc_format_error(err, errlen, "not a signed probe spec: not a JSON object");
		*status = DC_EXIT_BADINPUT;
		return -1;
	}
	v = json_object_get(doc, "datacrumbs_signed");
	if (v == NULL) {
		if (json_object_get(doc, "datacrumbs_probes") != NULL)
			dc_format_error(err, errlen,
			       "unsigned probe spec: sign it with dc-sign first");
		else
			dc_format_error(err, errlen,
			       "unsigned: not a signed probe spec (no \"datacrumbs_signed\")");
		*status = DC_EXIT_SIGNATURE;
		return -1;
	}
	if (!json_is_integer(v) || json_integer_value(v) != DC_SIGNED_VERSION) {
		dc_format_error(err, errlen,
		       "unsupported signed spec version (\"datacrumbs_signed\" must be %d)",
		       DC_SIGNED_VERSION);
		*status = DC_EXIT_BADINPUT;
		return -1;
	}
	return 0;
}

/* The signature: well formed, of the one algorithm, and made with key
 * over this document (compared in constant time). */
static int check_signature(json_t *doc, const struct dc_key *key, char *err,
			   size_t errlen)
{
	unsigned char want[32], got[32];
	const char *sig, *alg, *key_id;
	char sigerr[256];

	sig = json_string_value(json_object_get(doc, "signature"));
	if (json_object_get(doc, "signature") == NULL) {
		dc_format_error(err, errlen, "unsigned: no \"signature\"");
		return -1;
	}
	if (sig == NULL ||
	    hex_decode(sig, strlen(sig), want, sizeof(want)) != 0) {
		dc_format_error(err, errlen,
		       "malformed signature: expected a string of %d hex digits",
		       DC_SIGNATURE_CHARS);
		return -1;
	}
	alg = json_string_value(json_object_get(doc, "algorithm"));
	if (alg == NULL || strcmp(alg, DC_SIGN_ALGORITHM) != 0) {
		dc_format_error(err, errlen,
		       "unsupported signature algorithm \"%s\": only %s is accepted",
		       alg ? alg : "(none)", DC_SIGN_ALGORITHM);
		return -1;
	}
	key_id = json_string_value(json_object_get(doc, "key_id"));
	if (key_id == NULL) {
		dc_format_error(err, errlen, "malformed signed spec: no \"key_id\" string");
		return -1;
	}
	if (compute_signature(doc, key, got, sigerr, sizeof(sigerr)) != 0) {
		dc_format_error(err, errlen, "cannot be verified: %s", sigerr);
		return -1;
	}
	/* Constant time, so timing does not reveal how much matched. */
	if (CRYPTO_memcmp(want, got, sizeof(want)) == 0)
		return 0;
	if (strcmp(key_id, key->id) != 0)
		dc_format_error(err, errlen,
		       "signature does not verify: signed with key ID %s, this key is %s (wrong key, or the file was changed)",
		       key_id, key->id);
	else
		dc_format_error(err, errlen,
		       "signature does not verify with key ID %s: the file was changed after signing (tampered) or signed with another key",
		       key->id);
	return -1;
}

json_t *dc_verify_doc(json_t *doc, const struct dc_key *key,
		      json_t **summary, char *err, size_t errlen, int *status)
{
	char spec_hash[65], sigerr[256];
	const char *signed_hash;
	json_t *spec, *sum;

	if (check_envelope(doc, err, errlen, status) != 0)
		return NULL;
	*status = DC_EXIT_SIGNATURE;
	if (check_signature(doc, key, err, errlen) != 0)
		return NULL;
	/* Authentic from here on; what follows catches a signer's bugs. */
	spec = json_object_get(doc, "spec");
	sum = json_object_get(doc, "summary");
	if (!json_is_object(spec) || !json_is_object(sum)) {
		dc_format_error(err, errlen,
		       "malformed signed spec: \"spec\" and \"summary\" must be objects");
		*status = DC_EXIT_BADINPUT;
		return NULL;
	}
	signed_hash = json_string_value(json_object_get(sum, "spec_sha256"));
	if (dc_canonical_sha256(spec, spec_hash, sigerr, sizeof(sigerr)) != 0 ||
	    signed_hash == NULL || strcmp(signed_hash, spec_hash) != 0) {
		dc_format_error(err, errlen,
		       "signed summary does not match the spec (spec_sha256 differs)");
		return NULL;
	}
	*status = DC_EXIT_OK;
	if (summary != NULL)
		*summary = json_incref(sum);
	return json_incref(spec);
}

json_t *dc_verify_file(const char *path, const char *keypath,
		       json_t **summary, char *err, size_t errlen, int *status)
{
	struct dc_key key;
	char inner[1024];
	const char *name = strcmp(path, "-") == 0 ? "standard input" : path;
	json_t *doc, *spec;
	int rc;

	if (summary != NULL)
		*summary = NULL;
	rc = dc_key_load(keypath, &key, err, errlen);
	if (rc != 0) {
		*status = rc;
		return NULL;
	}
	doc = dc_json_read_file(path, err, errlen, status);
	if (doc == NULL) {
		dc_key_clear(&key);
		return NULL;
	}
	spec = dc_verify_doc(doc, &key, summary, inner, sizeof(inner), status);
	dc_key_clear(&key);
	json_decref(doc);
	if (spec == NULL)
		dc_format_error(err, errlen, "%s: %s", name, inner);
	return spec;
}
