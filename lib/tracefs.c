/*
 * tracefs.c - locate tracefs (see tracefs.h).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tracefs.h"

static int has_events(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *dc_tracefs(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	const char *env = getenv("DC_TRACEFS");
	size_t i;

	if (env && *env)
		return has_events(env) ? env : NULL;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (has_events(dirs[i]))
			return dirs[i];
	return NULL;
}

int dc_tracepoint_exists(const char *category, const char *name)
{
	const char *root = dc_tracefs();
	char path[PATH_MAX];
	struct stat st;

	if (root == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s", root, category, name);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
