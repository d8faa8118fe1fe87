/*
 * usdt-demo - a program with USDT probes (provider "dcdemo"), for the
 * dc-explore and dc-gen tests.  It fires them once each and exits.
 * "start" and "stop" are plain; "gated" has a semaphore, the counter a
 * tracer raises to turn the probe site on.
 */
#include <stdio.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

/* sdt.h with semaphores wants one per probe, in ".probes". */
#define SEMAPHORE(name) \
	unsigned short dcdemo_##name##_semaphore \
		__attribute__((unused, section(".probes")))
SEMAPHORE(start);
SEMAPHORE(stop);
SEMAPHORE(gated);

int main(int argc, char **argv)
{
	long n = argc;

	DTRACE_PROBE2(dcdemo, start, n, argv[0]);
	printf("usdt-demo %ld\n", n);
	if (dcdemo_gated_semaphore)
		DTRACE_PROBE1(dcdemo, gated, n);
	DTRACE_PROBE1(dcdemo, stop, n);
	return 0;
}
