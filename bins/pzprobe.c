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

	/* sched_*: argument checks in Linux's order, normal policies allowed, real-time refused */
	struct sched_param sp = { .sched_priority = 0 };
	pid_t me = getpid();
	show("sched_getscheduler(-1)", syscall(SYS_sched_getscheduler, -1));
	show("sched_getscheduler(me)", syscall(SYS_sched_getscheduler, me));
	show("sched_setscheduler(me, FIFO, NULL)", syscall(SYS_sched_setscheduler, me, SCHED_FIFO, NULL));
	show("sched_setscheduler(-1, RR, &sp)", syscall(SYS_sched_setscheduler, -1, SCHED_RR, &sp));
	show("sched_setscheduler(me, 8, &sp)", syscall(SYS_sched_setscheduler, me, 8, &sp));
	show("sched_setscheduler(me, FIFO, {0})", syscall(SYS_sched_setscheduler, me, SCHED_FIFO, &sp));
	sp.sched_priority = 1;
	show("sched_setscheduler(me, OTHER, {1})", syscall(SYS_sched_setscheduler, me, SCHED_OTHER, &sp));
	sp.sched_priority = 0;
	show("sched_setscheduler(me, RESET|BATCH, {0})",
	     syscall(SYS_sched_setscheduler, me, SCHED_RESET_ON_FORK | SCHED_BATCH, &sp));
	show("sched_getscheduler(me)", syscall(SYS_sched_getscheduler, me));
	show("sched_setparam(me, {0})", syscall(SYS_sched_setparam, me, &sp));
	show("sched_setscheduler(me, OTHER, {0})", syscall(SYS_sched_setscheduler, me, SCHED_OTHER, &sp));
	show("sched_getscheduler(0)", syscall(SYS_sched_getscheduler, 0));
	sp.sched_priority = -1;
	show("sched_getparam(me)", syscall(SYS_sched_getparam, me, &sp));
	printf("priority %d\n", sp.sched_priority);
	show("sched_getparam(me, NULL)", syscall(SYS_sched_getparam, me, NULL));

	/* setuid/setgid: (uid_t)-1 names no id; the caller's own id is a no-op */
	show("setuid(-1)", syscall(SYS_setuid, -1L));
	show("setgid(0xffffffff)", syscall(SYS_setgid, 0xffffffffL));
	show("setuid(getuid())", syscall(SYS_setuid, getuid()));
	show("setgid(getgid())", syscall(SYS_setgid, getgid()));

	/* seccomp's queries: the actions the kernel knows, the notification structs' sizes */
	unsigned int action = 0x7fff0000;                      /* SECCOMP_RET_ALLOW */
	show("seccomp(GET_ACTION_AVAIL, ALLOW)", syscall(SYS_seccomp, 2, 0, &action));
	action = 0x7ffe0000;
	show("seccomp(GET_ACTION_AVAIL, 0x7ffe0000)", syscall(SYS_seccomp, 2, 0, &action));
	show("seccomp(GET_ACTION_AVAIL, flags 1)", syscall(SYS_seccomp, 2, 1, &action));
	unsigned short sizes[3] = { 0, 0, 0 };
	show("seccomp(GET_NOTIF_SIZES)", syscall(SYS_seccomp, 3, 0, sizes));
	printf("sizes %u %u %u\n", sizes[0], sizes[1], sizes[2]);

	/* the f*xattr calls look their descriptor up first */
	char list[16];
	show("flistxattr(-1)", syscall(SYS_flistxattr, -1, list, sizeof(list)));
	show("fgetxattr(-1)", syscall(SYS_fgetxattr, -1, "user.x", list, sizeof(list)));
	show("fsetxattr(-1)", syscall(SYS_fsetxattr, -1, "user.x", "v", 1, 0));
	show("fremovexattr(-1)", syscall(SYS_fremovexattr, -1, "user.x"));

	/* set_mempolicy on the nodes that exist (node 0 on every machine) */
	unsigned long nodes[2] = { 1, 0 };
	show("set_mempolicy(DEFAULT, NULL, 0)", syscall(SYS_set_mempolicy, 0, NULL, 0));
	show("set_mempolicy(DEFAULT, {0}, 65)", syscall(SYS_set_mempolicy, 0, nodes, 65));
	show("set_mempolicy(BIND, {0}, 65)", syscall(SYS_set_mempolicy, 2, nodes, 65));
	show("set_mempolicy(BIND, NULL, 0)", syscall(SYS_set_mempolicy, 2, NULL, 0));
	show("set_mempolicy(PREFERRED, NULL, 0)", syscall(SYS_set_mempolicy, 1, NULL, 0));
	show("set_mempolicy(LOCAL, {0}, 65)", syscall(SYS_set_mempolicy, 4, nodes, 65));
	show("set_mempolicy(7, NULL, 0)", syscall(SYS_set_mempolicy, 7, NULL, 0));
	show("set_mempolicy(STATIC|RELATIVE|BIND)", syscall(SYS_set_mempolicy, 0xc002, nodes, 65));
	show("set_mempolicy(DEFAULT, mask, 2^20)", syscall(SYS_set_mempolicy, 0, nodes, 1UL << 20));
	show("set_mempolicy(DEFAULT, NULL, 0)", syscall(SYS_set_mempolicy, 0, NULL, 0));
	return 0;
}
