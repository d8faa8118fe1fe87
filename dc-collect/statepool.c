/*
 * statepool.c - the call-state maps the collector gives the fast path's
 * processes (statepool.h), kept ready by a thread of their own.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "event.h"
#include "collect.h"
#include "messages.h"
#include "statepool.h"

/* A map put into an array of maps (or taken out) makes bpf(2) wait for
 * an RCU grace period: 13-26 ms here, which no handshake should wait and
 * no drain should stall for.  So a thread of the collector's keeps maps
 * ready, each already in client_states at its index with its descriptor
 * kept, and puts fresh maps over those processes have finished with (a
 * map once given is never given again: the process may still have it
 * mapped).  A batch update places every map it lacks for one grace
 * period: one at a time (kernels before 5.6, state_maps_place),
 * processes starting faster than ~50 a second find none ready.  (The
 * batch was off for a while, suspected of the test VM's crashes; those
 * came from qemu's multi-threaded TCG, not from it: t/kernels/run-vm.sh.)
 * A handshake with none ready gets none: that process's threads are
 * read through their TLS. */
#define STATE_READY 16

enum { IDX_FREE, IDX_TAKEN, IDX_DONE };

struct dc_states {
	int outer_fd;                    /* client_states */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running, stop, off;
	bool one_by_one;                 /* the kernel has no batch update
	                                    for arrays of maps (before 5.6) */
	int ready[STATE_READY];          /* indices with a fresh map */
	int ready_fd[STATE_READY];       /* ... and its descriptor */
	int nready;
	uint8_t idx[DC_MAX_CLIENT_MAPS]; /* IDX_*: ready or given, or given
	                                    back with its map still there */
};

/* n fresh call-state maps into fds[]: true, or false with the reason
 * said (the kernel's refusal is the one test of whether it can make
 * them, said once: from then on there are none). */
static bool state_maps_make(int *fds, int n)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_MMAPABLE);
	int i, j;

	for (i = 0; i < n; i++) {
		fds[i] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "dc_client_state",
					sizeof(__u32),
					sizeof(struct dc_client_state),
					DC_CLIENT_SLOTS + 1, &mo);
		if (fds[i] >= 0)
			continue;
		notice("fast path: no memory-mapped call-state maps here (%s): "
		       "system calls under the client's calls copy its state "
		       "out of the thread, which costs more", strerror(errno));
		for (j = 0; j < i; j++)
			close(fds[j]);
		return false;
	}
	return true;
}

/* The maps fds[] into client_states at keys[]: how many were placed
 * (the first ones), the failure said.  A batch the kernel refuses (no
 * batch operations on arrays of maps, as before 5.6) is tried once:
 * from then on one at a time, each refusal then a real one. */
static int state_maps_place(struct dc_states *p, const __u32 *keys,
			    const int *fds, int n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	__u32 count = (__u32)n;
	int i;

	if (!p->one_by_one) {
		if (bpf_map_update_batch(p->outer_fd, keys, fds, &count,
					 &bo) == 0)
			return n;
		p->one_by_one = true;
	}
	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(p->outer_fd, &keys[i], &fds[i],
					BPF_ANY) != 0)
			break;
	if (i < n)
		syswarn("fast path: cannot give the kernel programs a call-state map");
	return i;
}

/* An index to fill, marked taken (the lock held): a free one, or one
 * given back; -1: none. */
static int state_pool_slot(struct dc_states *p)
{
	int i, done = -1;

	for (i = 0; i < DC_MAX_CLIENT_MAPS; i++) {
		if (p->idx[i] == IDX_FREE)
			break;
		if (p->idx[i] == IDX_DONE && done < 0)
			done = i;
	}
	if (i == DC_MAX_CLIENT_MAPS)
		i = done;
	if (i >= 0)
		p->idx[i] = IDX_TAKEN;
	return i;
}

/* Every map the pool lacks, made and placed in one go (the lock held,
 * dropped while bpf(2) waits): false if the kernel refused to make them,
 * or there was nothing to do (no index free). */
static bool state_pool_fill(struct dc_states *p)
{
	__u32 keys[STATE_READY];
	int fds[STATE_READY], n = 0, placed, i;
	bool made;

	while (p->nready + n < STATE_READY && (n == 0 || !p->one_by_one) &&
	       (i = state_pool_slot(p)) >= 0)
		keys[n++] = (__u32)i;
	if (n == 0)
		return false;
	pthread_mutex_unlock(&p->lock);
	made = state_maps_make(fds, n);
	placed = made ? state_maps_place(p, keys, fds, n) : 0;
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < n; i++) {
		if (i < placed) {
			p->ready[p->nready] = (int)keys[i];
			p->ready_fd[p->nready++] = fds[i];
			continue;
		}
		p->idx[keys[i]] = IDX_FREE;
		if (made)
			close(fds[i]);
	}
	if (!made || placed == 0)
		p->off = true;
	return made;
}

static void *state_pool_main(void *arg)
{
	struct dc_states *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop && !p->off)
		if (p->nready == STATE_READY || !state_pool_fill(p))
			pthread_cond_wait(&p->wake, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* The pool, its maps ready before the command starts (its first
 * processes are the ones that matter most), refilled by its thread. */
struct dc_states *dc_states_start(int outer_fd)
{
	struct dc_states *p;

	if (outer_fd < 0)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->outer_fd = outer_fd;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_mutex_lock(&p->lock);
	state_pool_fill(p);
	pthread_mutex_unlock(&p->lock);
	if (!p->off)
		p->running = pthread_create(&p->thread, NULL, state_pool_main, p) == 0;
	return p;
}

void dc_states_stop(struct dc_states *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (p->running)
		pthread_join(p->thread, NULL);
	while (p->nready > 0)
		close(p->ready_fd[--p->nready]);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* A ready map for a process in its handshake: its descriptor, now the
 * caller's (the index in *idx), or -1: none ready. */
int dc_states_take(struct dc_states *p, int *idx)
{
	int fd = -1;

	if (p == NULL)
		return -1;
	pthread_mutex_lock(&p->lock);
	if (p->nready > 0) {
		p->nready--;
		*idx = p->ready[p->nready];
		fd = p->ready_fd[p->nready];
		pthread_cond_signal(&p->wake);
	}
	pthread_mutex_unlock(&p->lock);
	return fd;
}

/* Index i's map was given to a process that is done with it, or could
 * not use it: it gets a fresh one before it is given again. */
void dc_states_done(struct dc_states *p, int i)
{
	if (p == NULL || i < 0)
		return;
	pthread_mutex_lock(&p->lock);
	p->idx[i] = IDX_DONE;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
}
