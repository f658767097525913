/* threads: `threads N` (default 2) starts N threads that each add 1 to a
 * shared counter 1000 times under a mutex, then wait at a barrier built from
 * a mutex and a condition variable; main joins them and prints the total. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ADDS 1000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_here = PTHREAD_COND_INITIALIZER;
static long counter;
static int arrived, nthreads;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ADDS; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);               /* barrier */
    if (++arrived == nthreads)
        pthread_cond_broadcast(&all_here);
    while (arrived < nthreads)
        pthread_cond_wait(&all_here, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 2;
    if (nthreads < 1 || nthreads > 256) {
        fprintf(stderr, "usage: threads [1..256]\n");
        return 2;
    }
    pthread_t *tids = calloc(nthreads, sizeof *tids);
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&tids[i], NULL, worker, NULL) != 0) {
            printf("pthread_create failed\n");
            return 1;
        }
    for (int i = 0; i < nthreads; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    printf("total = %ld\n", counter);
    printf("all %d threads done\n", nthreads);
    return 0;
}
