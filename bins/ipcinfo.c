/* The SysV IPC INFO commands: shmctl IPC_INFO/SHM_INFO, semctl IPC_INFO/SEM_INFO, msgctl
   IPC_INFO/MSG_INFO, before and after making one object of each kind, and what they return
   (the highest slot in use). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

static void show(const char *when)
{
    struct shminfo si;
    struct shm_info su;
    struct seminfo mi;
    struct msginfo qi;
    int r1 = shmctl(0, IPC_INFO, (struct shmid_ds *)&si);
    printf("%s shm IPC_INFO = %d: shmmax %lu shmmin %lu shmmni %lu shmseg %lu shmall %lu\n", when, r1,
           si.shmmax, si.shmmin, si.shmmni, si.shmseg, si.shmall);
    int r2 = shmctl(0, SHM_INFO, (struct shmid_ds *)&su);
    printf("%s shm SHM_INFO = %d: used_ids %d shm_tot %lu shm_rss %lu shm_swp %lu\n", when, r2,
           su.used_ids, su.shm_tot, su.shm_rss, su.shm_swp);
    int r3 = semctl(0, 0, IPC_INFO, &mi);
    printf("%s sem IPC_INFO = %d: semmap %d semmni %d semmns %d semmnu %d semmsl %d semopm %d "
           "semume %d semusz %d semvmx %d semaem %d\n", when, r3, mi.semmap, mi.semmni, mi.semmns,
           mi.semmnu, mi.semmsl, mi.semopm, mi.semume, mi.semusz, mi.semvmx, mi.semaem);
    int r4 = semctl(0, 0, SEM_INFO, &mi);
    printf("%s sem SEM_INFO = %d: semusz %d semaem %d\n", when, r4, mi.semusz, mi.semaem);
    int r5 = msgctl(0, IPC_INFO, (struct msqid_ds *)&qi);
    printf("%s msg IPC_INFO = %d: msgpool %d msgmap %d msgmax %d msgmnb %d msgmni %d msgssz %d "
           "msgtql %d msgseg %d\n", when, r5, qi.msgpool, qi.msgmap, qi.msgmax, qi.msgmnb, qi.msgmni,
           qi.msgssz, qi.msgtql, qi.msgseg);
    int r6 = msgctl(0, MSG_INFO, (struct msqid_ds *)&qi);
    printf("%s msg MSG_INFO = %d: msgpool %d msgmap %d msgtql %d\n", when, r6, qi.msgpool, qi.msgmap,
           qi.msgtql);
}

/* argv[1] "fill": make objects until the limits IPC_INFO reported stop it */
static int fill(void)
{
    struct shminfo si;
    struct seminfo mi;
    struct msginfo qi;
    shmctl(0, IPC_INFO, (struct shmid_ds *)&si);
    semctl(0, 0, IPC_INFO, &mi);
    msgctl(0, IPC_INFO, (struct msqid_ds *)&qi);
    printf("reported: shmmni %lu semmni %d semmns %d msgmni %d msgmnb %d\n", si.shmmni, mi.semmni,
           mi.semmns, qi.msgmni, qi.msgmnb);
    int ids[64], n = 0, id;
    while (n < 64 && (id = shmget(IPC_PRIVATE, 4096, 0600)) >= 0)
        ids[n++] = id;
    printf("segments made: %d, then %s\n", n, strerrorname_np(errno));
    while (n > 0)
        shmctl(ids[--n], IPC_RMID, NULL);
    int sems = 0;
    while (n < 64 && (id = semget(IPC_PRIVATE, 100, 0600)) >= 0) {
        ids[n++] = id;
        sems += 100;
    }
    printf("semaphores made: %d, then %s\n", sems, strerrorname_np(errno));
    while (n > 0)
        semctl(ids[--n], 0, IPC_RMID);
    int q = msgget(IPC_PRIVATE, 0600);
    struct { long t; char x[1000]; } m = { 1, "x" };
    int sent = 0;
    while (q >= 0 && msgsnd(q, &m, sizeof m.x, IPC_NOWAIT) == 0)
        sent += sizeof m.x;
    printf("bytes queued: %d, then %s\n", sent, strerrorname_np(errno));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "fill") == 0)
        return fill();
    show("empty");
    int shm = shmget(IPC_PRIVATE, 10000, 0600);
    int sem = semget(IPC_PRIVATE, 3, 0600);
    int msg = msgget(IPC_PRIVATE, 0600);
    struct { long t; char x[100]; } m = { 1, "x" };
    msgsnd(msg, &m, 100, 0);
    msgsnd(msg, &m, 50, 0);
    show("one each");
    shmctl(shm, IPC_RMID, NULL);
    semctl(sem, 0, IPC_RMID);
    msgctl(msg, IPC_RMID, NULL);
    return 0;
}
