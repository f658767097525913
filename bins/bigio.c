/* bigio: each call asks the kernel to move far more than the guest's memory (1024 views of
 * one 1 MiB buffer): the host must not hold it all at once. Prints what each call returned.
 * Natively it writes 1 GiB to /tmp/bigio; the tests run it only under emutrace. */
#define _GNU_SOURCE
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/socket.h>
int main(void){
  char *p = mmap(0, 1<<20, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  memset(p, 'x', 1<<20);
  static struct iovec iov[1024];
  for (int i=0;i<1024;i++){iov[i].iov_base=p; iov[i].iov_len=1<<20;}
  int z = open("/dev/zero", O_RDONLY), n = open("/dev/null", O_WRONLY);
  printf("readv /dev/zero: %zd\n", readv(z, iov, 1024));
  printf("writev /dev/null: %zd\n", writev(n, iov, 1024));
  int t = open("/tmp/bigio", O_RDWR|O_CREAT|O_TRUNC, 0600);
  ssize_t r = writev(t, iov, 1024);
  printf("writev file: %zd %s\n", r, r < 0 ? strerrorname_np(errno) : "");
  printf("readv file: %zd\n", preadv(t, iov, 1024, 0));
  int sv[2]; socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  struct msghdr m = {.msg_iov = iov, .msg_iovlen = 1024};
  r = sendmsg(sv[0], &m, MSG_DONTWAIT);
  printf("sendmsg: %zd %s\n", r, r < 0 ? strerrorname_np(errno) : "");
  int pp[2]; pipe(pp);
  r = vmsplice(pp[1], iov, 1024, SPLICE_F_NONBLOCK);
  printf("vmsplice: %zd %s\n", r, r < 0 ? strerrorname_np(errno) : "");
  return 0;
}
