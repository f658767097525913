/* sysvipc: SysV shared memory, semaphores (SEM_UNDO) and message queues between processes,
 * and Linux's errors for bad input. Prints nothing that differs between runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *en(long r)
{
    if (r >= 0)
        return "ok";
    switch (errno) {
#define E(x) case x: return #x;
    E(EINVAL) E(ENOENT) E(EEXIST) E(EAGAIN) E(ENOMSG) E(E2BIG) E(EFAULT) E(EIDRM) E(ERANGE) E(EFBIG)
    E(EACCES) E(ENOSPC) E(EPERM) E(EINTR)
#undef E
    }
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", errno);
    return buf;
}

union semun { int val; struct semid_ds *buf; unsigned short *array; };

struct msg { long mtype; char text[64]; };

static void shm(void)
{
    int id = shmget(IPC_PRIVATE, 10000, IPC_CREAT | 0600);
    printf("shmget private: %s\n", en(id));
    char *p = shmat(id, NULL, 0);
    strcpy(p, "written by the parent");
    pid_t pid = fork();
    if (pid == 0) {
        char *q = shmat(id, NULL, 0);
        struct shmid_ds ds;
        shmctl(id, IPC_STAT, &ds);
        printf("child sees \"%s\", nattch %lu, size %zu\n", q, (unsigned long)ds.shm_nattch, ds.shm_segsz);
        strcpy(q + 100, "answer from the child");
        shmdt(q);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("parent reads \"%s\"\n", p + 100);
    struct shmid_ds ds;
    shmctl(id, IPC_STAT, &ds);
    printf("after the child: nattch %lu, mode %o, cpid is me %d\n", (unsigned long)ds.shm_nattch,
           ds.shm_perm.mode, ds.shm_cpid == getpid());
    printf("IPC_RMID while attached: %s\n", en(shmctl(id, IPC_RMID, NULL)));
    shmctl(id, IPC_STAT, &ds);
    printf("  key %d, SHM_DEST %d, still readable \"%.7s\"\n", ds.shm_perm.__key, !!(ds.shm_perm.mode & SHM_DEST), p);
    const char *d1 = en(shmdt(p)), *d2 = en(shmdt(p)), *d3 = en(shmctl(id, IPC_STAT, &ds));
    printf("shmdt: %s, again: %s, IPC_STAT after: %s\n", d1, d2, d3);

    key_t key = 0x5e0001;
    int a = shmget(key, 4096, IPC_CREAT | 0644);
    int b = shmget(key, 0, 0);
    printf("by key: same id %d; excl %s; bigger %s; missing %s; size 0 %s\n", a == b,
           en(shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0644)), en(shmget(key, 8192, 0)),
           en(shmget(0x5e0002, 4096, 0)), en(shmget(IPC_PRIVATE, 0, IPC_CREAT)));
    char *r = shmat(a, NULL, SHM_RDONLY);
    printf("SHM_RDONLY: %s, unaligned without SHM_RND: %s, bad id: %s\n", r == (void *)-1 ? "failed" : "ok",
           shmat(a, (void *)0x12345, 0) == (void *)-1 ? en(-1) : "ok",
           shmat(12345, NULL, 0) == (void *)-1 ? en(-1) : "ok");
    shmdt(r);
    shmctl(a, IPC_RMID, NULL);
    printf("bad cmd %s, bad shmdt %s\n", en(shmctl(a, 99, &ds)), en(shmdt((void *)0x1000)));
}

static void sem(void)
{
    int id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
    union semun u = {.val = 1};
    const char *sv = en(semctl(id, 0, SETVAL, u));
    printf("semget: %s, SETVAL: %s, GETVAL %d\n", en(id), sv, semctl(id, 0, GETVAL));
    struct sembuf down = {0, -1, SEM_UNDO}, up = {0, 1, 0};
    semop(id, &down, 1);
    pid_t pid = fork();
    if (pid == 0) {
        struct sembuf d = {0, -1, SEM_UNDO};
        int r = semop(id, &d, 1);                  /* waits for the parent's up */
        printf("child: semop down after the wait: %s, GETPID is me %d\n", en(r), semctl(id, 0, GETPID) == getpid());
        _exit(0);                                  /* SEM_UNDO gives the unit back */
    }
    usleep(100000);
    printf("parent: GETNCNT %d\n", semctl(id, 0, GETNCNT));
    semop(id, &up, 1);
    waitpid(pid, NULL, 0);
    printf("after the child's exit (undo): GETVAL %d\n", semctl(id, 0, GETVAL));
    struct sembuf nowait = {1, -1, IPC_NOWAIT};
    printf("IPC_NOWAIT on 0: %s\n", en(semop(id, &nowait, 1)));
    struct timespec ts = {0, 50000000};
    struct sembuf wait1 = {1, -1, 0};
    printf("semtimedop timeout: %s\n", en(semtimedop(id, &wait1, 1, &ts)));
    unsigned short all[2] = {5, 7}, got[2];
    u.array = all;
    semctl(id, 0, SETALL, u);
    u.array = got;
    semctl(id, 0, GETALL, u);
    printf("SETALL/GETALL: %d %d\n", got[0], got[1]);
    struct semid_ds ds;
    u.buf = &ds;
    semctl(id, 0, IPC_STAT, u);
    printf("IPC_STAT: nsems %lu mode %o\n", (unsigned long)ds.sem_nsems, ds.sem_perm.mode);
    struct sembuf big = {0, 32767, 0}, bad = {5, 1, 0};
    u.val = 40000;
    printf("ERANGE semop %s, SETVAL %s; sem_num out of range %s; nsops 0 %s; bad id %s\n",
           en(semop(id, &big, 1)), en(semctl(id, 0, SETVAL, u)), en(semop(id, &bad, 1)), en(semop(id, &up, 0)),
           en(semop(54321, &up, 1)));
    const char *rm = en(semctl(id, 0, IPC_RMID));
    printf("nsems 0 %s, too many %s, RMID %s, after RMID %s\n", en(semget(IPC_PRIVATE, 0, IPC_CREAT)),
           en(semget(IPC_PRIVATE, 40000, IPC_CREAT)), rm, en(semctl(id, 0, GETVAL)));
}

static void msg(void)
{
    int id = msgget(0x5e0003, IPC_CREAT | 0600);
    printf("msgget: %s, again same %d\n", en(id), msgget(0x5e0003, 0) == id);
    pid_t pid = fork();
    if (pid == 0) {
        struct msg m;
        for (int i = 0; i < 3; i++) {
            ssize_t n = msgrcv(id, &m, sizeof m.text, -2, 0);   /* lowest type <= 2 first */
            printf("child received type %ld \"%.*s\" (%zd)\n", m.mtype, (int)n, m.text, n);
        }
        _exit(0);
    }
    struct msg m = {3, "three"};
    msgsnd(id, &m, 5, 0);
    usleep(100000);
    m.mtype = 2;
    strcpy(m.text, "two");
    msgsnd(id, &m, 3, 0);
    m.mtype = 1;
    strcpy(m.text, "one");
    msgsnd(id, &m, 3, 0);
    usleep(100000);
    m.mtype = 2;
    strcpy(m.text, "two again");
    msgsnd(id, &m, 9, 0);
    waitpid(pid, NULL, 0);
    struct msqid_ds ds;
    msgctl(id, IPC_STAT, &ds);
    printf("left: qnum %lu, cbytes %lu, qbytes %lu\n", (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes,
           (unsigned long)ds.msg_qbytes);
    ssize_t n = msgrcv(id, &m, 2, 0, IPC_NOWAIT);
    printf("too small: %s; ", en(n));
    n = msgrcv(id, &m, 2, 0, IPC_NOWAIT | MSG_NOERROR);
    printf("MSG_NOERROR: %zd \"%.2s\"; empty: %s\n", n, m.text, en(msgrcv(id, &m, 64, 0, IPC_NOWAIT)));
    m.mtype = 0;
    printf("mtype 0 %s, negative size %s, too big %s, bad id %s", en(msgsnd(id, &m, 1, 0)),
           en(msgsnd(id, &m, (size_t)-1, 0)), en(msgsnd(id, &m, 9000, 0)), en(msgsnd(99999, &m, 1, 0)));
    const char *qr = en(msgctl(id, IPC_RMID, NULL));
    printf(", RMID %s, after %s\n", qr, en(msgctl(id, IPC_STAT, &ds)));
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    shm();
    sem();
    msg();
    return 0;
}
