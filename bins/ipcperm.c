/* SysV IPC permissions as Linux checks them (ipc/util.c ipcperms, ipcctl_obtain_check): the mode
   bits of the caller's class for shmget/semget/msgget of an existing key, shmat, semop, semctl,
   msgsnd, msgrcv and the STAT commands; IPC_SET and IPC_RMID for the owner or creator only;
   root (CAP_IPC_OWNER, CAP_SYS_ADMIN, CAP_SYS_RESOURCE) passes them all. Run it as root and as
   an ordinary user: ids are never printed, only what each call answers. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

static const char *r(long v)
{
    static char buf[8][32];
    static int i;
    i = (i + 1) % 8;
    if (v >= 0)
        return "ok";
    snprintf(buf[i], sizeof buf[i], "%s", strerrorname_np(errno));
    return buf[i];
}

static void try_shm(key_t key)
{
    int id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0400);     /* the owner may only read */
    printf("shm: create 0400 %s\n", r(id));
    printf("shm: get for 0600 %s, for 0400 %s, for 0 %s\n", r(shmget(key, 0, 0600)),
           r(shmget(key, 0, 0400)), r(shmget(key, 0, 0)));
    void *p = shmat(id, NULL, 0);
    printf("shm: attach rw %s\n", r(p == (void *)-1 ? -1 : 0));
    p = shmat(id, NULL, SHM_RDONLY);
    printf("shm: attach ro %s\n", r(p == (void *)-1 ? -1 : 0));
    if (p != (void *)-1)
        shmdt(p);
    p = shmat(id, NULL, SHM_RDONLY | SHM_EXEC);
    printf("shm: attach ro+exec %s\n", r(p == (void *)-1 ? -1 : 0));
    if (p != (void *)-1)
        shmdt(p);
    struct shmid_ds ds;
    printf("shm: IPC_STAT %s\n", r(shmctl(id, IPC_STAT, &ds)));
    ds.shm_perm.mode = 0000;
    printf("shm: IPC_SET mode 0 %s\n", r(shmctl(id, IPC_SET, &ds)));
    printf("shm: IPC_STAT after %s\n", r(shmctl(id, IPC_STAT, &ds)));
    ds.shm_perm.uid = (uid_t)-1;
    printf("shm: IPC_SET uid -1 %s\n", r(shmctl(id, IPC_SET, &ds)));
    ds.shm_perm.uid = getuid();
    ds.shm_perm.mode = 0600;
    printf("shm: IPC_SET mode 0600 %s\n", r(shmctl(id, IPC_SET, &ds)));
    p = shmat(id, NULL, 0);
    printf("shm: attach rw now %s\n", r(p == (void *)-1 ? -1 : 0));
    if (p != (void *)-1)
        shmdt(p);
    /* give it away: the creator still counts as an owner */
    ds.shm_perm.uid = 4242;
    ds.shm_perm.gid = 4242;
    ds.shm_perm.mode = 0060;
    printf("shm: IPC_SET to uid 4242 mode 0060 %s\n", r(shmctl(id, IPC_SET, &ds)));
    printf("shm: IPC_STAT as creator %s\n", r(shmctl(id, IPC_STAT, &ds)));
    printf("shm: owner %u mode %o\n", ds.shm_perm.uid == 4242 ? 4242 : 0, ds.shm_perm.mode & 0777);
    printf("shm: SHM_STAT_ANY needs no permission: %s\n", r(shmctl(0, SHM_STAT_ANY, &ds) < 0 && errno != EINVAL ? -1 : 0));
    printf("shm: IPC_RMID as creator %s\n", r(shmctl(id, IPC_RMID, NULL)));
}

static void try_sem(key_t key)
{
    int id = semget(key, 2, IPC_CREAT | IPC_EXCL | 0400);
    printf("sem: create 0400 %s\n", r(id));
    printf("sem: get for 0200 %s, 3 semaphores %s\n", r(semget(key, 1, 0200)), r(semget(key, 3, 0200)));
    struct sembuf up = { 0, 1, IPC_NOWAIT }, zero = { 0, 0, IPC_NOWAIT }, far = { 5, 1, 0 };
    printf("sem: semop +1 %s, wait-for-zero %s, semnum 5 %s\n", r(semop(id, &up, 1)),
           r(semop(id, &zero, 1)), r(semop(id, &far, 1)));
    printf("sem: GETVAL %s, SETVAL %s, GETALL %s\n", r(semctl(id, 0, GETVAL)),
           r(semctl(id, 0, SETVAL, 1)), r(semctl(id, 0, GETALL, (unsigned short[2]){0})));
    struct semid_ds ds;
    printf("sem: IPC_STAT %s\n", r(semctl(id, 0, IPC_STAT, &ds)));
    ds.sem_perm.mode = 0200;
    printf("sem: IPC_SET mode 0200 %s\n", r(semctl(id, 0, IPC_SET, &ds)));
    printf("sem: semop +1 %s, GETVAL %s, IPC_STAT %s\n", r(semop(id, &up, 1)),
           r(semctl(id, 0, GETVAL)), r(semctl(id, 0, IPC_STAT, &ds)));
    printf("sem: IPC_RMID %s\n", r(semctl(id, 0, IPC_RMID)));
}

static void try_msg(key_t key)
{
    int id = msgget(key, IPC_CREAT | IPC_EXCL | 0200);          /* the owner may only send */
    printf("msg: create 0200 %s\n", r(id));
    printf("msg: get for 0400 %s, for 0200 %s\n", r(msgget(key, 0400)), r(msgget(key, 0200)));
    struct { long mtype; char text[8]; } m = { 1, "hello" };
    printf("msg: send %s\n", r(msgsnd(id, &m, 6, IPC_NOWAIT)));
    printf("msg: receive %s, copy %s\n", r(msgrcv(id, &m, 8, 0, IPC_NOWAIT)),
           r(msgrcv(id, &m, 8, 0, IPC_NOWAIT | MSG_COPY)));
    struct msqid_ds ds;
    printf("msg: IPC_STAT %s\n", r(msgctl(id, IPC_STAT, &ds)));
    printf("msg: MSG_STAT_ANY needs no permission: %s\n", r(msgctl(0, MSG_STAT_ANY, &ds) < 0 && errno != EINVAL ? -1 : 0));
    struct msqid_ds set;
    memset(&set, 0, sizeof set);
    set.msg_perm.uid = getuid();
    set.msg_perm.gid = getgid();
    set.msg_perm.mode = 0600;
    set.msg_qbytes = 16384 * 2;                                  /* above msgmnb: CAP_SYS_RESOURCE */
    printf("msg: IPC_SET qbytes 32768 %s\n", r(msgctl(id, IPC_SET, &set)));
    set.msg_qbytes = 16384;
    printf("msg: IPC_SET mode 0600 %s\n", r(msgctl(id, IPC_SET, &set)));
    printf("msg: receive %s\n", r(msgrcv(id, &m, 8, 0, IPC_NOWAIT)));
    printf("msg: IPC_RMID %s\n", r(msgctl(id, IPC_RMID, NULL)));
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    key_t base = 0x5e000000 + (getpid() & 0xffff) * 4;
    printf("uid %s\n", getuid() == 0 ? "root" : "user");
    try_shm(base);
    try_sem(base + 1);
    try_msg(base + 2);
    return 0;
}
