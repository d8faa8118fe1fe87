/*
 * preload.h - whether an LD_PRELOAD value names a library: one rule for
 * dc-collect, which reads a process's environment after its exec
 * (proc.c), and the client library, which reads the environment a
 * process is about to exec with (dc-wrap/exec.c).  Header-only: the
 * client links nothing of lib/.
 */
#ifndef DC_PRELOAD_H
#define DC_PRELOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

#endif /* DC_PRELOAD_H */
