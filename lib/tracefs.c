/*
 * tracefs.c - locate tracefs and its tracepoints (see tracefs.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "tracefs.h"

static int has_dir(const char *dir, const char *sub1, const char *sub2)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s/%s%s%s", dir, sub1,
		     sub2 ? "/" : "", sub2 ? sub2 : "");
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *dc_tracefs_kernel(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (has_dir(dirs[i], "events", NULL))
			return dirs[i];
	return NULL;
}

const char *dc_tracefs(void)
{
	const char *env = getenv("DC_TRACEFS");

	if (env && *env)
		return has_dir(env, "events", NULL) ? env : NULL;
	return dc_tracefs_kernel();
}

int dc_tracefs_mount(void)
{
	if (dc_tracefs_kernel() != NULL)
		return 0;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0)
		return -1;
	if (dc_tracefs_kernel() != NULL)
		return 0;
	errno = ENOENT;
	return -1;
}

int dc_tracefs_has(const char *root, const char *category, const char *name)
{
	char events[PATH_MAX];

	if (root == NULL)
		return -1;
	if (snprintf(events, sizeof(events), "%s/events", root) >= (int)sizeof(events))
		return 0;
	return has_dir(events, category, name);
}
