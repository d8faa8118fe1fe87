/*
 * layers.c - the built-in layers of dc-gen (dc-config(5)): which
 * functions each one probes and how their arguments are recorded.
 *
 * An argument plan names what each argument is (dc-probes(5)), so the
 * collector knows to copy a path, keep an fd or a size.  Functions marked
 * quiet exist only on some systems (old glibc stat wrappers, MPI-enabled
 * HDF5, io_uring); their absence is not worth a warning.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gen.h"

static const char *const libc_targets[] = { "libc.so.6", NULL };
static const char *const mpi_targets[] = { "libmpi.so", "libmpi", NULL };
/* Debian and Ubuntu ship HDF5 as libhdf5_serial or libhdf5_openmpi. */
static const char *const hdf5_targets[] = {
	"libhdf5.so", "libhdf5", "libhdf5_openmpi", "libhdf5_mpich",
	"libhdf5_serial", NULL
};

#define F(n, a, r) { n, a, r, 0, NULL }
#define Q(n, a, r) { n, a, r, 1, NULL }
/* In libc since glibc 2.34, in librt before (RHEL 8's 2.28). */
#define RT(n, a, r) { n, a, r, 1, "librt.so.1" }

static const struct builtin_func posix_funcs[] = {
	F("open", "path,flags,mode", "fd"),
	F("open64", "path,flags,mode", "fd"),
	F("openat", "fd,path,flags,mode", "fd"),
	F("openat64", "fd,path,flags,mode", "fd"),
	F("creat", "path,mode", "fd"),
	Q("creat64", "path,mode", "fd"),
	F("read", "fd,ptr,size", "size"),
	F("write", "fd,ptr,size", "size"),
	F("pread", "fd,ptr,size,offset", "size"),
	F("pread64", "fd,ptr,size,offset", "size"),
	F("pwrite", "fd,ptr,size,offset", "size"),
	F("pwrite64", "fd,ptr,size,offset", "size"),
	F("readv", "fd,iov,int", "size"),
	F("writev", "fd,iov,int", "size"),
	F("preadv", "fd,iov,int,offset", "size"),
	F("pwritev", "fd,iov,int,offset", "size"),
	Q("preadv64", "fd,iov,int,offset", "size"),
	Q("pwritev64", "fd,iov,int,offset", "size"),
	Q("preadv2", "fd,iov,int,offset,flags", "size"),
	Q("pwritev2", "fd,iov,int,offset,flags", "size"),
	F("lseek", "fd,offset,whence", "offset"),
	F("lseek64", "fd,offset,whence", "offset"),
	F("fsync", "fd", "status"),
	F("fdatasync", "fd", "status"),
	F("close", "fd", "status"),
	F("stat", "path,ptr", "status"),
	F("lstat", "path,ptr", "status"),
	F("fstat", "fd,ptr", "status"),
	Q("stat64", "path,ptr", "status"),
	Q("lstat64", "path,ptr", "status"),
	Q("fstat64", "fd,ptr", "status"),
	Q("fstatat", "fd,path,ptr,flags", "status"),
	Q("fstatat64", "fd,path,ptr,flags", "status"),
	Q("statx", "fd,path,flags,int,ptr", "status"),
	/* glibc before 2.33 exported stat through these. */
	Q("__xstat", "int,path,ptr", "status"),
	Q("__lxstat", "int,path,ptr", "status"),
	Q("__fxstat", "int,fd,ptr", "status"),
	Q("__xstat64", "int,path,ptr", "status"),
	Q("__lxstat64", "int,path,ptr", "status"),
	Q("__fxstat64", "int,fd,ptr", "status"),
	F("mmap", "ptr,size,int,flags,fd,offset", "handle"),
	Q("mmap64", "ptr,size,int,flags,fd,offset", "handle"),
	F("munmap", "ptr,size", "status"),
	F("unlink", "path", "status"),
	F("rename", "path,path", "status"),
	F("mkdir", "path,mode", "status"),
	F("rmdir", "path", "status"),
	F("opendir", "path", "handle"),
	F("fdopendir", "fd", "handle"),
	F("readdir", "handle", "handle"),
	Q("readdir64", "handle", "handle"),
	F("closedir", "handle", "status"),
	F("dup", "fd", "fd"),
	F("dup2", "fd,fd", "fd"),
	Q("dup3", "fd,fd,flags", "fd"),
	F("fcntl", "fd,cmd,int", "int"),
	F("ftruncate", "fd,offset", "status"),
	Q("ftruncate64", "fd,offset", "status"),
	F("truncate", "path,offset", "status"),
	Q("truncate64", "path,offset", "status"),
	/* The working directory, which relative paths are taken against. */
	F("chdir", "path", "status"),
	F("fchdir", "fd", "status"),
	/* Copies between descriptors: named by the file read, the file
	 * written its second name (dc-aggregate(1)). */
	F("sendfile", "fd,fd,ptr,size", "size"),
	Q("sendfile64", "fd,fd,ptr,size", "size"),
	F("copy_file_range", "fd,ptr,fd,ptr,size,flags", "size"),
	/* Space and advice, which move no bytes (their lengths are not
	 * sizes); posix_fallocate and posix_fadvise return an error
	 * number. */
	F("posix_fallocate", "fd,offset,offset", "code"),
	Q("posix_fallocate64", "fd,offset,offset", "code"),
	F("fallocate", "fd,flags,offset,offset", "status"),
	Q("fallocate64", "fd,flags,offset,offset", "status"),
	F("posix_fadvise", "fd,offset,offset,int", "code"),
	Q("posix_fadvise64", "fd,offset,offset,int", "code"),
	/* A file of a unique name, made from the template: its name is
	 * there when the call returns, when the collector reads it (as
	 * every path).  mkdtemp returns the template, or NULL. */
	F("mkstemp", "path", "fd"),
	F("mkostemp", "path,flags", "fd"),
	F("mkstemps", "path,int", "fd"),
	F("mkostemps", "path,int,flags", "fd"),
	F("mkdtemp", "path", "handle"),
	/* POSIX AIO, in libc since glibc 2.34, in librt before: probed
	 * there where libc has none.  A request is named by its struct
	 * aiocb (dc-probes(5)): aio_return says what it moved, and which
	 * way.  aio_error, which programs poll, is not probed. */
	RT("aio_read", "aiocb,size,offset", "status"),
	RT("aio_write", "aiocb,size,offset", "status"),
	RT("aio_return", "aiocb,size,offset,op", "size"),
	RT("aio_suspend", "ptr,int,ptr", "status"),
	RT("aio_cancel", "fd,ptr", "int"),
	RT("aio_fsync", "flags,aiocb", "status"),
	RT("lio_listio", "int,ptr,int,ptr", "status"),
	{ NULL, NULL, NULL, 0, NULL }
};

/* A FILE * is a "file": the collector also reads its descriptor, so
 * streams opened before tracing (stdin, stdout, stderr) have a file. */
static const struct builtin_func stdio_funcs[] = {
	F("fopen", "path,str", "handle"),
	F("fopen64", "path,str", "handle"),
	F("fdopen", "fd,str", "handle"),
	F("freopen", "path,str,file", "handle"),
	F("freopen64", "path,str,file", "handle"),
	F("fread", "ptr,isize,count,file", "items"),
	F("fwrite", "ptr,isize,count,file", "items"),
	F("fseek", "file,offset,whence", "status"),
	Q("fseeko", "file,offset,whence", "status"),
	F("ftell", "file", "offset"),
	Q("ftello", "file", "offset"),
	F("rewind", "file", "none"),
	F("fgetpos", "file,ptr", "status"),
	F("fsetpos", "file,ptr", "status"),
	F("fflush", "file", "status"),
	F("fclose", "file", "status"),
	F("fgets", "strout,size,file", "handle"),
	F("fputs", "strlen,file", "all"),
	F("fputc", "char,file", "all"),
	Q("putc", "char,file", "all"),
	F("fprintf", "file,str", "size"),
	F("vfprintf", "file,str", "size"),
	/* Printing to a descriptor, without a stream. */
	F("dprintf", "fd,str", "size"),
	F("vdprintf", "fd,str", "size"),
	F("fscanf", "file,str", "int"),
	/* stdin's (as printf's stdout, below). */
	F("scanf", "str,stdin", "int"),
	/* getline and getdelim return the bytes of the line they read. */
	F("getline", "ptr,ptr,file", "size"),
	F("getdelim", "ptr,ptr,int,file", "size"),
	/* A character read: one byte, none at EOF.  getc is fgetc in
	 * glibc (one probe, named fgetc). */
	F("fgetc", "file", "char"),
	Q("getc", "file", "char"),
	F("getchar", "stdin", "char"),
	/* stdout's: the stream is no argument; the collector reads
	 * libc's variable at the call (dc-probes(5) "stdout").  glibc's
	 * puts returns the bytes it wrote, the newline's too. */
	F("printf", "str,stdout", "size"),
	F("vprintf", "str,stdout", "size"),
	F("puts", "ptr,stdout", "size"),
	F("putchar", "char,stdout", "all"),
	/* The versions without the stream's lock, which GNU programs
	 * (coreutils' sort, ls, seq...) call for all their output: the
	 * same plans, under their own names.  getc_unlocked is
	 * fgetc_unlocked in glibc. */
	F("fwrite_unlocked", "ptr,isize,count,file", "items"),
	F("fread_unlocked", "ptr,isize,count,file", "items"),
	F("fputs_unlocked", "strlen,file", "all"),
	F("fgets_unlocked", "strout,size,file", "handle"),
	F("fputc_unlocked", "char,file", "all"),
	F("putc_unlocked", "char,file", "all"),
	F("fgetc_unlocked", "file", "char"),
	F("fflush_unlocked", "file", "status"),
	F("getchar_unlocked", "stdin", "char"),
	F("putchar_unlocked", "char,stdout", "all"),
	{ NULL, NULL, NULL, 0, NULL }
};

/* MPI returns error codes (0 is MPI_SUCCESS); communicators and info
 * objects are opaque pointers, not worth recording. */
static const struct builtin_func mpiio_funcs[] = {
	F("MPI_Init", "ptr,ptr", "code"),
	F("MPI_Finalize", "", "code"),
	F("MPI_Comm_rank", "ptr,ptr", "code"),
	F("MPI_File_open", "ptr,path,int,ptr,handleout", "code"),
	F("MPI_File_close", "handlein", "code"),
	F("MPI_File_sync", "handle", "code"),
	F("MPI_File_set_view", "handle,offset,ptr,ptr,str,ptr", "code"),
	F("MPI_File_seek", "handle,offset,whence", "code"),
#define RW "handle,ptr,count,datatype,mpistatus"
#define RW_AT "handle,offset,ptr,count,datatype,mpistatus"
#define IRW "handle,ptr,count,datatype,ptr"
#define IRW_AT "handle,offset,ptr,count,datatype,ptr"
	F("MPI_File_read", RW, "code"),
	F("MPI_File_write", RW, "code"),
	F("MPI_File_read_all", RW, "code"),
	F("MPI_File_write_all", RW, "code"),
	F("MPI_File_read_at", RW_AT, "code"),
	F("MPI_File_write_at", RW_AT, "code"),
	F("MPI_File_read_at_all", RW_AT, "code"),
	F("MPI_File_write_at_all", RW_AT, "code"),
	F("MPI_File_iread", IRW, "code"),
	F("MPI_File_iwrite", IRW, "code"),
	F("MPI_File_iread_at", IRW_AT, "code"),
	F("MPI_File_iwrite_at", IRW_AT, "code"),
	Q("MPI_File_iread_all", IRW, "code"),
	Q("MPI_File_iwrite_all", IRW, "code"),
	Q("MPI_File_iread_at_all", IRW_AT, "code"),
	Q("MPI_File_iwrite_at_all", IRW_AT, "code"),
	F("MPI_File_read_shared", RW, "code"),
	F("MPI_File_write_shared", RW, "code"),
	F("MPI_File_read_ordered", RW, "code"),
	F("MPI_File_write_ordered", RW, "code"),
	F("MPI_File_iread_shared", IRW, "code"),
	F("MPI_File_iwrite_shared", IRW, "code"),
	/* Split collectives: the bytes are the begin's, which asks for
	 * them (as an iread does); the end's status is not read, so they
	 * count once. */
#define BEGIN "handle,ptr,count,datatype"
#define BEGIN_AT "handle,offset,ptr,count,datatype"
#define END "handle,ptr,ptr"
	F("MPI_File_read_all_begin", BEGIN, "code"),
	F("MPI_File_read_all_end", END, "code"),
	F("MPI_File_write_all_begin", BEGIN, "code"),
	F("MPI_File_write_all_end", END, "code"),
	F("MPI_File_read_at_all_begin", BEGIN_AT, "code"),
	F("MPI_File_read_at_all_end", END, "code"),
	F("MPI_File_write_at_all_begin", BEGIN_AT, "code"),
	F("MPI_File_write_at_all_end", END, "code"),
	F("MPI_File_read_ordered_begin", BEGIN, "code"),
	F("MPI_File_read_ordered_end", END, "code"),
	F("MPI_File_write_ordered_begin", BEGIN, "code"),
	F("MPI_File_write_ordered_end", END, "code"),
#undef BEGIN
#undef BEGIN_AT
#undef END
	F("MPI_File_seek_shared", "handle,offset,whence", "code"),
	F("MPI_File_set_size", "handle,offset", "code"),
	F("MPI_File_preallocate", "handle,offset", "code"),
	F("MPI_File_delete", "path,ptr", "code"),
#undef RW
#undef RW_AT
#undef IRW
#undef IRW_AT
	{ NULL, NULL, NULL, 0, NULL }
};

static const struct builtin_func hdf5_funcs[] = {
	F("H5Fcreate", "path,flags,handle,handle", "handle"),
	F("H5Fopen", "path,flags,handle", "handle"),
	F("H5Fclose", "handle", "status"),
	F("H5Fflush", "handle,int", "status"),
	/* H5Dcreate2 has seven arguments; the seventh (dapl) is dropped. */
	F("H5Dcreate2", "handle,str,handle,handle,handle,handle", "handle"),
	F("H5Dopen2", "handle,str,handle", "handle"),
	F("H5Dread", "handle,handle,handle,handle,handle,ptr", "status"),
	F("H5Dwrite", "handle,handle,handle,handle,handle,ptr", "status"),
	F("H5Dclose", "handle", "status"),
	F("H5Gcreate2", "handle,str,handle,handle,handle", "handle"),
	F("H5Gopen2", "handle,str,handle", "handle"),
	F("H5Gclose", "handle", "status"),
	F("H5Acreate2", "handle,str,handle,handle,handle,handle", "handle"),
	F("H5Aopen", "handle,str,handle", "handle"),
	F("H5Aread", "handle,handle,ptr", "status"),
	F("H5Awrite", "handle,handle,ptr", "status"),
	F("H5Aclose", "handle", "status"),
	/* What h5py uses: f["x"] opens by H5Oopen, g["y"] = data creates
	 * with H5Dcreate_anon and links with H5Olink, attributes go by
	 * name; each id is in its location's file. */
	F("H5Oopen", "handle,str,handle", "handle"),
	F("H5Oclose", "handle", "status"),
	F("H5Olink", "handle,handle,str,handle,handle", "status"),
	F("H5Dcreate_anon", "handle,handle,handle,handle,handle", "handle"),
	/* H5Acreate_by_name has eight arguments; the last two (aapl,
	 * lapl) are dropped. */
	F("H5Acreate_by_name", "handle,str,str,handle,handle,handle", "handle"),
	F("H5Aopen_by_name", "handle,str,str,handle,handle", "handle"),
	/* A dataset grown (h5py's resize) or flushed. */
	F("H5Dset_extent", "handle,ptr", "status"),
	Q("H5Dflush", "handle", "status"),
	F("H5Pcreate", "handle", "handle"),
	F("H5Pclose", "handle", "status"),
	/* Only in MPI-enabled builds of HDF5. */
	Q("H5Pset_fapl_mpio", "handle,handle,handle", "status"),
	Q("H5Pset_dxpl_mpio", "handle,int", "status"),
	{ NULL, NULL, NULL, 0, NULL }
};

static const struct builtin_func syscall_funcs[] = {
	F("read", "fd,ptr,size", "size"),
	F("write", "fd,ptr,size", "size"),
	F("pread64", "fd,ptr,size,offset", "size"),
	F("pwrite64", "fd,ptr,size,offset", "size"),
	F("readv", "fd,iov,int", "size"),
	F("writev", "fd,iov,int", "size"),
	F("preadv", "fd,iov,int,offset", "size"),
	F("pwritev", "fd,iov,int,offset", "size"),
	/* The offset's high half (0 on 64-bit) before the flags. */
	F("preadv2", "fd,iov,int,offset,int,flags", "size"),
	F("pwritev2", "fd,iov,int,offset,int,flags", "size"),
	/* Linux AIO (libaio, fio's libaio engine): the context is opaque,
	 * the requests' bytes are in user memory, not the arguments; the
	 * block and page cache layers show them. */
	F("io_setup", "int,ptr", "status"),
	F("io_destroy", "ptr", "status"),
	F("io_submit", "ptr,int,ptr", "int"),
	Q("io_getevents", "ptr,int,int,ptr,ptr", "int"),
	Q("io_pgetevents", "ptr,int,int,ptr,ptr,ptr", "int"),
	F("io_cancel", "ptr,ptr,ptr", "status"),
	Q("open", "path,flags,mode", "fd"),
	F("openat", "fd,path,flags,mode", "fd"),
	Q("openat2", "fd,path,ptr,int", "fd"),
	Q("creat", "path,mode", "fd"),
	F("close", "fd", "status"),
	Q("close_range", "fd,fd,flags", "status"),
	F("lseek", "fd,offset,whence", "offset"),
	F("fsync", "fd", "status"),
	F("fdatasync", "fd", "status"),
	F("syncfs", "fd", "status"),
	F("sync", "", "status"),
	F("sync_file_range", "fd,offset,offset,flags", "status"),
	Q("fadvise64", "fd,offset,size,int", "status"),
	Q("readahead", "fd,offset,size", "status"),
	Q("truncate", "path,offset", "status"),
	F("ftruncate", "fd,offset", "status"),
	F("fallocate", "fd,flags,offset,offset", "status"),
	F("mmap", "ptr,size,int,flags,fd,offset", "handle"),
	F("munmap", "ptr,size", "status"),
	F("msync", "ptr,size,flags", "status"),
	Q("unlink", "path", "status"),
	F("unlinkat", "fd,path,flags", "status"),
	Q("rename", "path,path", "status"),
	Q("renameat", "fd,path,fd,path", "status"),
	F("renameat2", "fd,path,fd,path,flags", "status"),
	Q("mkdir", "path,mode", "status"),
	F("mkdirat", "fd,path,mode", "status"),
	Q("rmdir", "path", "status"),
	/* Links and attributes (readlink's count is of the link's text,
	 * not of a file's data).  A symlink's target is a string, not a
	 * file it works on: the call is named by the path it makes. */
	Q("link", "path,path", "status"),
	F("linkat", "fd,path,fd,path,flags", "status"),
	Q("symlink", "str,path", "status"),
	F("symlinkat", "str,fd,path", "status"),
	Q("readlink", "path,ptr,int", "int"),
	F("readlinkat", "fd,path,ptr,int", "int"),
	Q("chmod", "path,mode", "status"),
	F("fchmod", "fd,mode", "status"),
	F("fchmodat", "fd,path,mode", "status"),
	Q("chown", "path,int,int", "status"),
	F("fchown", "fd,int,int", "status"),
	F("fchownat", "fd,path,int,int,flags", "status"),
	F("utimensat", "fd,path,ptr,flags", "status"),
	F("newfstatat", "fd,path,ptr,flags", "status"),
	Q("stat", "path,ptr", "status"),
	F("fstat", "fd,ptr", "status"),
	Q("lstat", "path,ptr", "status"),
	F("statx", "fd,path,flags,int,ptr", "status"),
	Q("statfs", "path,ptr", "status"),
	F("fstatfs", "fd,ptr", "status"),
	Q("access", "path,int", "status"),
	F("faccessat", "fd,path,int", "status"),
	Q("faccessat2", "fd,path,int,flags", "status"),
	/* A directory's entries: the bytes returned are records, not
	 * the file's data. */
	F("getdents64", "fd,ptr,int", "int"),
	F("dup", "fd", "fd"),
	Q("dup2", "fd,fd", "fd"),
	F("dup3", "fd,fd,flags", "fd"),
	F("fcntl", "fd,cmd,int", "int"),
	/* The working directory, so readers resolve relative paths. */
	F("chdir", "path", "status"),
	F("fchdir", "fd", "status"),
	/* Descriptors that are not files, so that dc-aggregate names them
	 * (dc-trace(5)): pipes, eventfds, memfds; sockets are the sockets
	 * layer's. */
	Q("pipe", "fdpair", "status"),
	F("pipe2", "fdpair,flags", "status"),
	Q("eventfd", "int", "fd"),
	F("eventfd2", "int,flags", "fd"),
	F("memfd_create", "str,flags", "fd"),
	Q("io_uring_setup", "int,ptr", "fd"),
	Q("io_uring_enter", "fd,int,int,flags,ptr,size", "int"),
	F("sendfile", "fd,fd,ptr,size", "size"),
	F("copy_file_range", "fd,ptr,fd,ptr,size,flags", "size"),
	F("splice", "fd,ptr,fd,ptr,size,flags", "size"),
	{ NULL, NULL, NULL, 0, NULL }
};

/* Socket and readiness system calls: the connection lifecycle, sizes
 * sent and received, and the waits in between. */
static const struct builtin_func socket_funcs[] = {
	F("socket", "int,int,int", "fd"),
	F("socketpair", "int,int,int,fdpair", "status"),
	F("bind", "fd,ptr,int", "status"),
	F("listen", "fd,int", "status"),
	Q("accept", "fd,ptr,ptr", "fd"),
	F("accept4", "fd,ptr,ptr,flags", "fd"),
	F("connect", "fd,ptr,int", "status"),
	F("shutdown", "fd,int", "status"),
	F("sendto", "fd,ptr,size,flags,ptr,int", "size"),
	F("recvfrom", "fd,ptr,size,flags,ptr,ptr", "size"),
	F("sendmsg", "fd,ptr,flags", "size"),
	F("recvmsg", "fd,ptr,flags", "size"),
	Q("sendmmsg", "fd,ptr,int,flags", "int"),
	Q("recvmmsg", "fd,ptr,int,flags,ptr", "int"),
	F("setsockopt", "fd,int,int,ptr,int", "status"),
	F("getsockopt", "fd,int,int,ptr,ptr", "status"),
	Q("poll", "ptr,int,int", "int"),
	F("ppoll", "ptr,int,ptr,ptr,size", "int"),
	Q("select", "int,ptr,ptr,ptr,ptr", "int"),
	F("pselect6", "int,ptr,ptr,ptr,ptr,ptr", "int"),
	Q("epoll_create", "int", "fd"),
	F("epoll_create1", "flags", "fd"),
	F("epoll_ctl", "fd,int,fd,ptr", "status"),
	Q("epoll_wait", "fd,ptr,int,int", "int"),
	F("epoll_pwait", "fd,ptr,int,int,ptr,size", "int"),
	{ NULL, NULL, NULL, 0, NULL }
};

/* Tracepoints: "category:name".  Kernels rename them now and then
 * (writeback_dirty_page became writeback_dirty_folio in 5.18), so each
 * layer lists both spellings quietly and dc-gen keeps what exists. */
static const struct builtin_func block_funcs[] = {
	F("block:block_rq_issue", "", "none"),
	F("block:block_rq_complete", "", "none"),
	F("block:block_rq_insert", "", "none"),
	F("block:block_bio_queue", "", "none"),
	{ NULL, NULL, NULL, 0, NULL }
};

static const struct builtin_func pagecache_funcs[] = {
	F("filemap:mm_filemap_add_to_page_cache", "", "none"),
	F("filemap:mm_filemap_delete_from_page_cache", "", "none"),
	Q("writeback:writeback_dirty_folio", "", "none"),
	Q("writeback:writeback_dirty_page", "", "none"),
	F("writeback:writeback_single_inode", "", "none"),
	Q("readahead:page_cache_sync_ra", "", "none"),
	Q("readahead:page_cache_async_ra", "", "none"),
	{ NULL, NULL, NULL, 0, NULL }
};

static const struct builtin_func net_funcs[] = {
	F("sock:inet_sock_set_state", "", "none"),
	F("tcp:tcp_retransmit_skb", "", "none"),
	F("net:net_dev_xmit", "", "none"),
	F("net:netif_receive_skb", "", "none"),
	Q("sock:sock_send_length", "", "none"),
	Q("sock:sock_recv_length", "", "none"),
	Q("skb:kfree_skb", "", "none"),
	{ NULL, NULL, NULL, 0, NULL }
};

static const struct builtin_func faults_funcs[] = {
	F("exceptions:page_fault_user", "", "none"),
	F("exceptions:page_fault_kernel", "", "none"),
	/* Linux 6.1 and older have no mm_filemap_fault. */
	Q("filemap:mm_filemap_fault", "", "none"),
	{ NULL, NULL, NULL, 0, NULL }
};

static const struct builtin_func iouring_funcs[] = {
	Q("io_uring:io_uring_submit_req", "", "none"),
	Q("io_uring:io_uring_complete", "", "none"),
	{ NULL, NULL, NULL, 0, NULL }
};

/* Kernel functions (kprobes or fentry): their arguments are planned
 * from the kernel's BTF by dc-gen, not here, since prototypes change
 * between kernels (vfs_unlink took a user namespace, then an idmap).
 * Static helpers the compiler may inline away are quiet. */
static const struct builtin_func vfs_funcs[] = {
	F("vfs_read", "", "none"),
	F("vfs_write", "", "none"),
	Q("vfs_readv", "", "none"),
	Q("vfs_writev", "", "none"),
	Q("vfs_iter_read", "", "none"),
	Q("vfs_iter_write", "", "none"),
	F("vfs_open", "", "none"),
	F("vfs_fsync_range", "", "none"),
	F("vfs_getattr", "", "none"),
	F("vfs_unlink", "", "none"),
	F("vfs_rename", "", "none"),
	F("vfs_mkdir", "", "none"),
	F("vfs_rmdir", "", "none"),
	F("iterate_dir", "", "none"),
	{ NULL, NULL, NULL, 0, NULL }
};

/* File-system entry points, for the file systems loaded here (ext4 and
 * xfs are modules on most distributions: absent ones are quiet). */
static const struct builtin_func fs_funcs[] = {
	Q("ext4_file_read_iter", "", "none"),
	Q("ext4_file_write_iter", "", "none"),
	Q("ext4_sync_file", "", "none"),
	Q("ext4_file_open", "", "none"),
	Q("ext4_readdir", "", "none"),
	Q("xfs_file_read_iter", "", "none"),
	Q("xfs_file_write_iter", "", "none"),
	Q("xfs_file_fsync", "", "none"),
	Q("xfs_file_open", "", "none"),
	Q("xfs_file_readdir", "", "none"),
	{ NULL, NULL, NULL, 0, NULL }
};

static const char *const kernel_group[] = {
	"block", "pagecache", "net", "faults", "iouring", NULL
};

const struct builtin_layer dc_builtin_layers[] = {
	{ "posix", "POSIX", DC_PROBE_UPROBE, libc_targets, 0, posix_funcs, NULL,
	  "POSIX I/O calls in libc" },
	{ "stdio", "STDIO", DC_PROBE_UPROBE, libc_targets, 0, stdio_funcs, NULL,
	  "C stdio calls in libc" },
	{ "mpiio", "MPI", DC_PROBE_UPROBE, mpi_targets, 0, mpiio_funcs, NULL,
	  "MPI-IO calls in libmpi" },
	{ "hdf5", "HDF5", DC_PROBE_UPROBE, hdf5_targets, 0, hdf5_funcs, NULL,
	  "HDF5 file, dataset, group, attribute and property calls" },
	{ "syscalls", "sys", DC_PROBE_SYSCALL, NULL, 0, syscall_funcs, NULL,
	  "I/O system calls" },
	{ "sockets", "sock", DC_PROBE_SYSCALL, NULL, 0, socket_funcs, NULL,
	  "socket and readiness system calls (connect, accept, send, poll...)" },
	{ "block", "block", DC_PROBE_TRACEPOINT, NULL, 0, block_funcs, NULL,
	  "block layer requests (tracepoints)" },
	{ "pagecache", "pagecache", DC_PROBE_TRACEPOINT, NULL, 0, pagecache_funcs,
	  NULL, "page cache and writeback (tracepoints)" },
	{ "net", "net", DC_PROBE_TRACEPOINT, NULL, 0, net_funcs, NULL,
	  "socket state, TCP retransmits, packets (tracepoints)" },
	{ "faults", "faults", DC_PROBE_TRACEPOINT, NULL, 0, faults_funcs, NULL,
	  "page faults (tracepoints)" },
	{ "iouring", "io_uring", DC_PROBE_TRACEPOINT, NULL, 0, iouring_funcs,
	  NULL, "io_uring submissions and completions (tracepoints)" },
	{ "vfs", "vfs", DC_PROBE_KFUNC, NULL, 0, vfs_funcs, NULL,
	  "VFS calls under the system calls (kernel functions: kprobes or fentry)" },
	{ "filesystems", "fs", DC_PROBE_KFUNC, NULL, 0, fs_funcs, NULL,
	  "ext4 and xfs entry points (kernel functions: kprobes or fentry)" },
	{ "kernel", NULL, 0, NULL, 0, NULL, kernel_group,
	  "block, pagecache, net, faults and iouring" },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL, NULL }
};

const struct builtin_layer *dc_builtin_find(const char *name)
{
	const struct builtin_layer *b;

	for (b = dc_builtin_layers; b->name; b++)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

int dc_plan_parse(const char *args, const char *ret, struct plan *out)
{
	const char *p = args;

	out->nargs = 0;
	while (p && *p) {
		size_t len = strcspn(p, ",");
		char name[32];
		int k;

		if (len == 0 || len >= sizeof(name) || out->nargs >= DC_MAX_ARGS)
			return -1;
		memcpy(name, p, len);
		name[len] = '\0';
		k = dc_arg_kind_parse(name);
		if (k < 0)
			return -1;
		out->kinds[out->nargs++] = (uint8_t)k;
		p += len;
		if (*p == ',')
			p++;
	}
	out->ret = dc_ret_kind_parse(ret ? ret : "none");
	return out->ret < 0 ? -1 : 0;
}
