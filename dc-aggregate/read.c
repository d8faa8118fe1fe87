/*
 * read.c - dc-aggregate's inputs, read in turn (files, merged in time
 * order) or one thread each (live inputs), frame by frame into
 * handle_frame (aggregate.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "messages.h"

#define QUEUE_BYTES (32u << 20)   /* frames buffered from live inputs */

/* ---- one thread per live input ---- */

struct item {
	struct item *next;
	unsigned input;
	int done;                 /* the input ended; status in frame.type */
	struct dc_frame frame;
	uint64_t data[];
};

struct reader_arg {
	struct aggregator *ag;
	unsigned idx;
};

static void enqueue(struct aggregator *ag, struct item *it)
{
	pthread_mutex_lock(&ag->queue_lock);
	while (ag->queue_head != NULL && ag->queue_bytes > QUEUE_BYTES)
		pthread_cond_wait(&ag->queue_drained, &ag->queue_lock);
	if (ag->queue_tail)
		ag->queue_tail->next = it;
	else
		ag->queue_head = it;
	ag->queue_tail = it;
	ag->queue_bytes += it->frame.len;
	pthread_cond_signal(&ag->queue_filled);
	pthread_mutex_unlock(&ag->queue_lock);
}

static void *reader_thread(void *arg)
{
	struct aggregator *ag = ((struct reader_arg *)arg)->ag;
	unsigned idx = ((struct reader_arg *)arg)->idx;
	struct input *in = &ag->inputs[idx];
	struct dc_frame f;
	struct item *it;
	int st;

	while ((st = dc_reader_next(in->r, &f)) == DC_READ_FRAME) {
		it = xmalloc(sizeof(*it) + f.len);
		it->next = NULL;
		it->input = idx;
		it->done = 0;
		it->frame = f;
		memcpy(it->data, f.data, f.len);
		it->frame.data = (const unsigned char *)it->data;
		enqueue(ag, it);
	}
	in->status = st;
	snprintf(in->err, sizeof(in->err), "%s", dc_reader_error(in->r));
	it = xcalloc(1, sizeof(*it));
	it->input = idx;
	it->done = 1;
	enqueue(ag, it);
	return NULL;
}

void read_threaded(struct aggregator *ag)
{
	pthread_t *tids = xcalloc(ag->n_inputs, sizeof(pthread_t));
	struct reader_arg *args = xcalloc(ag->n_inputs, sizeof(*args));
	unsigned i, running = 0;

	for (i = 0; i < ag->n_inputs; i++) {
		if (!ag->inputs[i].header_ok)
			continue;
		args[i].ag = ag;
		args[i].idx = i;
		errno = pthread_create(&tids[i], NULL, reader_thread, &args[i]);
		if (errno != 0)
			sysdie("cannot start a reader thread");
		running++;
	}
	while (running > 0) {
		struct item *it;

		pthread_mutex_lock(&ag->queue_lock);
		if (ag->queue_head == NULL) {
			/* Input is idle: hand what we have downstream. */
			pthread_mutex_unlock(&ag->queue_lock);
			out_flush(ag);
			pthread_mutex_lock(&ag->queue_lock);
			while (ag->queue_head == NULL)
				pthread_cond_wait(&ag->queue_filled, &ag->queue_lock);
		}
		it = ag->queue_head;
		ag->queue_head = it->next;
		if (ag->queue_head == NULL)
			ag->queue_tail = NULL;
		ag->queue_bytes -= it->frame.len;
		pthread_cond_signal(&ag->queue_drained);
		pthread_mutex_unlock(&ag->queue_lock);
		if (it->done)
			running--;
		else
			handle_frame(ag, it->input, &it->frame);
		free(it);
	}
	for (i = 0; i < ag->n_inputs; i++)
		if (ag->inputs[i].header_ok)
			pthread_join(tids[i], NULL);
	free(tids);
	free(args);
}

/* ---- files, in turn ---- */

/* The output-clock time of the first event of an EVENTS frame, for the
 * merge below; other frames sort first, so an input's frames never
 * change order. */
static uint64_t frame_key(struct aggregator *ag,
			  unsigned i, const struct dc_frame *f)
{
	const struct dc_event *ev = (const void *)f->data;

	if (f->type != DC_FRAME_EVENTS || f->len < DC_EVENT_HDR_SIZE)
		return 0;
	return ev->ts + (uint64_t)ag->inputs[i].delta;
}

static void next_frame(struct aggregator *ag,
		       unsigned i, struct dc_frame *head, int *live)
{
	struct input *in = &ag->inputs[i];
	int st = dc_reader_next(in->r, head);

	if (st == DC_READ_FRAME)
		return;
	*live = 0;
	in->status = st;
	snprintf(in->err, sizeof(in->err), "%s", dc_reader_error(in->r));
}

/* Files: each input's frames in their order, the inputs interleaved by
 * the time of their next events, so several hosts' streams come out in
 * time order (to the EVENTS frame: a collector's frame holds the events
 * of one short drain).  A frame's data stays valid until its own reader
 * reads again. */
void read_in_turn(struct aggregator *ag)
{
	struct dc_frame *head = xcalloc(ag->n_inputs, sizeof(*head));
	int *live = xcalloc(ag->n_inputs, sizeof(*live));
	unsigned i, best;

	for (i = 0; i < ag->n_inputs; i++) {
		live[i] = ag->inputs[i].header_ok;
		if (live[i])
			next_frame(ag, i, &head[i], &live[i]);
	}
	for (;;) {
		best = ag->n_inputs;
		for (i = 0; i < ag->n_inputs; i++)
			if (live[i] && (best == ag->n_inputs ||
					frame_key(ag, i, &head[i]) < frame_key(ag, best, &head[best])))
				best = i;
		if (best == ag->n_inputs)
			break;
		handle_frame(ag, best, &head[best]);
		/* Frames arrive in batches from a live collector: pass each
		 * one on at once. */
		out_flush(ag);
		next_frame(ag, best, &head[best], &live[best]);
	}
	free(head);
	free(live);
}

