/* mq_notify with SIGEV_THREAD: the C library's helper thread waits on a netlink socket, and the
   kernel sends it the registration's cookie when a message reaches the empty queue; the callback
   then runs on a new thread with the caller's sigev_value. Also: one registration at a time
   (EBUSY), removal with mq_notify(NULL), and a registration that fired is gone. */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static mqd_t q;
static sem_t done;
static int calls;
static pthread_t main_thread;

static long syscall_mq_notify(mqd_t mq, const struct sigevent *sev)
{
    return syscall(SYS_mq_notify, mq, sev);
}

static void on_message(union sigval v)
{
    char buf[64];
    unsigned prio;
    ssize_t n = mq_receive(q, buf, sizeof buf, &prio);
    calls++;
    printf("callback %d: value %d, on another thread %d, received %zd \"%.*s\" prio %u\n", calls,
           v.sival_int, !pthread_equal(pthread_self(), main_thread), n, (int)(n > 0 ? n : 0), buf, prio);
    sem_post(&done);
}

static const char *en(int r)
{
    return r == 0 ? "ok" : strerror(errno);
}

static int wait_done(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    return sem_timedwait(&done, &ts);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    main_thread = pthread_self();
    struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 64 };
    mq_unlink("/emutrace-mqthread");
    q = mq_open("/emutrace-mqthread", O_CREAT | O_RDWR, 0600, &attr);
    sem_init(&done, 0, 0);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = on_message;
    sev.sigev_value.sival_int = 7;
    printf("mq_notify(SIGEV_THREAD): %s\n", en(mq_notify(q, &sev)));
    printf("again: %s\n", en(mq_notify(q, &sev)));
    mq_send(q, "first", 5, 3);
    printf("wait: %s\n", en(wait_done()));

    /* the registration fired and is gone: a new one is accepted */
    sev.sigev_value.sival_int = 8;
    printf("register again: %s\n", en(mq_notify(q, &sev)));
    mq_send(q, "second", 6, 1);
    printf("wait: %s\n", en(wait_done()));

    /* removed before any message: no callback */
    sev.sigev_value.sival_int = 9;
    printf("register: %s\n", en(mq_notify(q, &sev)));
    printf("remove: %s\n", en(mq_notify(q, NULL)));
    mq_send(q, "third", 5, 2);
    int waited = wait_done();
    printf("wait: %s, calls %d\n", waited ? strerror(errno) : "ok", calls);
    char buf[64];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    ssize_t n = mq_timedreceive(q, buf, sizeof buf, NULL, &ts);
    printf("main receives %zd \"%.*s\"\n", n, (int)(n > 0 ? n : 0), buf);

    /* a bad descriptor as the notify socket, straight to the kernel */
    char cookie[32] = {0};
    struct sigevent raw = { .sigev_notify = SIGEV_THREAD, .sigev_signo = 999,
                            .sigev_value.sival_ptr = cookie };
    printf("raw bad fd: %s\n", en((int)syscall_mq_notify(q, &raw)));
    raw.sigev_signo = 1;
    printf("raw not a socket: %s\n", en((int)syscall_mq_notify(q, &raw)));
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    raw.sigev_signo = sv[0];
    printf("raw not netlink: %s\n", en((int)syscall_mq_notify(q, &raw)));
    raw.sigev_signo = socket(AF_NETLINK, SOCK_RAW, 0);
    raw.sigev_value.sival_ptr = (void *)8;
    printf("raw bad cookie: %s\n", en((int)syscall_mq_notify(q, &raw)));
    mq_close(q);
    mq_unlink("/emutrace-mqthread");
    return 0;
}
