/* Thousands of tasks, each yielding many times with data on its C stack
 * (a local array, deep recursion, floating point in registers) checked
 * after every yield, on 2 and 4 workers. Counts how many resumptions
 * happened on another thread than the previous one: C frames migrate. */
#include <pthread.h>
#include <string.h>
#include "janus_sched.h"
#include "check.h"

enum { TASKS = 4000, YIELDS = 50, DEPTH = 8 };

static atomic_long finished, migrations, yields_ok;

static int64_t deep(int64_t id, int depth, pthread_t *last) {
    volatile char pad[256]; /* frames big enough to span pages at depth */
    memset((char *)pad, (int)(id + depth) & 0x7f, sizeof pad);
    if (depth > 0) {
        int64_t r = deep(id, depth - 1, last);
        for (size_t i = 0; i < sizeof pad; i++) CHECK(pad[i] == (char)((id + depth) & 0x7f), "pad of task %ld depth %d", (long)id, depth);
        return r + depth;
    }
    int rc = janus_scheduler_yield();
    CHECK(rc == JANUS_OK, "yield from depth: %d", rc);
    pthread_t self = pthread_self();
    if (!pthread_equal(self, *last)) atomic_fetch_add(&migrations, 1);
    *last = self;
    return 0;
}

static int64_t worker(void *arg) {
    int64_t id = (int64_t)(intptr_t)arg;
    uint64_t data[32];
    double f = (double)id * 1.5;
    for (int i = 0; i < 32; i++) data[i] = (uint64_t)id * 2654435761u + (uint64_t)i;
    pthread_t last = pthread_self();
    for (int y = 0; y < YIELDS; y++) {
        int rc = janus_scheduler_yield();
        CHECK(rc == JANUS_OK, "task %ld yield %d: %d", (long)id, y, rc);
        pthread_t self = pthread_self();
        if (!pthread_equal(self, last)) atomic_fetch_add(&migrations, 1);
        last = self;
        for (int i = 0; i < 32; i++) CHECK(data[i] == (uint64_t)id * 2654435761u + (uint64_t)i, "task %ld word %d after yield %d", (long)id, i, y);
        CHECK(f == (double)id * 1.5, "task %ld float after yield %d", (long)id, y);
        f += 1.0;
        f -= 1.0;
        atomic_fetch_add(&yields_ok, 1);
    }
    CHECK(deep(id, DEPTH, &last) == DEPTH * (DEPTH + 1) / 2, "task %ld recursion", (long)id);
    CHECK(janus_in_task(), "task %ld not in a task", (long)id);
    atomic_fetch_add(&finished, 1);
    return 0;
}

static int64_t root(void *arg) {
    (void)arg;
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL, "nursery: %d", janus_last_error());
    for (intptr_t i = 0; i < TASKS; i++) CHECK(janus_nursery_spawn(n, worker, (void *)i) != NULL, "spawn %ld: %d", (long)i, janus_last_error());
    JanusNurseryResult r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_SUCCESS, "await: kind %d error %ld", r.kind, (long)r.error);
    CHECK(atomic_load(&finished) == TASKS, "await returned with %ld of %d finished", atomic_load(&finished), TASKS);
    janus_nursery_destroy(n);
    atomic_store(&test_passed, 1);
    return 0;
}

int main(void) {
    uint32_t workers[] = {2, 4};
    for (int w = 0; w < 2; w++) {
        atomic_store(&finished, 0);
        atomic_store(&migrations, 0);
        atomic_store(&yields_ok, 0);
        atomic_store(&test_passed, 0);
        JanusSchedulerConfig cfg = {0};
        cfg.worker_count = workers[w];
        cfg.budget.ops = 1000000;
        cfg.budget.memory = 1 << 20;
        cfg.budget.spawn_count = 65535; /* the default (64) is per nursery pool */
        void *s = janus_scheduler_create(cfg);
        CHECK(s != NULL, "create");
        CHECK(janus_scheduler_spawn((void *)root, NULL) == JANUS_OK, "top-level spawn");
        janus_scheduler_shutdown(s);
        CHECK(atomic_load(&test_passed), "root did not finish");
        CHECK(atomic_load(&yields_ok) == (long)TASKS * YIELDS, "yields %ld", atomic_load(&yields_ok));
        printf("test_yield: %u workers: %d tasks x %d yields (+%d from depth %d) ok, %ld resumptions on another thread\n",
               workers[w], TASKS, YIELDS, 1, DEPTH, atomic_load(&migrations));
    }
    return 0;
}
