/*
 * vfork.c - libdcclient.so's vfork(2).
 *
 * A child of vfork runs on its parent's memory, its thread-local
 * variables included, until it execs or exits, while the thread that
 * called vfork waits.  The calls it makes meanwhile (Python's
 * subprocess closes and duplicates descriptors there) would go into
 * that thread's ring, as that thread's: the parent's file table in the
 * trace would lose the descriptors the child closed.  So vfork marks the
 * thread busy (DC_BUSY_VFORK, fast.c record_slow) for the child, which
 * records nothing, and the parent clears the mark when it runs again.
 * The child's system calls are recorded as its own, by the kernel
 * layers; its library calls only through uprobes (--no-preload).
 *
 * In assembly: the child returns from vfork onto the stack the parent
 * returns on after it, and may have overwritten the return address
 * there.  As glibc's does, it keeps the address in a register across
 * the system call.  x86-64 only; elsewhere libc's vfork is called, and
 * a child's calls are recorded as its parent's (dc-wrap(1)).
 */
#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "client.h"

#if defined(__x86_64__)

#define STR_(x) #x
#define STR(x) STR_(x)

/* Where busy is in a thread's dc_thr, for the assembly below. */
DC_HIDDEN const unsigned long dc_vfork_busy = offsetof(struct dc_thread, busy);

/* vfork failed (r: -errno): as libc's, -1 with errno set. */
DC_HIDDEN long dc_vfork_failed(long r)
{
	errno = (int)-r;
	return -1;
}

__asm__(
	"	.text\n"
	"	.globl vfork\n"
	"	.type vfork, @function\n"
	"vfork:\n"
	"	movq dc_thr@gottpoff(%rip), %rax\n"
	"	addq dc_vfork_busy(%rip), %rax\n"
	"	movb $" STR(DC_BUSY_VFORK) ", %fs:(%rax)\n"
	"	popq %rdi\n"			/* the return address */
	"	movl $" STR(SYS_vfork) ", %eax\n"
	"	syscall\n"
	"	pushq %rdi\n"
	"	testq %rax, %rax\n"
	"	jz 1f\n"			/* the child: stays marked */
	"	movq dc_thr@gottpoff(%rip), %rdx\n"
	"	addq dc_vfork_busy(%rip), %rdx\n"
	"	movb $0, %fs:(%rdx)\n"
	"	cmpq $-4095, %rax\n"
	"	jae 2f\n"
	"1:	ret\n"
	"2:	movq %rax, %rdi\n"
	"	jmp dc_vfork_failed\n"
	"	.size vfork, .-vfork\n");

#endif
