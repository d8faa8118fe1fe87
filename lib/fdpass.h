/*
 * fdpass.h - send and receive one file descriptor with a message over a
 * Unix socket (SCM_RIGHTS).  Header-only: libdcclient.so, which links
 * nothing but libc, hands its ring to dc-collect with it and receives
 * its call-state map, and so do dc-collect and the hostile test client
 * that plays the same handshake.
 */
#ifndef DC_FDPASS_H
#define DC_FDPASS_H

#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* Send len bytes of msg with fd attached; 0, or -1 with errno set.
 * MSG_NOSIGNAL: a peer that went away is an error, never a SIGPIPE. */
static inline int dc_send_fd(int sock, const void *msg, size_t len, int fd)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh;
	struct cmsghdr *cm;

	memset(&mh, 0, sizeof(mh));
	memset(control, 0, sizeof(control));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control;
	mh.msg_controllen = sizeof(control);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Receive at most len bytes into buf, and the first descriptor passed
 * with them into *fd (-1: none; any others are closed, so a peer cannot
 * make us hold descriptors we did not ask for).  recvmsg's result, errno
 * set when it is -1. */
static inline int dc_recv_fd(int sock, void *buf, size_t len, int *fd)
{
	char control[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { buf, len };
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control;
	mh.msg_controllen = sizeof(control);
	*fd = -1;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			int nfd = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			int fds[4], k;

			if (nfd > 4)
				nfd = 4;
			memcpy(fds, CMSG_DATA(cm), sizeof(int) * (size_t)nfd);
			for (k = 0; k < nfd; k++) {
				if (*fd < 0)
					*fd = fds[k];
				else
					close(fds[k]);
			}
		}
	}
	return (int)n;
}

#endif /* DC_FDPASS_H */
