/*
 * hold.c - events of a process that wait for a /proc snapshot still to
 * come: its working directory, or its descriptors after an exec
 * (aggregate.h).
 *
 * A process the collector began to follow while it ran (a client that
 * registered, --pid) has no working directory in the stream until its
 * PROCESS frame's is due, and /proc is read some time after the process
 * went on: a relative path it opened in between would stay unresolved.
 * The working directory can change only by chdir and fchdir, which the
 * stream shows when its probes include both (else nothing waits), so
 * what /proc read is also what the process had before,
 * back to its last chdir or fchdir.  Such a process's events wait here,
 * in their order, from its first event that needs the directory until
 * the snapshot is due (or its input ends): then the directory /proc
 * showed holds from the last chdir or fchdir among them on, or for all
 * of them if they have none.  Its exit lets them go with the directory
 * of a snapshot read as it exited (a collector behind a short-lived
 * process), if one is to come.  A fork or exec of the process, or
 * HOLD_MAX bytes of waiting events, lets them go with the directory
 * unknown, as before.
 *
 * A process that execed, with the snapshot of descriptors the collector
 * read after the exec still to come, has all its events wait the same
 * way, from the exec until that snapshot is due: then the descriptors
 * none of them opened, duplicated onto or closed are named by it from
 * the exec on (fdtable.h says why), and they go.  Anything else that
 * lets them go (a fork, an exec, the exit, HOLD_MAX, the input's end)
 * applies the pending snapshot so first, with what the events so far
 * changed.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "messages.h"

#define HOLD_MAX (1u << 20)       /* bytes of events one process holds */

/* Does ev name a relative path to be resolved against the working
 * directory (no dirfd, or AT_FDCWD)? */
static int dirfd_is_cwd(const struct dc_event *ev, int dirfd_arg)
{
	return event_dirfd(ev, dirfd_arg) == AT_FDCWD;
}

static int needs_cwd(const struct probe *pr, const struct dc_event *ev)
{
	const char *str = DC_EVENT_STR(ev), *path;
	size_t len1;

	if (pr->path_arg < 0 || ev->str_len == 0)
		return 0;
	path = event_path_str(pr, ev, &len1);
	if (path != NULL && len1 > 0 && path[0] != '/' &&
	    dirfd_is_cwd(ev, pr->dirfd_arg))
		return 1;
	len1 = strnlen(str, ev->str_len);
	return pr->path2_arg >= 0 && len1 + 1 < ev->str_len &&
	       str[len1 + 1] != '/' && dirfd_is_cwd(ev, pr->dirfd2_arg);
}

static int is_chdir(const struct probe *pr, const struct dc_event *ev)
{
	return pr != NULL && ev->type == DC_EV_CALL &&
	       (pr->op == OP_CHDIR || pr->op == OP_FCHDIR) && ev->ret == 0 &&
	       !(ev->flags & DC_EVF_FAILED);
}

static void hold_append(struct proc *p, const struct dc_event *ev)
{
	if (p->held_len + ev->size > p->held_cap) {
		p->held_cap = p->held_cap ? 2 * p->held_cap : 4096;
		while (p->held_cap < p->held_len + ev->size)
			p->held_cap *= 2;
		p->held = xrealloc(p->held, p->held_cap);
	}
	memcpy(p->held + p->held_len, ev, ev->size);
	p->held_len += ev->size;
}

/* The offset of the last successful chdir or fchdir among held events,
 * or held_len if none. */
static size_t last_chdir(struct aggregator *ag, const unsigned char *held,
			 size_t len)
{
	size_t pos, last = len;

	for (pos = 0; pos < len; pos += ((const struct dc_event *)(held + pos))->size) {
		const struct dc_event *ev = (const void *)(held + pos);

		if (is_chdir(probe_of(ag, ev->probe_id), ev))
			last = pos;
	}
	return last;
}

static void set_cwd(struct proc *p, const char *cwd, int from_stream)
{
	free(p->cwd);
	p->cwd = xstrdup(cwd);
	p->cwd_from_stream = from_stream;
}

/* Into changed, the fds p's held calls opened, duplicated onto or
 * closed; of a range closed, those in p's table or in snapshot s. */
static void held_changes(struct aggregator *ag, const struct proc *p,
			 const struct snapshot *s, struct u64map *changed)
{
	const struct u64map *maps[2] = { &p->fds, &s->fds };
	size_t pos, i, m;

	for (pos = 0; pos < p->held_len;
	     pos += ((const struct dc_event *)(p->held + pos))->size) {
		const struct dc_event *ev = (const void *)(p->held + pos);
		const struct probe *pr = probe_of(ag, ev->probe_id);
		int64_t fds[2], range[2];
		int n;

		if (ev->type != DC_EV_CALL || pr == NULL)
			continue;
		n = op_changed_fds(pr, ev, fds, range);
		while (n-- > 0)
			u64map_put(changed, (uint64_t)fds[n], 1);
		for (m = 0; range[0] <= range[1] && m < 2; m++)
			for (i = 0; i < maps[m]->cap; i++)
				if (maps[m]->used[i] &&
				    (int64_t)maps[m]->keys[i] >= range[0] &&
				    (int64_t)maps[m]->keys[i] <= range[1])
					u64map_put(changed, maps[m]->keys[i], 1);
	}
}

/* p execed and s is the snapshot read after: it names, from the exec
 * on, the descriptors p's held events leave alone (s NULL: none came). */
void hold_exec_settle(struct aggregator *ag, struct proc *p,
		      const struct snapshot *s)
{
	struct u64map changed = { 0 };

	p->exec_waits = 0;
	if (s == NULL)
		return;
	held_changes(ag, p, s, &changed);
	fdt_apply(&p->fds, &s->fds, &changed);
	u64map_free(&changed);
}

void hold_release(struct aggregator *ag, unsigned idx, uint32_t pid,
		  const char *cwd)
{
	struct proc *p = get_proc(ag, idx, pid, 0);
	unsigned char *held;
	struct dc_event *ev;
	size_t len, pos, last;

	if (p == NULL)
		return;
	/* Waiting for descriptors, not a directory: the process has one
	 * (an exec keeps it). */
	if (p->exec_waits) {
		hold_exec_settle(ag, p, snap_fds_from(ag->inputs[idx].snapshots,
						      pid, p->exec_at));
		cwd = NULL;
	}
	if (p->held_len == 0)
		return;
	held = p->held;
	len = p->held_len;
	p->held = NULL;
	p->held_len = p->held_cap = 0;
	ag->inputs[idx].held_procs--;
	last = cwd != NULL ? last_chdir(ag, held, len) : len;
	if (cwd != NULL && last == len)
		set_cwd(p, cwd, 0);
	ev = xmalloc(REC_MAX);
	for (pos = 0; pos < len; pos += ((struct dc_event *)(held + pos))->size) {
		struct probe *pr;

		memcpy(ev, held + pos, ((struct dc_event *)(held + pos))->size);
		pr = probe_of(ag, ev->probe_id);
		track_files(ag, idx, pr, ev, ev->type == DC_EV_CALL);
		if (pos == last && p->cwd == NULL) {
			/* Where it went, which the events could not name, is
			 * the directory /proc showed (one they named stays as
			 * the program named it). */
			ev->file_id = intern(ag, cwd, strlen(cwd), 0);
			ag->cwd_moved = p;
			set_cwd(p, cwd, 1);
		}
		out_event(ag, ev);
		if (ag->cwd_moved != NULL)
			describe_moved(ag, ev);
	}
	free(ev);
	free(held);
}

int hold_event(struct aggregator *ag, unsigned idx, const struct probe *pr,
	       const struct dc_event *ev)
{
	struct input *in = &ag->inputs[idx];
	struct proc *p;

	if (ag->opt_profile != 0 ||
	    (in->held_procs == 0 && in->snapshots == NULL))
		return 0;
	p = get_proc(ag, idx, ev->pid, 0);
	if (p != NULL && (p->held_len > 0 || p->exec_waits)) {
		if ((ev->type == DC_EV_CALL || ev->type == DC_EV_INSTANT) &&
		    pr != NULL && p->held_len + ev->size <= HOLD_MAX) {
			if (p->held_len == 0)
				in->held_procs++;
			hold_append(p, ev);
			return 1;
		}
		/* Its exit: a snapshot still to come was read as it exited
		 * or later (one read before is due already), and shows the
		 * directory it ended in, if any.  A fork copies the
		 * directory, an exec ends the program, it waited too long, or
		 * a record of no known probe (its id is the input's, not an
		 * output probe's) would be taken for another's: unknown it
		 * is. */
		hold_release(ag, idx, ev->pid, ev->type == DC_EV_EXIT_PROC ?
			     snap_cwd(in->snapshots, ev->pid) : NULL);
		return 0;
	}
	/* Only if the stream would show every change of directory. */
	if (in->cwd_probes != 3 ||
	    (ev->type != DC_EV_CALL && ev->type != DC_EV_INSTANT) ||
	    pr == NULL || (p != NULL && p->cwd != NULL) || !needs_cwd(pr, ev) ||
	    snap_cwd(in->snapshots, ev->pid) == NULL)
		return 0;
	p = get_proc(ag, idx, ev->pid, 1);
	hold_append(p, ev);
	in->held_procs++;
	return 1;
}

void hold_release_input(struct aggregator *ag, unsigned idx)
{
	struct input *in = &ag->inputs[idx];
	uint64_t *pids;
	size_t i, n = 0;

	if (in->held_procs == 0)
		return;
	/* Not while visiting the map: collect the pids first. */
	pids = xmalloc(ag->procs.count * sizeof(*pids));
	for (i = 0; i < ag->procs.cap; i++) {
		struct proc *p = PTR(ag->procs.vals[i]);

		if (ag->procs.used[i] && (ag->procs.keys[i] >> 32) == idx &&
		    p->held_len > 0)
			pids[n++] = (uint32_t)ag->procs.keys[i];
	}
	for (i = 0; i < n; i++)
		hold_release(ag, idx, (uint32_t)pids[i],
			     snap_cwd(in->snapshots, (uint32_t)pids[i]));
	free(pids);
}
