/*
 * text.c - the text form of a stream (dc-aggregate --text).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "u64map.h"
#include "messages.h"
#include "quote.h"
#include "spec.h"
#include "text.h"

void text_header(FILE *f, const struct dc_stream_info *info)
{
	fputs("header host=", f);
	dc_put_word(f, info->host, strlen(info->host), 0);
	fputs(" run=", f);
	dc_put_word(f, info->run_id, strlen(info->run_id), 0);
	fprintf(f, " offset=%" PRId64 " start=%" PRIu64 "\n",
		info->clock_offset_ns, info->start_mono_ns);
}

static void malformed(FILE *f, uint16_t type, uint32_t len)
{
	fprintf(f, "frame type=%u length=%u malformed\n", type, len);
}

/* Print n payload strings as key=value; the one at index `cmdline` (or
 * -1) is a command line with NUL between arguments. */
static void print_strings(FILE *f, const unsigned char *data, uint32_t len,
			  size_t pos, const char *const *keys, int n, int cmdline)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *s;
		size_t l;

		pos = dc_get_str(data, len, pos, &s, &l);
		if (pos == 0)
			return;
		fprintf(f, " %s=", keys[i]);
		dc_put_word(f, s, l, i == cmdline);
	}
}

static void print_probe(FILE *f, const unsigned char *data, uint32_t len)
{
	static const char *const keys[] = { "layer", "name", "target" };
	struct dc_probe_rec rec;
	int i;

	if (len < sizeof(rec))
		return malformed(f, DC_FRAME_PROBE, len);
	memcpy(&rec, data, sizeof(rec));
	fprintf(f, "probe id=%u kind=%s", rec.id, dc_probe_kind_name(rec.kind));
	print_strings(f, data, len, sizeof(rec), keys, 3, -1);
	fputs(" args=", f);
	for (i = 0; i < rec.nargs && i < 8; i++)
		fprintf(f, "%s%s", i ? "," : "", dc_arg_kind_name(rec.arg_kinds[i]));
	fprintf(f, " ret=%s offset=%" PRIu64 "\n", dc_ret_kind_name(rec.ret_kind),
		rec.offset);
}

static void print_process(FILE *f, const unsigned char *data, uint32_t len)
{
	static const char *const keys[] = { "exe", "cmdline", "cwd", "job" };
	struct dc_process_rec rec;
	uint64_t taken;

	if (len < sizeof(rec))
		return malformed(f, DC_FRAME_PROCESS, len);
	memcpy(&rec, data, sizeof(rec));
	fprintf(f, "process pid=%u ppid=%u uid=%u gid=%u rank=%d flags=%u "
		"start=%" PRIu64, rec.pid, rec.ppid, rec.uid, rec.gid, rec.rank,
		rec.flags, rec.start_mono_ns);
	print_strings(f, data, len, sizeof(rec), keys, 4, 1);
	taken = dc_snapshot_taken(DC_FRAME_PROCESS, data, len);
	if (taken != 0)
		fprintf(f, " taken=%" PRIu64, taken);
	putc('\n', f);
}

static void print_string(FILE *f, struct u64map *strings,
			 const unsigned char *data, uint32_t len)
{
	uint32_t id;
	char *old;
	uint64_t *slot;

	if (len < 4)
		return malformed(f, DC_FRAME_STRING, len);
	memcpy(&id, data, 4);
	fprintf(f, "string id=%u value=", id);
	dc_put_word(f, (const char *)data + 4, len - 4, 0);
	putc('\n', f);
	slot = u64map_get(strings, id);
	old = slot ? (char *)(uintptr_t)*slot : NULL;
	free(old);
	{
		char *s = xmalloc(len - 4 + 1);

		memcpy(s, data + 4, len - 4);
		s[len - 4] = '\0';
		u64map_put(strings, id, (uint64_t)(uintptr_t)s);
	}
}

static void print_drops(FILE *f, const unsigned char *data, uint32_t len)
{
	struct dc_drops_rec rec;
	uint32_t i;

	if (len < sizeof(rec))
		return malformed(f, DC_FRAME_DROPS, len);
	memcpy(&rec, data, sizeof(rec));
	if (rec.kind == DC_DROPS_PER_CPU)
		fputs("drops kind=cpu", f);
	else if (rec.kind == DC_DROPS_PER_PROBE)
		fputs("drops kind=probe", f);
	else if (rec.kind == DC_DROPS_PER_PROCESS)
		fputs("drops kind=process", f);
	else if (rec.kind == DC_DROPS_UNATTRIBUTED)
		fputs("drops kind=unattributed", f);
	else
		fprintf(f, "drops kind=%u", rec.kind);
	fprintf(f, " total=%" PRIu64, rec.total);
	for (i = 0; i < rec.count; i++) {
		struct dc_drops_entry e;
		size_t at = sizeof(rec) + (size_t)i * sizeof(e);

		if (at + sizeof(e) > len)
			break;
		memcpy(&e, data + at, sizeof(e));
		fprintf(f, " %u=%" PRIu64, e.key, e.dropped);
	}
	putc('\n', f);
}

static void print_sysinfo(FILE *f, const unsigned char *data, uint32_t len)
{
	size_t pos = 0;

	fputs("sysinfo", f);
	while (pos < len) {
		const char *k, *v;
		size_t kl, vl;

		pos = dc_get_str(data, len, pos, &k, &kl);
		if (pos == 0)
			break;
		pos = dc_get_str(data, len, pos, &v, &vl);
		if (pos == 0)
			break;
		putc(' ', f);
		fwrite(k, 1, kl, f);
		putc('=', f);
		dc_put_word(f, v, vl, 0);
	}
	putc('\n', f);
}

static void print_file(FILE *f, const unsigned char *data, uint32_t len)
{
	static const char *const keys[] = { "path" };
	struct dc_file_rec rec;

	if (len < sizeof(rec))
		return malformed(f, DC_FRAME_FILE, len);
	memcpy(&rec, data, sizeof(rec));
	fprintf(f, "file size=%" PRIu64 " inode=%" PRIu64 " dev=%" PRIu64
		" mtime=%" PRId64 " mode=0%o", rec.size, rec.inode, rec.dev,
		rec.mtime_ns, rec.mode);
	print_strings(f, data, len, sizeof(rec), keys, 1, -1);
	putc('\n', f);
}

static void print_fds(FILE *f, const unsigned char *data, uint32_t len)
{
	struct dc_fds_rec rec;
	size_t pos = sizeof(rec);
	uint64_t taken;
	uint32_t i;

	if (len < sizeof(rec)) {
		malformed(f, DC_FRAME_FDS, len);
		return;
	}
	memcpy(&rec, data, sizeof(rec));
	fprintf(f, "fds pid=%u", rec.pid);
	taken = dc_snapshot_taken(DC_FRAME_FDS, data, len);
	if (taken != 0)
		fprintf(f, " taken=%" PRIu64, taken);
	for (i = 0; i < rec.count; i++) {
		const char *path;
		size_t l;
		int32_t fd;

		if (pos + 4 > len)
			break;
		memcpy(&fd, data + pos, 4);
		pos = dc_get_str(data, len, pos + 4, &path, &l);
		if (pos == 0)
			break;
		fprintf(f, " %d=", fd);
		dc_put_word(f, path, l, 0);
	}
	putc('\n', f);
}

/* One line per frame, the form dc-mkstream reads back: a pid= opens
 * each entry. */
static void print_counters(FILE *f, const unsigned char *data, uint32_t len)
{
	struct dc_counters_rec rec;
	uint32_t i;

	if (len < sizeof(rec))
		return malformed(f, DC_FRAME_COUNTERS, len);
	memcpy(&rec, data, sizeof(rec));
	if ((len - sizeof(rec)) / sizeof(struct dc_counter_entry) < rec.count)
		return malformed(f, DC_FRAME_COUNTERS, len);
	fprintf(f, "counters start=%" PRIu64 " interval=%" PRIu64,
		rec.start_mono_ns, rec.interval_ns);
	for (i = 0; i < rec.count; i++) {
		struct dc_counter_entry e;

		memcpy(&e, data + sizeof(rec) + (size_t)i * sizeof(e), sizeof(e));
		fprintf(f, " pid=%u probe=%u calls=%" PRIu64 " dur=%" PRIu64
			" bytes=%" PRIu64 " errors=%" PRIu64, e.pid, e.probe_id,
			e.calls, e.dur_ns, e.bytes, e.errors);
	}
	putc('\n', f);
}

static void print_end(FILE *f, const unsigned char *data, uint32_t len)
{
	struct dc_end_rec rec;

	if (len < sizeof(rec))
		return malformed(f, DC_FRAME_END, len);
	memcpy(&rec, data, sizeof(rec));
	fprintf(f, "end events=%" PRIu64 " dropped=%" PRIu64 " flags=%u ts=%"
		PRIu64 "\n", rec.events, rec.dropped, rec.flags, rec.end_mono_ns);
}

static const char *const event_words[] = {
	NULL, "call", "enter", "exit", "instant", "exec", "fork", "exitproc",
};

static void print_events(FILE *f, const struct u64map *strings,
			 const unsigned char *data, uint32_t len)
{
	uint32_t pos = 0;

	while (pos + DC_EVENT_HDR_SIZE <= len) {
		struct dc_event ev;
		const uint64_t *args;
		uint64_t *slot;
		int i;

		memcpy(&ev, data + pos, DC_EVENT_HDR_SIZE);
		if (ev.size < DC_EVENT_HDR_SIZE || ev.size > len - pos)
			return malformed(f, DC_FRAME_EVENTS, len);
		if (ev.type >= 1 && ev.type <= 7)
			fputs(event_words[ev.type], f);
		else
			fprintf(f, "event type=%u", ev.type);
		fprintf(f, " probe=%u pid=%u tid=%u ts=%" PRIu64 " dur=%" PRIu64
			" ret=%" PRId64 " depth=%u flags=%u seq=%" PRIu64
			" parent=%" PRIu64 " file=", ev.probe_id, ev.pid, ev.tid,
			(uint64_t)ev.ts, (uint64_t)ev.dur, (int64_t)ev.ret,
			ev.depth, ev.flags, (uint64_t)ev.seq,
			(uint64_t)ev.parent);
		slot = ev.file_id ? u64map_get(strings, ev.file_id) : NULL;
		if (slot != NULL) {
			const char *s = (const char *)(uintptr_t)*slot;

			dc_put_word(f, s, strlen(s), 0);
		} else if (ev.file_id != 0) {
			fprintf(f, "#%u", ev.file_id);
		} else {
			putc('-', f);
		}
		fputs(" args=", f);
		args = (const uint64_t *)(data + pos + DC_EVENT_HDR_SIZE);
		for (i = 0; i < ev.nargs; i++)
			fprintf(f, "%s%" PRId64, i ? "," : "", (int64_t)args[i]);
		if (ev.str_len > 0) {
			fputs(" str=", f);
			dc_put_word(f, (const char *)(data + pos + DC_EVENT_HDR_SIZE +
						    8u * ev.nargs),
				  ev.str_len, 0);
		}
		putc('\n', f);
		pos += ev.size;
	}
}

void text_frame(FILE *f, struct u64map *strings, uint16_t type,
		const unsigned char *data, uint32_t len)
{
	switch (type) {
	case DC_FRAME_EVENTS:
		print_events(f, strings, data, len);
		break;
	case DC_FRAME_STRING:
		print_string(f, strings, data, len);
		break;
	case DC_FRAME_PROCESS:
		print_process(f, data, len);
		break;
	case DC_FRAME_PROBE:
		print_probe(f, data, len);
		break;
	case DC_FRAME_DROPS:
		print_drops(f, data, len);
		break;
	case DC_FRAME_END:
		print_end(f, data, len);
		break;
	case DC_FRAME_SYSINFO:
		print_sysinfo(f, data, len);
		break;
	case DC_FRAME_FILE:
		print_file(f, data, len);
		break;
	case DC_FRAME_FDS:
		print_fds(f, data, len);
		break;
	case DC_FRAME_COUNTERS:
		print_counters(f, data, len);
		break;
	default:
		fprintf(f, "frame type=%u length=%u\n", type, len);
		break;
	}
}
