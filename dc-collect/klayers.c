/*
 * klayers.c - the table of kernel tracepoints with a decoding program.
 *
 * Each entry names the tracepoint, the program in collect.bpf.c that
 * decodes it, and the arguments that program records, which replace the
 * spec's plan for it so readers name them right ("dev", "sector",
 * "inode"...).  Tracepoints not listed here are still traced, by the
 * generic program, as bare instants.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "event.h"
#include "collect.h"
#include "collect.skel.h"
#include "klayers.h"
#include "tracefs.h"

static const struct dc_klayer klayers[] = {
	/* The three block tracepoints work as one: any of them in a spec
	 * gives one event per request (see collect.bpf.c). */
	{ "block:block_bio_queue", DC_TP_BIO_QUEUE, 4,
	  { DC_ARG_DEV, DC_ARG_SECTOR, DC_ARG_SIZE, DC_ARG_OP }, DC_RET_STATUS,
	  true },
	{ "block:block_rq_issue", DC_TP_BLOCK_ISSUE, 4,
	  { DC_ARG_DEV, DC_ARG_SECTOR, DC_ARG_SIZE, DC_ARG_OP }, DC_RET_STATUS,
	  true },
	{ "block:block_rq_complete", DC_TP_BLOCK_COMPLETE, 4,
	  { DC_ARG_DEV, DC_ARG_SECTOR, DC_ARG_SIZE, DC_ARG_OP }, DC_RET_STATUS,
	  true },
	/* Followed so split and merged requests are attributed; attached
	 * with the group where the kernel has them. */
	{ "block:block_split", DC_TP_BLOCK_SPLIT, 4,
	  { DC_ARG_DEV, DC_ARG_SECTOR, DC_ARG_SIZE, DC_ARG_OP }, DC_RET_STATUS,
	  true },
	{ "block:block_bio_backmerge", DC_TP_BIO_BACKMERGE, 4,
	  { DC_ARG_DEV, DC_ARG_SECTOR, DC_ARG_SIZE, DC_ARG_OP }, DC_RET_STATUS,
	  true },
	{ "block:block_bio_frontmerge", DC_TP_BIO_FRONTMERGE, 4,
	  { DC_ARG_DEV, DC_ARG_SECTOR, DC_ARG_SIZE, DC_ARG_OP }, DC_RET_STATUS,
	  true },
	{ "filemap:mm_filemap_add_to_page_cache", DC_TP_PC_ADD, 4,
	  { DC_ARG_DEV, DC_ARG_INODE, DC_ARG_INDEX, DC_ARG_PAGES }, DC_RET_NONE,
	  false },
	{ "filemap:mm_filemap_delete_from_page_cache", DC_TP_PC_DELETE, 4,
	  { DC_ARG_DEV, DC_ARG_INODE, DC_ARG_INDEX, DC_ARG_PAGES }, DC_RET_NONE,
	  false },
	{ "filemap:mm_filemap_fault", DC_TP_FAULT, 3,
	  { DC_ARG_DEV, DC_ARG_INODE, DC_ARG_INDEX }, DC_RET_NONE, false },
	{ "writeback:writeback_dirty_folio", DC_TP_DIRTY, 2,
	  { DC_ARG_INODE, DC_ARG_INDEX }, DC_RET_NONE, false },
	{ "readahead:page_cache_sync_ra", DC_TP_RA_SYNC, 4,
	  { DC_ARG_DEV, DC_ARG_INODE, DC_ARG_INDEX, DC_ARG_PAGES }, DC_RET_NONE,
	  false },
	{ "readahead:page_cache_async_ra", DC_TP_RA_ASYNC, 4,
	  { DC_ARG_DEV, DC_ARG_INODE, DC_ARG_INDEX, DC_ARG_PAGES }, DC_RET_NONE,
	  false },
	{ "sock:sock_send_length", DC_TP_SOCK_SEND, 3,
	  { DC_ARG_FAMILY, DC_ARG_PROTOCOL, DC_ARG_FLAGS }, DC_RET_SIZE, false },
	{ "sock:sock_recv_length", DC_TP_SOCK_RECV, 3,
	  { DC_ARG_FAMILY, DC_ARG_PROTOCOL, DC_ARG_FLAGS }, DC_RET_SIZE, false },
	{ "sock:inet_sock_set_state", DC_TP_SOCK_STATE, 6,
	  { DC_ARG_FAMILY, DC_ARG_PROTOCOL, DC_ARG_OLDSTATE, DC_ARG_NEWSTATE,
	    DC_ARG_SPORT, DC_ARG_DPORT }, DC_RET_NONE, false },
	{ "io_uring:io_uring_submit_req", DC_TP_URING_SUBMIT, 2,
	  { DC_ARG_OPCODE, DC_ARG_INT }, DC_RET_NONE, false },
	/* The request's user_data and opcode (-1: not known), its result. */
	{ "io_uring:io_uring_complete", DC_TP_URING_COMPLETE, 2,
	  { DC_ARG_INT, DC_ARG_OPCODE }, DC_RET_SIZE, false },
	{ "skb:kfree_skb", DC_TP_SKB_DROP, 2,
	  { DC_ARG_PROTOCOL, DC_ARG_REASON }, DC_RET_NONE, false },
};

#define NKLAYERS (sizeof(klayers) / sizeof(klayers[0]))

const struct dc_klayer *dc_klayer_find(const char *name)
{
	size_t i;

	for (i = 0; i < NKLAYERS; i++)
		if (strcmp(klayers[i].name, name) == 0)
			return &klayers[i];
	return NULL;
}

const struct dc_klayer *dc_klayer_by_tp(int tp)
{
	size_t i;

	for (i = 0; i < NKLAYERS; i++)
		if (klayers[i].tp == tp)
			return &klayers[i];
	return NULL;
}

/* The tp_btf program of tp, NULL for those with a classic one only.
 * They are declared not to load ("?"): dc_klayers_aim() says which. */
static struct bpf_program *klayer_btf_prog(struct collect_bpf *skel, int tp)
{
	switch (tp) {
	case DC_TP_BIO_QUEUE: return skel->progs.dc_bio_queue_btf;
	case DC_TP_BLOCK_ISSUE: return skel->progs.dc_block_issue_btf;
	case DC_TP_BLOCK_COMPLETE: return skel->progs.dc_block_complete_btf;
	case DC_TP_BLOCK_SPLIT: return skel->progs.dc_block_split_btf;
	case DC_TP_BIO_BACKMERGE: return skel->progs.dc_bio_backmerge_btf;
	case DC_TP_BIO_FRONTMERGE: return skel->progs.dc_bio_frontmerge_btf;
	case DC_TP_PC_ADD: return skel->progs.dc_pc_add_btf;
	case DC_TP_PC_DELETE: return skel->progs.dc_pc_delete_btf;
	case DC_TP_DIRTY: return skel->progs.dc_dirty_btf;
	case DC_TP_FAULT: return skel->progs.dc_fault_btf;
	case DC_TP_RA_SYNC: return skel->progs.dc_ra_sync_btf;
	case DC_TP_RA_ASYNC: return skel->progs.dc_ra_async_btf;
	}
	return NULL;
}

static struct bpf_program *klayer_tp_prog(struct collect_bpf *skel, int tp)
{
	switch (tp) {
	case DC_TP_BIO_QUEUE: return skel->progs.dc_bio_queue;
	case DC_TP_BLOCK_ISSUE: return skel->progs.dc_block_issue;
	case DC_TP_BLOCK_COMPLETE: return skel->progs.dc_block_complete;
	case DC_TP_PC_ADD: return skel->progs.dc_pc_add;
	case DC_TP_PC_DELETE: return skel->progs.dc_pc_delete;
	case DC_TP_FAULT: return skel->progs.dc_fault;
	case DC_TP_DIRTY: return skel->progs.dc_dirty;
	case DC_TP_RA_SYNC: return skel->progs.dc_ra_sync;
	case DC_TP_RA_ASYNC: return skel->progs.dc_ra_async;
	case DC_TP_SOCK_SEND: return skel->progs.dc_sock_send;
	case DC_TP_SOCK_RECV: return skel->progs.dc_sock_recv;
	case DC_TP_SOCK_STATE: return skel->progs.dc_sock_state;
	case DC_TP_URING_SUBMIT: return skel->progs.dc_uring_submit;
	case DC_TP_URING_COMPLETE: return skel->progs.dc_uring_complete;
	case DC_TP_SKB_DROP: return skel->progs.dc_skb_drop;
	case DC_TP_BLOCK_SPLIT: return skel->progs.dc_block_split;
	case DC_TP_BIO_BACKMERGE: return skel->progs.dc_bio_backmerge;
	case DC_TP_BIO_FRONTMERGE: return skel->progs.dc_bio_frontmerge;
	}
	return NULL;
}

void dc_klayers_aim(struct collect_bpf *skel, bool btf)
{
	for (int tp = 0; tp < DC_TP_COUNT; tp++) {
		struct bpf_program *b = klayer_btf_prog(skel, tp);

		if (b == NULL)
			continue;
		bpf_program__set_autoload(b, btf);
		bpf_program__set_autoload(klayer_tp_prog(skel, tp), !btf);
	}
}

struct bpf_program *dc_klayer_prog(struct collect_bpf *skel, int tp)
{
	struct bpf_program *b = klayer_btf_prog(skel, tp);

	return b && bpf_program__autoload(b) ? b : klayer_tp_prog(skel, tp);
}

int dc_tracefs_ready(void)
{
	return dc_tracefs_mount();
}

bool dc_tracepoint_exists(const char *name)
{
	const char *colon = strchr(name, ':');
	char category[256];

	if (colon == NULL || (size_t)(colon - name) >= sizeof(category))
		return false;
	snprintf(category, sizeof(category), "%.*s", (int)(colon - name), name);
	/* The kernel's own tracefs: the collector attaches there. */
	return dc_tracefs_has(dc_tracefs_kernel(), category, colon + 1) == 1;
}
