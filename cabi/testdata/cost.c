/* cost.c: the costs of the C path (make cabi-bench; docs/performance.md).
 *
 *   switch  two C tasks handing control to each other with
 *           janus_scheduler_yield on 1 worker: ns per hand-over (the Go
 *           path's YieldPingPong)
 *   spawn   empty C tasks spawned into one nursery and awaited: ns per task
 *           on 1 and 2 workers (the Go path's SpawnJoin)
 *   memory  10,000 C tasks alive at once, each suspended in a yield: the
 *           process's resident memory growth per task (the Go path's
 *           ParkedTasks), first with fresh stacks, then with reused ones
 *
 * Each figure is the median of ROUNDS rounds after an untimed warm-up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdatomic.h>
#include "janus_sched.h"

enum { ROUNDS = 5, HANDOVERS = 200000, SPAWNS = 60000, PARKED = 10000 };

static double clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* The process's CPU time: on 1 worker, what an operation costs whatever
   else the machine runs (wall time also counts the time the worker's
   thread waited for a core). It includes the runtime's own threads. */
static double cpu_ns(void) { return clock_ns(CLOCK_PROCESS_CPUTIME_ID); }

static long rss_bytes(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2) {
        fprintf(stderr, "cost: cannot read /proc/self/statm\n");
        exit(1);
    }
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* What the root task measures; one scheduler per measurement. */
static double result, result_cpu;

static void run(uint32_t workers, int64_t (*fn)(void *)) {
    JanusSchedulerConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.worker_count = workers;
    cfg.budget.ops = 4000000000u;
    cfg.budget.memory = 1 << 30;
    cfg.budget.spawn_count = 65535;
    void *s = janus_scheduler_create(cfg);
    if (s == NULL || janus_scheduler_spawn((void *)fn, NULL) != JANUS_OK) {
        fprintf(stderr, "cost: cannot start\n");
        exit(1);
    }
    janus_scheduler_shutdown(s);
}

static int64_t pinger(void *arg) {
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) janus_scheduler_yield();
    return 0;
}

static int64_t switch_root(void *arg) {
    (void)arg;
    JanusNursery *n = janus_nursery_create();
    double t0 = now_ns(), c0 = cpu_ns();
    janus_nursery_spawn(n, pinger, (void *)(intptr_t)(HANDOVERS / 2));
    janus_nursery_spawn(n, pinger, (void *)(intptr_t)(HANDOVERS / 2));
    janus_nursery_await(n);
    result = (now_ns() - t0) / HANDOVERS;
    result_cpu = (cpu_ns() - c0) / HANDOVERS;
    janus_nursery_destroy(n);
    return 0;
}

static int64_t empty(void *arg) {
    (void)arg;
    return 0;
}

static int64_t spawn_root(void *arg) {
    (void)arg;
    JanusNursery *n = janus_nursery_create();
    double t0 = now_ns(), c0 = cpu_ns();
    for (int i = 0; i < SPAWNS; i++) janus_nursery_spawn(n, empty, NULL);
    janus_nursery_await(n);
    result = (now_ns() - t0) / SPAWNS;
    result_cpu = (cpu_ns() - c0) / SPAWNS;
    janus_nursery_destroy(n);
    return 0;
}

static atomic_int started, release;

static int64_t parked(void *arg) {
    (void)arg;
    atomic_fetch_add(&started, 1);
    while (!atomic_load(&release)) janus_scheduler_yield();
    return 0;
}

static int64_t memory_root(void *arg) {
    (void)arg;
    atomic_store(&started, 0);
    atomic_store(&release, 0);
    long before = rss_bytes();
    JanusNursery *n = janus_nursery_create();
    for (int i = 0; i < PARKED; i++) janus_nursery_spawn(n, parked, NULL);
    while (atomic_load(&started) < PARKED) janus_scheduler_yield();
    result = (double)(rss_bytes() - before) / PARKED;
    atomic_store(&release, 1);
    janus_nursery_await(n);
    janus_nursery_destroy(n);
    return 0;
}

static double measured_cpu;

/* measure returns the median wall time of ROUNDS rounds, and leaves the
   median CPU time in measured_cpu. */
static double measure(uint32_t workers, int64_t (*fn)(void *)) {
    double v[ROUNDS], c[ROUNDS];
    run(workers, fn); /* warm-up */
    for (int i = 0; i < ROUNDS; i++) {
        run(workers, fn);
        v[i] = result;
        c[i] = result_cpu;
    }
    measured_cpu = median(c, ROUNDS);
    return median(v, ROUNDS);
}

int main(void) {
    printf("C path costs, medians of %d rounds\n", ROUNDS);
    double w = measure(1, switch_root);
    printf("switch (hand-over, 1 worker)     %8.1f ns    (CPU time %.1f ns)\n", w, measured_cpu);
    w = measure(1, spawn_root);
    printf("spawn+run+join (1 worker)        %8.1f ns/task (CPU time %.1f ns)\n", w, measured_cpu);
    printf("spawn+run+join (2 workers)       %8.1f ns/task\n", measure(2, spawn_root));
    run(2, memory_root);
    double fresh = result;
    double reused = measure(2, memory_root);
    printf("memory per live task, fresh      %8.0f B\n", fresh);
    printf("memory per live task, steady     %8.0f B\n", reused);
    return 0;
}
