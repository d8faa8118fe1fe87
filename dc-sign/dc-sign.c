/*
 * dc-sign - make and check signed probe specs (dc-sign(1)).
 *
 * dc-collect runs as root and attaches whatever a probe spec names, so it
 * only loads specs signed with the site key.  dc-sign makes that key,
 * signs specs with it (for whoever can read the key, normally root),
 * verifies signed specs, and, as a client of dc-signd(8), asks the site's
 * signing service to sign for users who cannot read the key.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "messages.h"
#include "service.h"
#include "sign.h"
#include "spec.h"
#include "stream.h"

enum mode { MODE_SIGN, MODE_VERIFY, MODE_GEN_KEY, MODE_KEY_ID, MODE_SERVICE };

enum {
	OPT_VERIFY = 256,
	OPT_GEN_KEY,
	OPT_FORCE,
	OPT_KEY_ID,
	OPT_VIA_SERVICE,
	OPT_VERSION,
};

static const struct option long_options[] = {
	{ "key", required_argument, NULL, 'k' },
	{ "output", required_argument, NULL, 'o' },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "gen-key", no_argument, NULL, OPT_GEN_KEY },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "key-id", no_argument, NULL, OPT_KEY_ID },
	{ "via-service", no_argument, NULL, OPT_VIA_SERVICE },
	{ "socket", required_argument, NULL, 's' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void __attribute__((noreturn)) usage(void)
{
	printf("Usage: %s [-k KEY] [-o OUT] SPEC\n"
	       "       %s --verify [-k KEY] [-o SPEC-OUT] [-q] SIGNED\n"
	       "       %s --via-service [-s SOCKET] [-o OUT] SPEC\n"
	       "       %s --gen-key [-k KEY] [--force]\n"
	       "       %s --key-id [-k KEY]\n"
	       "Sign datacrumbs probe specs so that dc-collect will load them.\n"
	       "\n"
	       "  -k, --key=PATH      signing key (default: $DC_KEY, else %s)\n"
	       "  -o, --output=PATH   write here instead of standard output;\n"
	       "                      gzip-compressed when PATH ends in .gz\n"
	       "      --verify        check SIGNED; print what was verified\n"
	       "                      (with -o, also write the verified spec)\n"
	       "  -q, --quiet         with --verify, print nothing on success\n"
	       "      --via-service   have dc-signd sign SPEC (no key needed)\n"
	       "  -s, --socket=PATH   dc-signd socket (default: $%s, else %s)\n"
	       "      --gen-key       make a new random key (mode 0600)\n"
	       "      --force         with --gen-key, replace an existing key\n"
	       "      --key-id        print the key's ID\n"
	       "  -v, --verbose       say more on standard error\n"
	       "  -h, --help          show this help and exit\n"
	       "      --version       show the version and exit\n"
	       "SPEC and SIGNED may be gzip-compressed; '-' is standard input.\n"
	       "Exit status: 0 ok, 1 failure, 2 usage, 4 bad input,\n"
	       "5 unsigned, tampered or wrongly keyed spec.  See dc-sign(1).\n",
	       dc_program, dc_program, dc_program, dc_program, dc_program,
	       SYSCONFDIR "/datacrumbs/signing.key", DC_SIGN_SOCKET_ENV,
	       DC_SIGN_SOCKET_DEFAULT);
	xfclose_stdout();
	exit(0);
}

struct options {
	const char *keypath, *out, *socket_path;
	enum mode mode;
	int mode_set, force, quiet;
};

static void set_mode(struct options *o, enum mode want)
{
	if (o->mode_set && o->mode != want)
		dc_usage_error("--verify, --gen-key, --key-id and --via-service exclude each other");
	o->mode = want;
	o->mode_set = 1;
}

static int gen_key(const char *keypath, int force)
{
	struct dc_key key;
	char err[1024];
	const char *path = keypath ? keypath : dc_default_key_path();

	if (dc_key_generate(path, force, &key, err, sizeof(err)) != 0)
		die_status(DC_EXIT_FAILURE, "%s", err);
	/* The ID is data: scripts record it to check keys later. */
	printf("%s\n", key.id);
	dc_key_clear(&key);
	xfclose_stdout();
	debug("wrote signing key %s", path);
	return 0;
}

static int key_id(const char *keypath)
{
	struct dc_key key;
	char err[1024];

	if (dc_key_load(keypath, &key, err, sizeof(err)) != 0)
		die_status(DC_EXIT_FAILURE, "%s", err);
	printf("%s\n", key.id);
	dc_key_clear(&key);
	xfclose_stdout();
	return 0;
}

static int sign(const char *keypath, const char *in, const char *out)
{
	struct dc_signer signer;
	struct dc_key key;
	struct passwd *pw;
	char err[1024], uidbuf[32];
	json_t *spec, *doc;
	int status;

	spec = dc_json_read_file(in, err, sizeof(err), &status);
	if (spec == NULL)
		die_status(status, "%s", err);
	if (json_object_get(spec, "datacrumbs_signed") != NULL)
		die_status(DC_EXIT_BADINPUT,
			   "%s is already signed (verify it with dc-sign --verify)",
			   in);
	if (dc_key_load(keypath, &key, err, sizeof(err)) != 0)
		die_status(DC_EXIT_FAILURE, "%s", err);
	pw = getpwuid(geteuid());
	snprintf(uidbuf, sizeof(uidbuf), "%ld", (long)geteuid());
	signer.user = pw ? pw->pw_name : uidbuf;
	signer.uid = geteuid();
	signer.tool = "dc-sign";
	doc = dc_sign_spec(spec, &key, &signer, err, sizeof(err), &status);
	dc_key_clear(&key);
	json_decref(spec);
	if (doc == NULL)
		die_status(status, "%s: %s", strcmp(in, "-") ? in : "standard input",
			   err);
	if (dc_json_write_file(out, doc, err, sizeof(err)) != 0)
		die_status(DC_EXIT_FAILURE, "%s", err);
	debug("signed %s with key ID %s", in,
	      json_string_value(json_object_get(doc, "key_id")));
	json_decref(doc);
	if (out == NULL || strcmp(out, "-") == 0)
		xfclose_stdout();
	return 0;
}

static void describe(const char *name, json_t *summary, json_t *spec,
		     const char *key_id)
{
	json_t *layers = json_object_get(summary, "layers"), *v;
	const char *user = json_string_value(json_object_get(summary, "signer"));
	const char *host = json_string_value(json_object_get(summary, "host"));
	json_int_t when = json_integer_value(json_object_get(summary, "signed_at"));
	time_t t = (time_t)when;
	char stamp[64] = "an unknown time";
	struct tm tm;
	size_t i;

	if (gmtime_r(&t, &tm) != NULL)
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("%s: verified: key ID %s, signed by %s (uid %lld) on %s at %s, "
	       "%zu probes, layers ",
	       name, key_id, user ? user : "?",
	       (long long)json_integer_value(json_object_get(summary, "uid")),
	       host ? host : "?", stamp,
	       json_array_size(json_object_get(spec, "probes")));
	json_array_foreach(layers, i, v)
		printf("%s%s", i ? "," : "", json_string_value(v) ?
		       json_string_value(v) : "?");
	if (json_array_size(layers) == 0)
		printf("(none)");
	printf("\n");
}

static int verify(const char *keypath, const char *in, const char *out,
		  int quiet)
{
	const char *name = strcmp(in, "-") == 0 ? "standard input" : in;
	struct dc_spec *model;
	struct dc_key key;
	char err[1024];
	json_t *spec, *summary;
	int status;

	/* Load the key once here to print its ID; dc_verify_file is the
	 * path dc-collect takes, so use it to verify. */
	if (dc_key_load(keypath, &key, err, sizeof(err)) != 0)
		die_status(DC_EXIT_FAILURE, "%s", err);
	spec = dc_verify_file(in, keypath, &summary, err, sizeof(err), &status);
	if (spec == NULL)
		die_status(status, "%s", err);
	/* A correctly signed spec can still be one dc-collect cannot use. */
	model = dc_spec_from_json(spec, err, sizeof(err));
	if (model == NULL)
		die_status(DC_EXIT_BADINPUT, "%s: signed, but not a valid probe spec: %s",
			   name, err);
	dc_spec_free(model);
	if (out != NULL) {
		if (dc_json_write_file(out, spec, err, sizeof(err)) != 0)
			die_status(DC_EXIT_FAILURE, "%s", err);
	}
	if (!quiet && (out == NULL || strcmp(out, "-") != 0))
		describe(name, summary, spec, key.id);
	dc_key_clear(&key);
	json_decref(spec);
	json_decref(summary);
	xfclose_stdout();
	return 0;
}

/* ---- client of dc-signd ---- */

static int connect_service(const char *path)
{
	struct sockaddr_un addr;
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		die("socket path %s is too long", path);
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		sysdie("cannot create a socket");
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		if (errno == ENOENT || errno == ECONNREFUSED)
			die("cannot reach the signing service at %s: %s (is dc-signd running?)",
			    path, strerror(errno));
		sysdie("cannot connect to the signing service at %s", path);
	}
	return fd;
}

static char *recv_all(int fd, size_t *len_out)
{
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap + 1);

	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= DC_SIGN_MAX_INPUT)
				die_status(DC_EXIT_BADINPUT,
					   "the signing service sent more than %u MiB",
					   DC_SIGN_MAX_INPUT >> 20);
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			sysdie("cannot read the signing service's answer");
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*len_out = len;
	return buf;
}

static int via_service(const char *socket_path, const char *in,
		       const char *out)
{
	struct dc_spec *model;
	char err[1024];
	json_t *spec, *doc;
	char *request, *reply;
	size_t len;
	int fd, status;

	/* Check locally first: a bad spec gets the same one-line error as
	 * when signing with a key, without a round trip. */
	spec = dc_json_read_file(in, err, sizeof(err), &status);
	if (spec == NULL)
		die_status(status, "%s", err);
	model = dc_spec_from_json(spec, err, sizeof(err));
	if (model == NULL)
		die_status(DC_EXIT_BADINPUT, "%s: %s",
			   strcmp(in, "-") ? in : "standard input", err);
	dc_spec_free(model);
	request = json_dumps(spec, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(spec);
	if (request == NULL)
		die("cannot serialise the spec: out of memory");

	fd = connect_service(socket_path);
	if (dc_send_all(fd, request, strlen(request)) != 0)
		sysdie("cannot send the spec to the signing service");
	free(request);
	if (shutdown(fd, SHUT_WR) != 0)
		sysdie("cannot finish the request to the signing service");
	reply = recv_all(fd, &len);
	close(fd);
	if (len == 0)
		die("the signing service at %s closed the connection without an answer",
		    socket_path);
	if (strncmp(reply, "error: ", 7) == 0) {
		reply[strcspn(reply, "\n")] = '\0';
		die("signing service refused: %s", reply + 7);
	}
	doc = dc_json_read_buffer(reply, len, "the signing service's answer",
				  err, sizeof(err), &status);
	free(reply);
	if (doc == NULL)
		die_status(status, "%s", err);
	if (!json_is_string(json_object_get(doc, "signature")))
		die_status(DC_EXIT_BADINPUT,
			   "the signing service's answer is not a signed spec");
	if (dc_json_write_file(out, doc, err, sizeof(err)) != 0)
		die_status(DC_EXIT_FAILURE, "%s", err);
	json_decref(doc);
	if (out == NULL || strcmp(out, "-") == 0)
		xfclose_stdout();
	return 0;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "k:o:s:qvh", long_options, NULL)) != -1) {
		switch (c) {
		case 'k':
			o->keypath = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 's':
			o->socket_path = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'v':
			dc_verbose++;
			break;
		case 'h':
			usage();
		case OPT_VERSION:
			dc_print_version();
		case OPT_VERIFY:
			set_mode(o, MODE_VERIFY);
			break;
		case OPT_GEN_KEY:
			set_mode(o, MODE_GEN_KEY);
			break;
		case OPT_KEY_ID:
			set_mode(o, MODE_KEY_ID);
			break;
		case OPT_VIA_SERVICE:
			set_mode(o, MODE_SERVICE);
			break;
		case OPT_FORCE:
			o->force = 1;
			break;
		default:
			dc_usage_error("unknown option");
		}
	}
}

/* Options that go with another mode than the one chosen. */
static void check_options(const struct options *o)
{
	if (o->keypath != NULL && *o->keypath == '\0')
		dc_usage_error("empty key path");
	if (o->force && o->mode != MODE_GEN_KEY)
		dc_usage_error("--force only goes with --gen-key");
	if (o->quiet && o->mode != MODE_VERIFY)
		dc_usage_error("--quiet only goes with --verify");
	if (o->socket_path != NULL && o->mode != MODE_SERVICE)
		dc_usage_error("--socket only goes with --via-service");
	if (o->mode == MODE_SERVICE && o->keypath != NULL)
		dc_usage_error("--via-service signs with the service's key; drop --key");
}

int main(int argc, char **argv)
{
	struct options o = { .mode = MODE_SIGN };
	const char *socket_path;

	dc_messages_init(argv[0]);
	parse_options(argc, argv, &o);
	check_options(&o);
	if (o.mode == MODE_GEN_KEY || o.mode == MODE_KEY_ID) {
		if (optind != argc)
			dc_usage_error("unexpected argument '%s'", argv[optind]);
		if (o.out != NULL)
			dc_usage_error("--output does not go with --gen-key or --key-id; use --key");
		return o.mode == MODE_GEN_KEY ? gen_key(o.keypath, o.force)
					      : key_id(o.keypath);
	}
	if (optind == argc)
		dc_usage_error("missing the spec file to %s",
			       o.mode == MODE_VERIFY ? "verify" : "sign");
	if (optind + 1 != argc)
		dc_usage_error("unexpected argument '%s'", argv[optind + 1]);
	switch (o.mode) {
	case MODE_VERIFY:
		return verify(o.keypath, argv[optind], o.out, o.quiet);
	case MODE_SERVICE:
		socket_path = o.socket_path;
		if (socket_path == NULL)
			socket_path = getenv(DC_SIGN_SOCKET_ENV);
		if (socket_path == NULL || *socket_path == '\0')
			socket_path = DC_SIGN_SOCKET_DEFAULT;
		return via_service(socket_path, argv[optind], o.out);
	default:
		return sign(o.keypath, argv[optind], o.out);
	}
}
