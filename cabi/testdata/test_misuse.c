/* test_misuse.c: what a C program must not do is detected, not left to
 * hang or to corrupt memory (docs/c-abi.md#what-a-task-must-not-do):
 *
 *   - a task frame that overflows its stack by up to the guard's 64 KiB,
 *     built without -fstack-clash-protection, faults at once (SIGSEGV)
 *     instead of writing into a neighbour's stack;
 *   - pthread_exit from a task ends the process with a message (SIGABRT)
 *     instead of hanging janus_scheduler_shutdown;
 *   - a trace_path that is a directory, and a JANUS_STACK_SIZE that is not
 *     a size, make janus_scheduler_create return NULL with a message.
 *
 * The misuses that end the process run in a child: this program executed
 * again with the case's name, under an alarm so that a hang is a failure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "janus_sched.h"
#include "check.h"

/* overflow recurses in frames of 40 KiB, writing each frame's lowest
   byte first: the seventh passes the 256 KiB stack by about 24 KiB. Built
   without stack-clash probes, so that only the guard's size stops it. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-stack-clash-protection")))
#endif
__attribute__((noinline)) static int overflow(int depth) {
    volatile char frame[40 << 10];
    frame[0] = (char)depth;
    if (depth == 0) return frame[0];
    return overflow(depth - 1) + frame[sizeof frame - 1];
}

/* The overflowing task first makes sure a neighbour task has its stack:
   mapped next, that stack lies just below this one's guard, where a frame
   that jumps the guard would write without a fault. */
static atomic_int neighbour_started, overflow_done;

static int64_t neighbour(void *arg) {
    (void)arg;
    atomic_store(&neighbour_started, 1);
    while (!atomic_load(&overflow_done)) janus_scheduler_yield();
    return 0;
}

static int64_t overflow_task(void *arg) {
    (void)arg;
    JanusNursery *n = janus_nursery_create();
    if (n == NULL || janus_nursery_spawn(n, neighbour, NULL) == NULL) return 3;
    while (!atomic_load(&neighbour_started)) janus_scheduler_yield();
    int r = overflow(8);
    atomic_store(&overflow_done, 1);
    janus_nursery_await(n);
    janus_nursery_destroy(n);
    return r;
}

static int64_t exit_task(void *arg) {
    (void)arg;
    pthread_exit(NULL);
}

static void *create(int det, const char *trace_path) {
    JanusSchedulerConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.worker_count = 2;
    cfg.profile = JANUS_PROFILE_SERVICE;
    cfg.deterministic = det;
    cfg.trace_path = trace_path;
    return janus_scheduler_create(cfg);
}

/* child runs one misuse; it returns only when the misuse went unnoticed. */
static int child(const char *which) {
    alarm(20);
    if (strcmp(which, "stack-env") == 0 || strcmp(which, "trace-dir") == 0) {
        /* "/" is a directory: refused at create, where the program can
           still react, not on stderr at shutdown. */
        void *s = which[0] == 's' ? create(0, NULL) : create(1, "/");
        return s == NULL && janus_last_error() == JANUS_E_INVALID ? 0 : 1;
    }
    void *s = create(0, NULL);
    if (s == NULL) return 3;
    JanusTaskFn fn = strcmp(which, "overflow") == 0 ? overflow_task : exit_task;
    if (janus_scheduler_spawn((void *)fn, NULL) != JANUS_OK) return 3;
    janus_scheduler_shutdown(s);
    return 0; /* the misuse went unnoticed */
}

/* run executes this program again as child which, with env added to the
   environment, stderr to errpath; it returns the wait status. */
static int run(const char *self, const char *which, const char *env, const char *errpath) {
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        FILE *e = freopen(errpath, "w", stderr);
        (void)e;
        if (env != NULL) putenv((char *)env);
        execl(self, self, "--child", which, (char *)NULL);
        _exit(127);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    return status;
}

static int contains(const char *path, const char *text) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(argv[2]);
    atomic_store(&test_passed, 0); /* check.h's flag: no task of this process reports */
    CHECK(argc == 2, "usage: test_misuse DIR");
    char errpath[4096];

    snprintf(errpath, sizeof errpath, "%s/misuse-overflow.err", argv[1]);
    int st = run(argv[0], "overflow", NULL, errpath);
    /* The Go runtime reports the fault in C code ("SIGSEGV ... signal
       arrived during cgo execution") and ends the process, by a signal or
       exit status 2: a SIGSEGV at the overflow, never a run that ends. */
    CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) != 2) && contains(errpath, "SIGSEGV"),
          "a frame past the stack: wait status %#x, want a SIGSEGV (see %s)", st, errpath);

    snprintf(errpath, sizeof errpath, "%s/misuse-exit.err", argv[1]);
    st = run(argv[0], "pthread-exit", NULL, errpath);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT && contains(errpath, "janus: a C task ended its worker thread"),
          "pthread_exit in a task: wait status %#x, want SIGABRT and a message (SIGALRM %d: it hung; see %s)", st, SIGALRM, errpath);

    snprintf(errpath, sizeof errpath, "%s/misuse-env.err", argv[1]);
    st = run(argv[0], "stack-env", "JANUS_STACK_SIZE=12abc", errpath);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && contains(errpath, "JANUS_STACK_SIZE=\"12abc\" is not a stack size"),
          "JANUS_STACK_SIZE=12abc: wait status %#x, want create to return NULL with a message (see %s)", st, errpath);

    snprintf(errpath, sizeof errpath, "%s/misuse-trace.err", argv[1]);
    st = run(argv[0], "trace-dir", NULL, errpath);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && contains(errpath, "trace_path \"/\" cannot be written"),
          "trace_path / (a directory): wait status %#x, want create to return NULL with a message (see %s)", st, errpath);
    printf("test_misuse: overflow faults at once, pthread_exit aborts with a message, bad trace_path and JANUS_STACK_SIZE refused at create: ok\n");
    return 0;
}
