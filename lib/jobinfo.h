/*
 * jobinfo.h - who a process is in a batch job, from its environment.
 *
 * Schedulers and launchers say it in environment variables: SLURM, Flux,
 * PBS and LSF name the job; MPI launchers, SLURM and Flux the rank;
 * torchrun and Horovod use RANK / LOCAL_RANK / WORLD_SIZE.  The tables of
 * which variable means what are here, once, for dc-collect (the PROCESS
 * frame's job string, dc-stream(5)) and dc-run (the trace directory).
 */
#ifndef DC_JOBINFO_H
#define DC_JOBINFO_H

#include <stddef.h>

#define DC_JOB_ID_MAX 128

/* A job id usable as a file name and run id: 1 to 127 of [A-Za-z0-9._-],
 * not "." or "..". */
int dc_job_id_valid(const char *id);

/* The job id from this process's environment (SLURM_JOB_ID, FLUX_JOB_ID,
 * PBS_JOBID, LSB_JOBID, first set wins), characters outside the valid set
 * made '_'; "local-PID" when there is no job. */
void dc_job_id_from_env(char *buf, size_t cap);

/* The value of NAME in an environment block (NUL-separated NAME=VALUE,
 * as /proc/PID/environ holds it), or NULL; *vlen gets its length. */
const char *dc_env_find(const char *env, size_t len, const char *name,
			size_t *vlen);

/* The rank: the launchers' variables most specific first, then RANK. */
int dc_job_rank(const char *env, size_t len);

/* The job's identity as NUL-separated key=value pairs (keys: scheduler,
 * job_id, job_step, nodelist, nnodes, world_size, local_rank), only those
 * the environment has.  Returns the bytes written to out (no final NUL),
 * 0 when there are none or they do not fit. */
size_t dc_job_fields(const char *env, size_t len, char *out, size_t cap);

#endif /* DC_JOBINFO_H */
