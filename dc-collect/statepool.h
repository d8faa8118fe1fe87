/*
 * statepool.h - call-state maps for the fast path's processes.
 *
 * A fast-path process gets a small memory-mapped BPF array (its threads'
 * call state, which the system call programs read) at its handshake.
 * The map is put into the programs' array of maps (client_states) at an
 * index of its own before it is given; the pool keeps such maps ready.
 */
#ifndef DC_STATEPOOL_H
#define DC_STATEPOOL_H

struct dc_states;

/* The pool for client_states (outer_fd), its first maps ready when it
 * returns; NULL if outer_fd < 0 (no call-state maps). */
struct dc_states *dc_states_start(int outer_fd);

/* Stop its thread and free it (NULL: nothing). */
void dc_states_stop(struct dc_states *p);

/* A ready map for a process in its handshake: its descriptor, now the
 * caller's, and its index in *idx; -1: none ready (or p NULL). */
int dc_states_take(struct dc_states *p, int *idx);

/* Index idx's map was given to a process that is done with it, or could
 * not use it: it gets a fresh one before it is given again. */
void dc_states_done(struct dc_states *p, int idx);

#endif
