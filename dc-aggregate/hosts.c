/*
 * hosts.c - the host rewrite of merged inputs; see hosts.h.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "messages.h"

unsigned hosts_assign(struct host_view *views, const struct dc_stream_info *infos,
		      const int *header_ok, unsigned n)
{
	unsigned i, k, hosts = 0;

	for (i = 0; i < n; i++) {
		memset(&views[i], 0, sizeof(views[i]));
		snprintf(views[i].host, sizeof(views[i].host), "%s",
			 header_ok[i] ? infos[i].host : "");
		views[i].clock_offset_ns = header_ok[i] ? infos[i].clock_offset_ns : 0;
		if (!header_ok[i])
			continue;
		for (k = 0; k < i; k++)
			if (header_ok[k] && strcmp(views[k].host, views[i].host) == 0)
				break;
		views[i].index = k < i ? views[k].index : hosts++;
	}
	for (i = 0; i < n; i++)
		views[i].tag = hosts > 1 && header_ok[i];
	return hosts;
}

static unsigned char *room(struct host_view *v, uint32_t len)
{
	if (len > v->cap) {
		v->cap = len;
		v->buf = xrealloc(v->buf, len);
	}
	return v->buf;
}

static uint32_t moved(const struct host_view *v, uint32_t id)
{
	return id == 0 ? 0 : id + ((uint32_t)v->index << DC_HOST_PID_SHIFT);
}

static void move_u32(const struct host_view *v, unsigned char *p)
{
	uint32_t id;

	memcpy(&id, p, 4);
	id = moved(v, id);
	memcpy(p, &id, 4);
}

static void rewrite_events(struct host_view *v, unsigned char *d, uint32_t len)
{
	uint32_t pos = 0;

	while (pos + DC_EVENT_HDR_SIZE <= len) {
		struct dc_event *ev = (struct dc_event *)(d + pos);

		if (ev->size < DC_EVENT_HDR_SIZE || pos + ev->size > len)
			return; /* dc-aggregate reports the damage */
		ev->pid = moved(v, ev->pid);
		ev->tid = moved(v, ev->tid);
		if (ev->type == DC_EV_FORK && ev->nargs >= 1 &&
		    DC_EVENT_HDR_SIZE + 8u * ev->nargs <= ev->size)
			DC_EVENT_ARGS(ev)[0] = moved(v, (uint32_t)DC_EVENT_ARGS(ev)[0]);
		pos += ev->size;
	}
}

/* Remember what the host's SYSINFO says about its clock. */
static void read_sysinfo(struct host_view *v, const struct dc_frame *f)
{
	size_t pos = 0, kl, vl;
	const char *k, *val;

	while (pos < f->len) {
		if ((pos = dc_get_str(f->data, f->len, pos, &k, &kl)) == 0 ||
		    (pos = dc_get_str(f->data, f->len, pos, &val, &vl)) == 0)
			return;
		if (kl == 9 && memcmp(k, "clock.ntp", 9) == 0)
			snprintf(v->ntp, sizeof(v->ntp), "%.*s", (int)vl, val);
		else if (kl == 17 && memcmp(k, "clock.esterror_us", 17) == 0)
			snprintf(v->esterror, sizeof(v->esterror), "%.*s", (int)vl, val);
		else if (kl == 17 && memcmp(k, "clock.maxerror_us", 17) == 0)
			snprintf(v->maxerror, sizeof(v->maxerror), "%.*s", (int)vl, val);
	}
}

/* PROCESS: move pid and ppid, append the host pairs to the job string
 * (adding the string to a three-string frame of an older collector). */
static uint32_t rewrite_process(struct host_view *v, const struct dc_frame *f)
{
	struct dc_process_rec rec;
	const char *s[4];
	size_t l[4], pos = sizeof(rec), end;
	char pairs[512];
	int k, n, plen;
	unsigned char *d;
	char *job;
	size_t jl;

	memcpy(&rec, f->data, sizeof(rec));
	rec.pid = moved(v, rec.pid);
	rec.ppid = moved(v, rec.ppid);
	for (k = 0, n = 0; k < 4 && pos < f->len; k++, n++)
		if ((pos = dc_get_str(f->data, f->len, pos, &s[k], &l[k])) == 0)
			return 0;
	if (n < 3)
		return 0;
	end = pos;
	plen = snprintf(pairs, sizeof(pairs),
			"host=%s%chost_index=%u%cclock_offset_ns=%lld",
			v->host, 0, v->index, 0, (long long)v->clock_offset_ns);
	if (v->ntp[0])
		plen += snprintf(pairs + plen, sizeof(pairs) - plen,
				 "%cclock_ntp=%s%cclock_esterror_us=%s%cclock_maxerror_us=%s",
				 0, v->ntp, 0, v->esterror, 0, v->maxerror);
	if (v->synced != NULL)
		plen += snprintf(pairs + plen, sizeof(pairs) - plen,
				 "%cclock_sync=%s%cclock_correction_ns=%lld",
				 0, v->synced, 0, (long long)v->correction_ns);
	jl = (n == 4 ? l[3] + 1 : 0) + (size_t)plen;
	job = xmalloc(jl);
	if (n == 4 && l[3] > 0) {
		memcpy(job, s[3], l[3]);
		job[l[3]] = '\0';
		memcpy(job + l[3] + 1, pairs, (size_t)plen);
	} else {
		jl = (size_t)plen;
		memcpy(job, pairs, jl);
	}
	/* The three strings as they were, the job string, what followed. */
	pos = sizeof(rec);
	for (k = 0; k < 3; k++)
		pos = dc_get_str(f->data, f->len, pos, &s[k], &l[k]);
	d = room(v, (uint32_t)(f->len + jl + 16));
	memcpy(d, &rec, sizeof(rec));
	memcpy(d + sizeof(rec), f->data + sizeof(rec), pos - sizeof(rec));
	pos = dc_put_str(d, v->cap, pos, job, jl);
	free(job);
	if (pos == 0)
		return 0;
	if (end < f->len) {
		memcpy(d + pos, f->data + end, f->len - end);
		pos += f->len - end;
	}
	return (uint32_t)pos;
}

const struct dc_frame *hosts_rewrite(struct host_view *v, const struct dc_frame *f,
				     struct dc_frame *out)
{
	unsigned char *d;
	uint32_t i, len = f->len;

	if (f->type == DC_FRAME_SYSINFO)
		read_sysinfo(v, f);
	if (v->index == 0 && !(v->tag && f->type == DC_FRAME_PROCESS))
		return f;
	switch (f->type) {
	case DC_FRAME_EVENTS:
		d = room(v, f->len);
		memcpy(d, f->data, f->len);
		rewrite_events(v, d, f->len);
		break;
	case DC_FRAME_PROCESS:
		if (f->len < sizeof(struct dc_process_rec) ||
		    (len = rewrite_process(v, f)) == 0)
			return f;
		d = v->buf;
		break;
	case DC_FRAME_FDS:
		if (f->len < sizeof(struct dc_fds_rec))
			return f;
		d = room(v, f->len);
		memcpy(d, f->data, f->len);
		move_u32(v, d + offsetof(struct dc_fds_rec, pid));
		break;
	case DC_FRAME_COUNTERS: {
		struct dc_counters_rec rec;

		if (f->len < sizeof(rec))
			return f;
		d = room(v, f->len);
		memcpy(d, f->data, f->len);
		memcpy(&rec, d, sizeof(rec));
		for (i = 0; i < rec.count &&
		     sizeof(rec) + (size_t)(i + 1) * sizeof(struct dc_counter_entry) <= f->len; i++)
			move_u32(v, d + sizeof(rec) + (size_t)i *
				 sizeof(struct dc_counter_entry) +
				 offsetof(struct dc_counter_entry, pid));
		break;
	}
	default:
		return f;
	}
	*out = *f;
	out->data = d;
	out->len = len;
	return out;
}

void hosts_free(struct host_view *v)
{
	free(v->buf);
	v->buf = NULL;
	v->cap = 0;
}

/* ---- clocks from an MPI collective ---- */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The end of the first completed call to name in a stream file, on the
 * stream's monotonic clock; 0 if there is none. */
static uint64_t first_call_end(const char *path, const char *name)
{
	struct dc_stream_info info;
	struct dc_reader *r;
	struct dc_frame f;
	struct stat st;
	uint64_t found = 0;
	uint32_t ids[64];
	unsigned nids = 0, k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (r = dc_reader_open(fd, path)) == NULL) {
		close(fd);
		return 0;
	}
	if (dc_reader_header(r, &info) != DC_READ_FRAME)
		goto out;
	while (!found && dc_reader_next(r, &f) == DC_READ_FRAME) {
		if (f.type == DC_FRAME_PROBE && f.len >= sizeof(struct dc_probe_rec)) {
			struct dc_probe_rec rec;
			const char *layer, *fn;
			size_t ll, fl, pos;

			memcpy(&rec, f.data, sizeof(rec));
			pos = dc_get_str(f.data, f.len, sizeof(rec), &layer, &ll);
			if (pos && dc_get_str(f.data, f.len, pos, &fn, &fl) &&
			    fl == strlen(name) && memcmp(fn, name, fl) == 0 &&
			    nids < 64)
				ids[nids++] = rec.id;
		} else if (f.type == DC_FRAME_EVENTS && nids > 0) {
			uint32_t pos = 0;

			while (!found && pos + DC_EVENT_HDR_SIZE <= f.len) {
				const struct dc_event *ev = (const void *)(f.data + pos);

				if (ev->size < DC_EVENT_HDR_SIZE)
					break;
				for (k = 0; k < nids; k++)
					if (ev->type == DC_EV_CALL && ev->probe_id == ids[k])
						found = ev->ts + ev->dur;
				pos += ev->size;
			}
		}
	}
out:
	dc_reader_close(r);
	close(fd);
	return found;
}

unsigned hosts_sync_mpi(struct host_view *views, const char *const *paths,
			const int64_t *delta, int64_t *correction, unsigned n)
{
	static const char *const collectives[] = { "MPI_Init", "MPI_Init_thread",
						   "MPI_Barrier", NULL };
	uint64_t *end = xcalloc(n, sizeof(*end));
	unsigned i, c, corrected = 0;
	int64_t ref = 0;
	int have_ref = 0;

	for (i = 0; i < n; i++)
		correction[i] = 0;
	for (c = 0; collectives[c] != NULL && !corrected; c++) {
		have_ref = 0;
		for (i = 0; i < n; i++) {
			end[i] = views[i].tag ? first_call_end(paths[i], collectives[c]) : 0;
			if (end[i] && views[i].index == 0 && !have_ref) {
				ref = (int64_t)end[i] + delta[i];
				have_ref = 1;
			}
		}
		if (!have_ref)
			continue;
		/* Every rank leaves the collective at about the same moment:
		 * move each other host so its first exit meets the first
		 * host's.  Inputs of one host get one correction. */
		for (i = 0; i < n; i++) {
			unsigned k;

			if (!end[i] || views[i].index == 0)
				continue;
			for (k = 0; k < i; k++)
				if (views[k].index == views[i].index && views[k].synced)
					break;
			correction[i] = k < i ? correction[k] :
				ref - ((int64_t)end[i] + delta[i]);
			views[i].synced = collectives[c];
			views[i].correction_ns = correction[i];
			corrected++;
		}
	}
	free(end);
	return corrected;
}
