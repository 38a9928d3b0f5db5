/* done_when.c: the acceptance program of the C ABI, written from
 * janus_sched.h and docs/c-abi.md alone: 2,000 tasks of 10 yields each on
 * 2 workers, a fail_fast nursery with 8 cancellable siblings, a spawn
 * refused for lack of a nursery, and a bad config refused. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "janus_sched.h"

#define EXPECT(cond)                                                   \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "done_when.c:%d: %s\n", __LINE__, #cond); \
            failures++;                                                \
        }                                                              \
    } while (0)

enum { TASKS = 2000, YIELDS = 10, SIBLINGS = 8, E_FAILED = 17 };

static int failures;
static long yields_done; /* written by tasks of one nursery at a time: see below */
static int started, cancelled;
static int passed;

static int64_t ten_yields(void *arg) {
    long id = (long)(intptr_t)arg;
    long mine = id * 1000003; /* on the task's stack across every yield */
    for (int i = 0; i < YIELDS; i++) {
        if (janus_scheduler_yield() != JANUS_OK) return 1;
        if (mine != id * 1000003) return 2;
        __atomic_fetch_add(&yields_done, 1, __ATOMIC_RELAXED);
    }
    return 0;
}

static int64_t sibling(void *arg) {
    (void)arg;
    __atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
    for (long i = 0; i < 10000000; i++) {
        if (janus_scheduler_yield() == JANUS_E_CANCELLED) {
            __atomic_fetch_add(&cancelled, 1, __ATOMIC_SEQ_CST);
            return JANUS_E_CANCELLED;
        }
    }
    return 3; /* never cancelled */
}

static int64_t failer(void *arg) {
    (void)arg;
    /* Fail once every sibling runs: a child not yet started when its
       nursery is cancelled never runs (docs/c-abi.md). */
    for (long i = 0; i < 10000000 && __atomic_load_n(&started, __ATOMIC_SEQ_CST) < SIBLINGS; i++) janus_scheduler_yield();
    return E_FAILED;
}

static int64_t program(void *arg) {
    (void)arg;
    /* A spawn with no nursery open is refused. */
    EXPECT(janus_scheduler_spawn((void *)ten_yields, NULL) == JANUS_E_NURSERY_NOT_ACTIVE);

    /* 2,000 tasks of 10 yields each. */
    JanusNursery *n = janus_nursery_create();
    EXPECT(n != NULL);
    for (long i = 0; i < TASKS; i++) EXPECT(janus_nursery_spawn(n, ten_yields, (void *)(intptr_t)i) != NULL);
    JanusNurseryResult r = janus_nursery_await(n);
    EXPECT(r.kind == JANUS_NURSERY_SUCCESS && r.error == 0);
    EXPECT(__atomic_load_n(&yields_done, __ATOMIC_RELAXED) == (long)TASKS * YIELDS);
    janus_nursery_destroy(n);

    /* fail_fast: one child fails, its 8 siblings are cancelled. */
    n = janus_nursery_create();
    EXPECT(n != NULL);
    for (int i = 0; i < SIBLINGS; i++) EXPECT(janus_nursery_spawn(n, sibling, NULL) != NULL);
    EXPECT(janus_nursery_spawn(n, failer, NULL) != NULL);
    r = janus_nursery_await(n);
    EXPECT(r.kind == JANUS_NURSERY_CHILD_FAILED && r.error == E_FAILED);
    EXPECT(__atomic_load_n(&cancelled, __ATOMIC_SEQ_CST) == SIBLINGS);
    janus_nursery_destroy(n);
    passed = 1;
    return 0;
}

int main(void) {
    JanusSchedulerConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    /* A bad config is refused. */
    cfg.worker_count = 1000;
    EXPECT(janus_scheduler_create(cfg) == NULL);

    cfg.worker_count = 2;
    cfg.profile = JANUS_PROFILE_SERVICE;
    cfg.budget.ops = 100000;
    cfg.budget.memory = 1 << 20;
    cfg.budget.spawn_count = 4000; /* spawns per nursery */
    void *s = janus_scheduler_create(cfg);
    EXPECT(s != NULL);
    if (s == NULL) return 1;
    EXPECT(janus_scheduler_spawn((void *)program, NULL) == JANUS_OK);
    janus_scheduler_shutdown(s);
    EXPECT(passed);
    if (failures > 0) return 1;
    printf("test_done_when: 2,000 tasks x 10 yields on 2 workers, fail_fast with 8 cancelled siblings, spawn refused without a nursery, bad config refused: ok\n");
    return 0;
}
