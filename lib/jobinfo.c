/*
 * jobinfo.c - job identity from environment variables; see jobinfo.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobinfo.h"

/* Each field and the variables that set it, most specific first. */
struct field {
	const char *key;
	const char *const vars[8];
};

static const struct field fields[] = {
	{ "job_id", { "SLURM_JOB_ID", "FLUX_JOB_ID", "PBS_JOBID", "LSB_JOBID",
		      NULL } },
	{ "job_step", { "SLURM_STEP_ID", NULL } },
	{ "nodelist", { "SLURM_JOB_NODELIST", "LSB_HOSTS", NULL } },
	{ "nnodes", { "SLURM_JOB_NUM_NODES", "FLUX_JOB_NNODES", "PBS_NUM_NODES",
		      NULL } },
	{ "world_size", { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
			  "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS",
			  "FLUX_JOB_SIZE", "HOROVOD_SIZE", "WORLD_SIZE",
			  NULL } },
	{ "local_rank", { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
			  "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
			  "FLUX_TASK_LOCAL_ID", "HOROVOD_LOCAL_RANK",
			  "LOCAL_RANK", NULL } },
};

/* Which scheduler a job id variable belongs to. */
static const char *const schedulers[][2] = {
	{ "SLURM_JOB_ID", "slurm" }, { "FLUX_JOB_ID", "flux" },
	{ "PBS_JOBID", "pbs" }, { "LSB_JOBID", "lsf" },
};

static const char *const rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
	"SLURM_PROCID", "FLUX_TASK_RANK", "HOROVOD_RANK", "RANK", NULL,
};

/* Flux prints job ids in F58: "ƒ" (or "f") and base58 digits, Bitcoin's
 * alphabet, most significant first.  The decimal form is the one the
 * prolog gets from `flux job id --to=dec`, so everyone names the job
 * alike.  Returns 0 when s is not F58. */
static int f58_decode(const char *s, size_t len, unsigned long long *out)
{
	static const char digits[] =
		"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
	unsigned long long v = 0;
	size_t i = 0;

	if (len >= 2 && (unsigned char)s[0] == 0xc6 && (unsigned char)s[1] == 0x92)
		i = 2;
	else if (len >= 1 && s[0] == 'f')
		i = 1;
	else
		return 0;
	if (i == len || len - i > 11)
		return 0;
	for (; i < len; i++) {
		const char *d = s[i] ? strchr(digits, s[i]) : NULL;

		if (d == NULL)
			return 0;
		v = v * 58 + (unsigned long long)(d - digits);
	}
	*out = v;
	return 1;
}

static int id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

int dc_job_id_valid(const char *id)
{
	size_t i;

	if (id[0] == '\0' || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
		return 0;
	for (i = 0; id[i] != '\0'; i++)
		if (i >= DC_JOB_ID_MAX - 1 || !id_char(id[i]))
			return 0;
	return 1;
}

void dc_job_id_from_env(char *buf, size_t cap)
{
	size_t i;

	for (i = 0; i < sizeof(schedulers) / sizeof(schedulers[0]); i++) {
		const char *v = getenv(schedulers[i][0]);
		size_t k;

		unsigned long long id;

		if (v == NULL || *v == '\0')
			continue;
		if (i == 1 && f58_decode(v, strlen(v), &id))
			snprintf(buf, cap, "%llu", id);
		else
			snprintf(buf, cap, "%s", v);
		for (k = 0; buf[k] != '\0'; k++)
			if (!id_char(buf[k]))
				buf[k] = '_';
		if (dc_job_id_valid(buf))
			return;
	}
	snprintf(buf, cap, "local-%d", (int)getpid());
}

const char *dc_env_find(const char *env, size_t len, const char *name,
			size_t *vlen)
{
	size_t nl = strlen(name), pos = 0;

	while (pos < len) {
		const char *e = env + pos;
		size_t el = strnlen(e, len - pos);

		if (el > nl && memcmp(e, name, nl) == 0 && e[nl] == '=') {
			*vlen = el - nl - 1;
			return e + nl + 1;
		}
		pos += el + 1;
	}
	return NULL;
}

int dc_job_rank(const char *env, size_t len)
{
	const char *v;
	size_t vl;
	int i;

	for (i = 0; rank_vars[i] != NULL; i++) {
		v = dc_env_find(env, len, rank_vars[i], &vl);
		if (v != NULL && vl > 0 && vl < 11 && v[0] >= '0' && v[0] <= '9')
			return atoi(v);
	}
	return -1;
}

static size_t put_pair(char *out, size_t cap, size_t pos, const char *key,
		       const char *v, size_t vl)
{
	size_t kl = strlen(key), need = (pos ? 1 : 0) + kl + 1 + vl;

	if (pos + need > cap)
		return (size_t)-1;
	if (pos)
		out[pos++] = '\0';
	memcpy(out + pos, key, kl);
	out[pos + kl] = '=';
	memcpy(out + pos + kl + 1, v, vl);
	return pos + kl + 1 + vl;
}

size_t dc_job_fields(const char *env, size_t len, char *out, size_t cap)
{
	size_t i, k, pos = 0, vl;
	const char *v;

	for (i = 0; i < sizeof(schedulers) / sizeof(schedulers[0]); i++) {
		v = dc_env_find(env, len, schedulers[i][0], &vl);
		if (v != NULL && vl > 0) {
			pos = put_pair(out, cap, pos, "scheduler",
				       schedulers[i][1], strlen(schedulers[i][1]));
			break;
		}
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]) && pos != (size_t)-1; i++) {
		for (k = 0; fields[i].vars[k] != NULL; k++) {
			char dec[24];
			unsigned long long id;

			v = dc_env_find(env, len, fields[i].vars[k], &vl);
			if (v == NULL || vl == 0)
				continue;
			if (strcmp(fields[i].vars[k], "FLUX_JOB_ID") == 0 &&
			    f58_decode(v, vl, &id)) {
				snprintf(dec, sizeof(dec), "%llu", id);
				v = dec;
				vl = strlen(dec);
			}
			pos = put_pair(out, cap, pos, fields[i].key, v, vl);
			break;
		}
	}
	return pos == (size_t)-1 ? 0 : pos;
}
