/* What strace's own test suite (tests p..z) probes of the kernel, printed as Linux answers it:
 * the same lines natively and under emutrace. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *what, long rc)
{
	printf("%s = %ld %s\n", what, rc, rc < 0 ? strerrorname_np(errno) : "");
}

int main(void)
{
	/* unix_create: SOCK_RAW is taken as SOCK_DGRAM, other types and protocols refused */
	int fd = socket(AF_UNIX, SOCK_RAW, 0);
	int type = 0;
	socklen_t len = sizeof(type);
	show("socket(AF_UNIX, SOCK_RAW)", fd < 0 ? -1 : 0);
	if (fd >= 0) {
		getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
		printf("SO_TYPE %d\n", type);
		close(fd);
	}
	fd = socket(AF_UNIX, SOCK_RDM, 0);
	show("socket(AF_UNIX, SOCK_RDM)", fd);
	fd = socket(AF_UNIX, SOCK_STREAM, 6);
	show("socket(AF_UNIX, SOCK_STREAM, 6)", fd);
	fd = socket(AF_UNIX, 12, 0);
	show("socket(AF_UNIX, 12)", fd);
	return 0;
}
