/*
 * dc-signd - the datacrumbs signing service (dc-signd(8)).
 *
 * The site key is readable by root only, yet users need signed probe specs
 * to trace their own jobs.  dc-signd holds the key and signs a spec for
 * whoever connects to its unix socket, after checking the spec against the
 * site policy: allowed layers and probe kinds, a probe limit, allowed
 * library paths, and that the caller could read every library the spec
 * probes (checked in a child that has taken on the caller's uid, gid and
 * groups, as the kernel reported them with SO_PEERCRED/SO_PEERGROUPS).
 * The signed summary names the caller, so dc-collect's logs say who asked
 * for what.
 *
 * Protocol (service.h): the client writes the spec and shuts down its
 * writing side; the answer is the signed spec or "error: REASON\n".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "messages.h"
#include "service.h"
#include "sign.h"
#include "spec.h"
#include "stream.h"

#define POLICY_VERSION 1
#define MAX_CHILDREN 32
#define MAX_GROUPS 1024

/* ---- the site policy (dc-signd(8), POLICY FILE) ---- */

struct policy {
	json_t *doc;             /* the parsed file; the lists point into it */
	json_int_t max_probes;
	json_t *layers;          /* array of strings; "*" allows any */
	json_t *kinds;           /* array or NULL: any kind */
	json_t *users;           /* array or NULL */
	json_t *groups;          /* array or NULL */
	size_t ntargets;
	char **targets;          /* canonical; a trailing '/' marks a folder */
};

static void policy_free(struct policy *p)
{
	size_t i;

	for (i = 0; i < p->ntargets; i++)
		free(p->targets[i]);
	free(p->targets);
	json_decref(p->doc);
	memset(p, 0, sizeof(*p));
}

static int string_array(json_t *v)
{
	json_t *e;
	size_t i;

	if (!json_is_array(v))
		return 0;
	json_array_foreach(v, i, e)
		if (!json_is_string(e))
			return 0;
	return 1;
}

static int in_list(json_t *list, const char *s)
{
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
		if (strcmp(json_string_value(e), s) == 0 ||
		    strcmp(json_string_value(e), "*") == 0)
			return 1;
	return 0;
}

/* Canonicalise a policy target so it compares with realpath(3) results
 * (on merged-/usr systems /lib/x.so is /usr/lib/x.so). */
static char *canonical_target(const char *entry)
{
	size_t n = strlen(entry);
	int folder = n > 0 && entry[n - 1] == '/';
	char resolved[PATH_MAX];

	if (realpath(entry, resolved) == NULL) {
		/* Not there (yet): keep it as written. */
		char *copy = xstrdup(entry);

		while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
			copy[strlen(copy) - 1] = '\0';
		return folder && strcmp(copy, "/") ? xasprintf("%s/", copy) : copy;
	}
	if (folder && strcmp(resolved, "/") != 0)
		return xasprintf("%s/", resolved);
	return xstrdup(resolved);
}

/* Only known members, the right version, and max_probes. */
static int policy_members(const char *path, struct policy *p, char *err,
			  size_t errlen)
{
	static const char *const known[] = {
		"datacrumbs_policy", "max_probes", "allowed_layers",
		"allowed_kinds", "allowed_targets", "allowed_users",
		"allowed_groups", NULL,
	};
	const char *key;
	json_t *v;
	size_t i;

	if (!json_is_object(p->doc)) {
		snprintf(err, errlen, "policy %s: not a JSON object", path);
		return -1;
	}
	json_object_foreach(p->doc, key, v) {
		for (i = 0; known[i] && strcmp(known[i], key); i++)
			;
		if (known[i] == NULL) {
			snprintf(err, errlen, "policy %s: unknown member \"%s\"",
				 path, key);
			return -1;
		}
	}
	v = json_object_get(p->doc, "datacrumbs_policy");
	if (!json_is_integer(v) || json_integer_value(v) != POLICY_VERSION) {
		snprintf(err, errlen,
			 "policy %s: \"datacrumbs_policy\" must be %d", path,
			 POLICY_VERSION);
		return -1;
	}
	v = json_object_get(p->doc, "max_probes");
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		snprintf(err, errlen,
			 "policy %s: \"max_probes\" must be a non-negative integer",
			 path);
		return -1;
	}
	p->max_probes = json_integer_value(v);
	return 0;
}

/* The allowed_ lists: arrays of strings, kinds that exist, targets as
 * absolute paths (kept canonical). */
static int policy_lists(const char *path, struct policy *p, char *err,
			size_t errlen)
{
	json_t *v, *targets = json_object_get(p->doc, "allowed_targets");
	size_t i;

	p->layers = json_object_get(p->doc, "allowed_layers");
	if (!string_array(p->layers) || !string_array(targets)) {
		snprintf(err, errlen,
			 "policy %s: \"allowed_layers\" and \"allowed_targets\" must be arrays of strings",
			 path);
		return -1;
	}
	p->kinds = json_object_get(p->doc, "allowed_kinds");
	p->users = json_object_get(p->doc, "allowed_users");
	p->groups = json_object_get(p->doc, "allowed_groups");
	if ((p->kinds && !string_array(p->kinds)) ||
	    (p->users && !string_array(p->users)) ||
	    (p->groups && !string_array(p->groups))) {
		snprintf(err, errlen,
			 "policy %s: \"allowed_kinds\", \"allowed_users\" and \"allowed_groups\" must be arrays of strings",
			 path);
		return -1;
	}
	json_array_foreach(p->kinds, i, v) {
		if (dc_probe_kind_parse(json_string_value(v)) <= 0) {
			snprintf(err, errlen,
				 "policy %s: unknown probe kind \"%s\" in \"allowed_kinds\"",
				 path, json_string_value(v));
			return -1;
		}
	}
	p->targets = xcalloc(json_array_size(targets) + 1, sizeof(char *));
	json_array_foreach(targets, i, v) {
		const char *t = json_string_value(v);

		if (t[0] != '/') {
			snprintf(err, errlen,
				 "policy %s: target \"%s\" is not an absolute path",
				 path, t);
			return -1;
		}
		p->targets[p->ntargets++] = canonical_target(t);
	}
	return 0;
}

static int policy_load(const char *path, struct policy *p, char *err,
		       size_t errlen, int *status)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (stat(path, &st) != 0 && errno == ENOENT) {
		snprintf(err, errlen,
			 "no policy file %s (see POLICY FILE in dc-signd(8))",
			 path);
		*status = DC_EXIT_FAILURE;
		return -1;
	}
	p->doc = dc_json_read_file(path, err, errlen, status);
	if (p->doc == NULL)
		return -1;
	if (policy_members(path, p, err, errlen) != 0 ||
	    policy_lists(path, p, err, errlen) != 0) {
		*status = DC_EXIT_BADINPUT;
		policy_free(p);
		return -1;
	}
	*status = 0;
	return 0;
}

static int target_allowed(const struct policy *p, const char *resolved)
{
	size_t i;

	for (i = 0; i < p->ntargets; i++) {
		const char *t = p->targets[i];
		size_t n = strlen(t);

		if (n > 0 && t[n - 1] == '/') {
			if (strncmp(resolved, t, n) == 0)
				return 1;
		} else if (strcmp(resolved, t) == 0) {
			return 1;
		}
	}
	return 0;
}

/* ---- the caller ---- */

struct caller {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	char name[256];
	int ngroups;
	gid_t groups[MAX_GROUPS];
};

static int identify(int fd, struct caller *c, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct passwd *pw;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		snprintf(err, errlen, "cannot identify the caller: %s",
			 strerror(errno));
		return -1;
	}
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->gid = cred.gid;
	pw = getpwuid(c->uid);
	if (pw == NULL) {
		snprintf(err, errlen, "uid %ld has no user name",
			 (long)c->uid);
		return -1;
	}
	snprintf(c->name, sizeof(c->name), "%s", pw->pw_name);
	/* The groups the caller really has (Linux 4.13+), else the ones the
	 * group database gives the user. */
	len = sizeof(c->groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, c->groups, &len) == 0) {
		c->ngroups = (int)(len / sizeof(gid_t));
	} else {
		c->ngroups = MAX_GROUPS;
		if (getgrouplist(pw->pw_name, pw->pw_gid, c->groups,
				 &c->ngroups) < 0) {
			snprintf(err, errlen, "user %s is in more than %d groups",
				 c->name, MAX_GROUPS);
			return -1;
		}
	}
	return 0;
}

static int caller_in_group(const struct caller *c, gid_t gid)
{
	int i;

	if (c->gid == gid)
		return 1;
	for (i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return 1;
	return 0;
}

static int caller_allowed(const struct policy *p, const struct caller *c)
{
	json_t *e;
	size_t i;

	if (p->users == NULL && p->groups == NULL)
		return 1;
	if (p->users != NULL && in_list(p->users, c->name))
		return 1;
	json_array_foreach(p->groups, i, e) {
		struct group *gr = getgrnam(json_string_value(e));

		if (gr != NULL && caller_in_group(c, gr->gr_gid))
			return 1;
	}
	return 0;
}

/* ---- checking targets as the caller ---- */

/* In a child with the caller's identity: resolve and open each target.
 * Writes one NUL-terminated record per target to out: 'R' + resolved
 * path, or 'E' + the reason. */
static void __attribute__((noreturn))
check_as_caller(const struct caller *c, struct dc_key *key, char **targets,
		size_t n, int out)
{
	char resolved[PATH_MAX];
	size_t i;

	/* This process becomes the caller's: it must not hold the key, nor
	 * hang forever on a path the caller controls (FUSE, NFS). */
	OPENSSL_cleanse(key, sizeof(*key));
	alarm(DC_SIGN_TIMEOUT_S);
	if (setgroups((size_t)c->ngroups, c->groups) != 0 ||
	    setresgid(c->gid, c->gid, c->gid) != 0 ||
	    setresuid(c->uid, c->uid, c->uid) != 0 ||
	    getuid() != c->uid || geteuid() != c->uid) {
		char *msg = xasprintf("Ecannot take on the identity of %s: %s",
				      c->name, strerror(errno));

		dc_write_all(out, msg, strlen(msg) + 1);
		_exit(1);
	}
	/* Changing ids reset this to fs.suid_dumpable; keep it off. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (i = 0; i < n; i++) {
		struct stat st;
		char *rec;
		int fd;

		if (realpath(targets[i], resolved) == NULL) {
			rec = xasprintf("Etarget %s cannot be resolved as %s: %s",
					targets[i], c->name, strerror(errno));
		} else if ((fd = open(resolved, O_RDONLY | O_CLOEXEC |
				      O_NONBLOCK | O_NOCTTY)) < 0) {
			rec = xasprintf("Etarget %s is not readable by %s: %s",
					targets[i], c->name, strerror(errno));
		} else {
			if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
				rec = xasprintf("Etarget %s is not a regular file",
						targets[i]);
			else
				rec = xasprintf("R%s", resolved);
			close(fd);
		}
		if (dc_write_all(out, rec, strlen(rec) + 1) != 0)
			_exit(1);
		free(rec);
	}
	_exit(0);
}

/* Resolve every uprobe/usdt target as the caller; on success targets[i]
 * is replaced by the canonical path. */
static int resolve_targets(const struct caller *c, struct dc_key *key,
			   char **targets, size_t n, char *err, size_t errlen)
{
	size_t cap = 4096, len = 0, i;
	char *buf, *rec;
	int pipefd[2], wstatus, rc = -1;
	pid_t pid;

	if (n == 0)
		return 0;
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "internal error: pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "internal error: fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		check_as_caller(c, key, targets, n, pipefd[1]);
	}
	close(pipefd[1]);
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(pipefd[0], buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(pipefd[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	rec = buf;
	for (i = 0; i < n; i++) {
		char *end = memchr(rec, '\0', (size_t)(buf + len - rec));

		if (rec >= buf + len || end == NULL) {
			snprintf(err, errlen,
				 "internal error: the target check ended early");
			goto out;
		}
		if (rec[0] != 'R') {
			snprintf(err, errlen, "%s", rec + 1);
			goto out;
		}
		free(targets[i]);
		targets[i] = xstrdup(rec + 1);
		rec = end + 1;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

/* ---- one request ---- */

/* The service: its options, key and socket. */
struct service {
	const char *socket_path;
	const char *keypath;
	const char *policy_path;   /* read again for every request */
	struct dc_key key;
	int once, check;
	int listen_fd, own_socket; /* own: created here, unlinked at exit */
	int children;              /* connections being served */
};

static int check_and_canonicalise(json_t *spec, const struct policy *pol,
				  const struct caller *c, struct dc_key *key,
				  char *err, size_t errlen)
{
	struct dc_spec *model;
	char **targets;
	size_t *index;
	size_t i, n = 0;
	json_t *probes = json_object_get(spec, "probes");
	int rc = -1;

	model = dc_spec_from_json(spec, err, errlen);
	if (model == NULL)
		return -1;
	if (!caller_allowed(pol, c)) {
		snprintf(err, errlen,
			 "user %s may not use this signing service (policy: allowed_users, allowed_groups)",
			 c->name);
		goto out_model;
	}
	if ((json_int_t)model->nprobes > pol->max_probes) {
		snprintf(err, errlen,
			 "spec has %zu probes, the policy allows at most %lld",
			 model->nprobes, (long long)pol->max_probes);
		goto out_model;
	}
	targets = xcalloc(model->nprobes + 1, sizeof(char *));
	index = xcalloc(model->nprobes + 1, sizeof(size_t));
	for (i = 0; i < model->nprobes; i++) {
		const struct dc_probe *p = &model->probes[i];
		const char *kind = dc_probe_kind_name(p->kind);

		if (!in_list(pol->layers, p->layer)) {
			snprintf(err, errlen,
				 "probe %zu (%s): layer \"%s\" is not allowed by the policy",
				 i, p->function, p->layer);
			goto out;
		}
		if (pol->kinds != NULL && !in_list(pol->kinds, kind)) {
			snprintf(err, errlen,
				 "probe %zu (%s): probe kind \"%s\" is not allowed by the policy",
				 i, p->function, kind);
			goto out;
		}
		if (p->kind != DC_PROBE_UPROBE && p->kind != DC_PROBE_USDT)
			continue;
		if (p->target[0] != '/') {
			snprintf(err, errlen,
				 "probe %zu (%s): target %s is not an absolute path",
				 i, p->function, p->target);
			goto out;
		}
		targets[n] = xstrdup(p->target);
		index[n++] = i;
	}
	if (resolve_targets(c, key, targets, n, err, errlen) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (!target_allowed(pol, targets[i])) {
			snprintf(err, errlen,
				 "probe %zu (%s): target %s is not allowed by the policy",
				 index[i], model->probes[index[i]].function,
				 targets[i]);
			goto out;
		}
		/* Sign the file that was checked, not a name that a symlink
		 * could later point elsewhere. */
		json_object_set_new(json_array_get(probes, index[i]), "target",
				    json_string(targets[i]));
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(targets[i]);
	free(targets);
	free(index);
out_model:
	dc_spec_free(model);
	return rc;
}

static char *read_request(int fd, size_t *len_out, char *err, size_t errlen)
{
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap);

	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= DC_SIGN_REQUEST_MAX) {
				snprintf(err, errlen, "request larger than %u MiB",
					 DC_SIGN_REQUEST_MAX >> 20);
				free(buf);
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "cannot read the request: %s",
				 errno == EAGAIN ? "timed out" : strerror(errno));
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*len_out = len;
	return buf;
}

static void send_reply(int fd, const char *buf, size_t len)
{
	if (dc_send_all(fd, buf, len) != 0)
		syswarn("cannot send the answer");
}

/* Read what the client still sends, so that closing with unread data
 * does not reset the connection before it reads the answer. */
static void drain(int fd)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;

	shutdown(fd, SHUT_WR);
	while (total < 4 * (size_t)DC_SIGN_REQUEST_MAX) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
	}
}

static void refuse(int fd, const struct caller *c, const char *reason)
{
	char *line;

	if (c != NULL && c->name[0])
		warn("refused %s (uid %ld, pid %ld): %s", c->name, (long)c->uid,
		     (long)c->pid, reason);
	else
		warn("refused a request: %s", reason);
	line = xasprintf("error: %s\n", reason);
	send_reply(fd, line, strlen(line));
	free(line);
	drain(fd);
}

/* The client's request: a spec, not signed yet, with nothing but a
 * spec's keys.  NULL with the reason to refuse it in err. */
static json_t *read_spec(int fd, char *err, size_t errlen)
{
	char *request;
	json_t *spec;
	size_t len;
	int status;

	request = read_request(fd, &len, err, errlen);
	if (request == NULL)
		return NULL;
	spec = dc_json_read_buffer(request, len, "request", err, errlen,
				   &status);
	free(request);
	if (spec == NULL)
		return NULL;
	if (json_object_get(spec, "datacrumbs_signed") != NULL) {
		snprintf(err, errlen, "the request is already a signed spec");
		json_decref(spec);
		return NULL;
	}
	/* Nothing but the spec goes under the service's signature. */
	if (json_is_object(spec) && dc_spec_unknown_key(spec) != NULL) {
		snprintf(err, errlen, "unknown top-level key \"%.200s\" in "
			 "the request (a probe spec has datacrumbs_probes, mode, "
			 "interval_ms and probes)", dc_spec_unknown_key(spec));
		json_decref(spec);
		return NULL;
	}
	return spec;
}

/* spec checked against the policy, canonicalised and signed for c: the
 * signed spec, or NULL with the reason to refuse it in err. */
static json_t *sign_for(struct service *svc, json_t *spec,
			const struct caller *c, char *err, size_t errlen)
{
	struct dc_signer signer;
	struct policy pol;
	int status, rc;

	/* Read the policy per request: an edit applies at once. */
	if (policy_load(svc->policy_path, &pol, err, errlen, &status) != 0) {
		warn("%s", err);
		snprintf(err, errlen, "the service's policy cannot be read; tell the administrator");
		return NULL;
	}
	rc = check_and_canonicalise(spec, &pol, c, &svc->key, err, errlen);
	policy_free(&pol);
	if (rc != 0)
		return NULL;
	signer.user = c->name;
	signer.uid = c->uid;
	signer.tool = "dc-signd";
	return dc_sign_spec(spec, &svc->key, &signer, err, errlen, &status);
}

static void serve(struct service *svc, int fd)
{
	struct timeval tv = { .tv_sec = DC_SIGN_TIMEOUT_S };
	struct caller c;
	char err[1024];
	json_t *spec, *doc;
	char *reply;
	size_t len;

	memset(&c, 0, sizeof(c));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (identify(fd, &c, err, sizeof(err)) != 0) {
		refuse(fd, &c, err);
		return;
	}
	spec = read_spec(fd, err, sizeof(err));
	if (spec == NULL) {
		refuse(fd, &c, err);
		return;
	}
	doc = sign_for(svc, spec, &c, err, sizeof(err));
	json_decref(spec);
	if (doc == NULL) {
		refuse(fd, &c, err);
		return;
	}
	reply = dc_json_pretty(doc, &len);
	if (reply == NULL) {
		refuse(fd, &c, "out of memory");
		json_decref(doc);
		return;
	}
	send_reply(fd, reply, len);
	notice("signed %lld probes for %s (uid %ld, pid %ld)",
	       (long long)json_integer_value(json_object_get(
		       json_object_get(doc, "summary"), "probes")),
	       c.name, (long)c.uid, (long)c.pid);
	free(reply);
	json_decref(doc);
}

/* ---- the listening socket ---- */

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	stopping = 1;
}

static void on_child(int sig)
{
	/* Only wakes accept(); reaping happens in the loop. */
}

/* systemd socket activation (sd_listen_fds(3)): the socket is fd 3 when
 * LISTEN_PID is us and LISTEN_FDS is 1. */
static int activated_socket(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int type = 0, listening = 0;
	socklen_t len = sizeof(type);
	char *end;
	long v;

	if (pid == NULL || fds == NULL)
		return -1;
	v = strtol(pid, &end, 10);
	if (*pid == '\0' || *end != '\0' || v != (long)getpid())
		return -1;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (strcmp(fds, "1") != 0)
		die("socket activation passed LISTEN_FDS=%s; dc-signd takes exactly one socket",
		    fds);
	if (getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
	    type != SOCK_STREAM)
		die("socket activation: fd 3 is not a stream socket");
	len = sizeof(listening);
	if (getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 ||
	    !listening)
		die("socket activation: fd 3 is not listening");
	fcntl(3, F_SETFD, FD_CLOEXEC);
	return 3;
}

/* Bind under a temporary name and rename into place, so a client never
 * finds the socket before it listens or with the wrong mode. */
static int listen_on(const char *path)
{
	struct sockaddr_un addr;
	struct stat st;
	char *tmp, *dir, *slash;
	int fd;

	tmp = xasprintf("%s.%ld", path, (long)getpid());
	if (strlen(tmp) >= sizeof(addr.sun_path))
		die("socket path %s is too long", path);
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			sysdie("cannot create %s", dir);
	}
	free(dir);
	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
		die("%s exists and is not a socket", path);
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	/* A socket left by a dead service is replaced; a live one is not. */
	if (strlen(path) < sizeof(addr.sun_path)) {
		strcpy(addr.sun_path, path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&addr,
				       sizeof(addr)) == 0)
			die("another service is listening on %s", path);
		if (fd >= 0)
			close(fd);
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strcpy(addr.sun_path, tmp);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		sysdie("cannot create a socket");
	unlink(tmp);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0)
		sysdie("cannot bind %s", tmp);
	/* Anyone may ask; the policy decides. */
	if (chmod(tmp, 0666) != 0 || listen(fd, 64) != 0 ||
	    rename(tmp, path) != 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		sysdie("cannot listen on %s", path);
	}
	free(tmp);
	return fd;
}

static void usage(void) __attribute__((noreturn));
static void usage(void)
{
	printf("Usage: %s [-s SOCKET] [-k KEY] [-p POLICY] [--once]\n"
	       "Sign probe specs for local users, within the site policy.\n"
	       "\n"
	       "  -s, --socket=PATH   listen here (default %s); under systemd\n"
	       "                      socket activation the passed socket is used\n"
	       "  -k, --key=PATH      signing key (default: $DC_KEY, else %s)\n"
	       "  -p, --policy=PATH   site policy (default %s)\n"
	       "      --once          serve one connection, then exit\n"
	       "      --check         load the key and policy, then exit\n"
	       "  -v, --verbose       say more on standard error\n"
	       "  -h, --help          show this help and exit\n"
	       "      --version       show the version and exit\n"
	       "Exit status: 0 ok, 1 failure, 2 usage, 4 malformed policy.\n"
	       "See dc-signd(8).\n",
	       dc_program, DC_SIGN_SOCKET_DEFAULT,
	       SYSCONFDIR "/datacrumbs/signing.key",
	       SYSCONFDIR "/datacrumbs/policy.json");
	xfclose_stdout();
	exit(0);
}

enum { OPT_ONCE = 256, OPT_CHECK, OPT_VERSION };

static const struct option long_options[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "key", required_argument, NULL, 'k' },
	{ "policy", required_argument, NULL, 'p' },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void parse_options(int argc, char **argv, struct service *svc)
{
	int c;

	while ((c = getopt_long(argc, argv, "s:k:p:vh", long_options, NULL)) != -1) {
		switch (c) {
		case 's':
			svc->socket_path = optarg;
			break;
		case 'k':
			svc->keypath = optarg;
			break;
		case 'p':
			svc->policy_path = optarg;
			break;
		case OPT_ONCE:
			svc->once = 1;
			break;
		case OPT_CHECK:
			svc->check = 1;
			break;
		case 'v':
			dc_verbose++;
			break;
		case 'h':
			usage();
		case OPT_VERSION:
			dc_print_version();
		default:
			dc_usage_error("unknown option");
		}
	}
	if (optind != argc)
		dc_usage_error("unexpected argument '%s'", argv[optind]);
	if (*svc->socket_path == '\0')
		dc_usage_error("empty socket path");
}

/* SIGTERM and SIGINT stop the loop (accept() returns: no SA_RESTART);
 * SIGCHLD only wakes it to reap. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

/* A child per connection: a slow or hostile client holds up no one
 * else. */
static void serve_in_child(struct service *svc, int conn)
{
	struct sigaction sa;
	pid_t pid = fork();

	if (pid < 0) {
		syswarn("cannot fork");
		refuse(conn, NULL, "the service is overloaded, try again");
		return;
	}
	if (pid == 0) {
		/* A whole request, however slowly sent, gets a bound. */
		alarm(DC_SIGN_REQUEST_TIMEOUT_S);
		close(svc->listen_fd);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		serve(svc, conn);
		close(conn);
		_exit(0);
	}
	svc->children++;
}

static void serve_connections(struct service *svc)
{
	while (!stopping) {
		int conn;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			svc->children--;
		if (svc->children >= MAX_CHILDREN) {
			/* Back-pressure: wait for a slot rather than fork on. */
			if (waitpid(-1, NULL, 0) > 0)
				svc->children--;
			continue;
		}
		conn = accept4(svc->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			syswarn("accept failed");
			sleep(1);
			continue;
		}
		if (svc->once) {
			serve(svc, conn);
			close(conn);
			break;
		}
		serve_in_child(svc, conn);
		close(conn);
	}
}

int main(int argc, char **argv)
{
	struct service svc = {
		.socket_path = DC_SIGN_SOCKET_DEFAULT,
		.policy_path = SYSCONFDIR "/datacrumbs/policy.json",
	};
	struct policy pol;
	char err[1024];
	int status;

	dc_messages_init(argv[0]);
	parse_options(argc, argv, &svc);
	if (geteuid() != 0)
		die("dc-signd must run as root: it reads the root-only key and checks targets as each caller");
	/* Keep the key out of core dumps and away from ptrace. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (dc_key_load(svc.keypath, &svc.key, err, sizeof(err)) != 0)
		die("%s", err);
	if (policy_load(svc.policy_path, &pol, err, sizeof(err), &status) != 0)
		die_status(status, "%s", err);
	policy_free(&pol);
	if (svc.check) {
		notice("key ID %s and policy %s are usable", svc.key.id,
		       svc.policy_path);
		return 0;
	}
	catch_signals();
	svc.listen_fd = activated_socket();
	if (svc.listen_fd < 0) {
		svc.listen_fd = listen_on(svc.socket_path);
		svc.own_socket = 1;
	}
	debug("listening with key ID %s, policy %s", svc.key.id,
	      svc.policy_path);
	serve_connections(&svc);
	if (svc.own_socket)
		unlink(svc.socket_path);
	close(svc.listen_fd);
	while (svc.children > 0 && waitpid(-1, NULL, 0) > 0)
		svc.children--;
	dc_key_clear(&svc.key);
	return 0;
}
