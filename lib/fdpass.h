/*
 * fdpass.h - send one file descriptor with a message over a Unix socket
 * (SCM_RIGHTS).  Header-only: libdcclient.so, which links nothing but
 * libc, hands its ring to dc-collect with it, and so does the hostile
 * test client that plays the same handshake.
 */
#ifndef DC_FDPASS_H
#define DC_FDPASS_H

#include <string.h>
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

#endif /* DC_FDPASS_H */
