/*
 * dc-netpair - a UDP request/reply pair for the many-host tests: exact
 * messages whose order across hosts is known.
 *
 *   dc-netpair server PORT N READY   bind PORT, create READY, then N times:
 *                                    recvfrom 32 bytes, sendto 48 back
 *   dc-netpair client ADDR PORT N    N times: sendto 32 bytes, recvfrom 48
 *
 * Every reply is sent after its request arrived, and every request after
 * the previous reply: request i is sent before it is received, and so is
 * reply i.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REQ 32
#define REP 48

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a;
	socklen_t alen;
	char buf[REP] = { 0 };
	int s, n, i, fd;

	if (argc != 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: dc-netpair server PORT N READY | client ADDR PORT N\n");
		return 2;
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return fail("socket");
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	if (strcmp(argv[1], "server") == 0) {
		a.sin_port = htons((unsigned short)atoi(argv[2]));
		n = atoi(argv[3]);
		if (bind(s, (struct sockaddr *)&a, sizeof(a)) != 0)
			return fail("bind");
		fd = open(argv[4], O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return fail(argv[4]);
		close(fd);
		for (i = 0; i < n; i++) {
			alen = sizeof(a);
			if (recvfrom(s, buf, REQ, 0, (struct sockaddr *)&a, &alen) != REQ)
				return fail("recvfrom");
			if (sendto(s, buf, REP, 0, (struct sockaddr *)&a, alen) != REP)
				return fail("sendto");
		}
		return 0;
	}
	if (inet_pton(AF_INET, argv[2], &a.sin_addr) != 1)
		return fail("address");
	a.sin_port = htons((unsigned short)atoi(argv[3]));
	n = atoi(argv[4]);
	for (i = 0; i < n; i++) {
		buf[0] = (char)i;
		if (sendto(s, buf, REQ, 0, (struct sockaddr *)&a, sizeof(a)) != REQ)
			return fail("sendto");
		if (recvfrom(s, buf, REP, 0, NULL, NULL) != REP)
			return fail("recvfrom");
	}
	return 0;
}
