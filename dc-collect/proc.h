/*
 * proc.h - process and system facts read from /proc and /sys, encoded as
 * stream payloads (PROCESS and SYSINFO frames).
 */
#ifndef DC_PROC_H
#define DC_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Build a PROCESS payload for pid into buf; returns its length, or 0 if
 * the process is gone.  start_mono_ns goes into the record. */
size_t dc_proc_record(pid_t pid, unsigned long long start_mono_ns,
		      unsigned char *buf, size_t cap);

/* Build an FDS payload: pid's open file descriptors and their paths.
 * Returns its length, or 0 if the process is gone. */
size_t dc_fds_record(pid_t pid, unsigned char *buf, size_t cap);

/* Build a FILE payload for path (lstat); 0 if it cannot be read. */
size_t dc_file_record(const char *path, unsigned char *buf, size_t cap);

/* Build a SYSINFO payload (key, value string pairs): kernel, CPUs,
 * memory, block devices, mounts.  Returns its length. */
size_t dc_sysinfo_record(unsigned char *buf, size_t cap);

#endif /* DC_PROC_H */
