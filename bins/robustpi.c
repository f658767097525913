/* robustpi: threads die holding robust mutexes (plain and priority-inheritance); a waiter that
 * was already asleep and a later locker both get EOWNERDEAD, make the mutex consistent, go on. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m;
static pthread_barrier_t held;

static void *die_holding(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_barrier_wait(&held);
    usleep(100000);                 /* the main thread is asleep on the mutex by now */
    return NULL;                    /* exits holding it */
}

static const char *en(int r)
{
    return r == 0 ? "ok" : r == EOWNERDEAD ? "EOWNERDEAD" : r == ENOTRECOVERABLE ? "ENOTRECOVERABLE" : strerror(r);
}

static void run(int protocol, const char *name)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutexattr_setprotocol(&a, protocol);
    pthread_mutex_init(&m, &a);
    pthread_barrier_init(&held, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, die_holding, NULL);
    pthread_barrier_wait(&held);
    int r = pthread_mutex_lock(&m);            /* waits until the holder dies */
    printf("%s: waiter: %s", name, en(r));
    const char *c = en(pthread_mutex_consistent(&m));
    printf(", consistent: %s, unlock: %s\n", c, en(pthread_mutex_unlock(&m)));
    pthread_join(t, NULL);

    pthread_create(&t, NULL, die_holding, NULL);
    pthread_barrier_wait(&held);
    pthread_join(t, NULL);                     /* dead before anyone waits */
    r = pthread_mutex_lock(&m);
    printf("%s: later locker: %s", name, en(r));
    printf(", unlock without consistent: %s", en(pthread_mutex_unlock(&m)));
    printf(", then: %s\n", en(pthread_mutex_lock(&m)));
    pthread_barrier_destroy(&held);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    run(PTHREAD_PRIO_NONE, "robust");
    run(PTHREAD_PRIO_INHERIT, "robust PI");
    return 0;
}
