/* Deterministic mode: the seeded driver runs the C program one step at a
 * time. Two runs with one seed and worker count write byte-identical
 * traces and observe the same interleaving (each task logs its id at every
 * resumption); another seed on 4 workers writes a different trace. The
 * traces are left in the directory given as argv[1] for run.sh, which
 * hands them to `cbcsim diff` and `cbcsim export`. */
#include <string.h>
#include "janus_sched.h"
#include "check.h"

enum { TASKS = 200, YIELDS = 10, SIBLINGS = 8, LOG_MAX = 1 << 16 };

static int order[LOG_MAX];
static int order_len;
static int cancelled_seen, started;

static void note(int id) {
    CHECK(order_len < LOG_MAX, "log full");
    order[order_len++] = id;
}

static int64_t yielder(void *arg) {
    int id = (int)(intptr_t)arg;
    int local[16];
    for (int i = 0; i < 16; i++) local[i] = id * 16 + i;
    for (int y = 0; y < YIELDS; y++) {
        CHECK(janus_scheduler_yield() == JANUS_OK, "yield");
        note(id);
        for (int i = 0; i < 16; i++) CHECK(local[i] == id * 16 + i, "stack of task %d", id);
    }
    return 0;
}

static int64_t sibling(void *arg) {
    int id = (int)(intptr_t)arg;
    started++;
    for (int i = 0; i < 100000; i++) {
        if (janus_scheduler_yield() == JANUS_E_CANCELLED) {
            cancelled_seen++;
            note(-id);
            return JANUS_E_CANCELLED;
        }
        note(id);
    }
    CHECK(0, "sibling %d never cancelled", id);
    return 0;
}

/* Fails once every sibling has started (a child not yet started when its
   nursery is cancelled never runs), and a few yields later. */
static int64_t failing(void *arg) {
    (void)arg;
    for (int i = 0; i < 100000 && started < SIBLINGS; i++) janus_scheduler_yield();
    for (int i = 0; i < 3; i++) janus_scheduler_yield();
    return 99;
}

static int64_t root(void *arg) {
    (void)arg;
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL, "nursery");
    for (int i = 0; i < TASKS; i++) CHECK(janus_nursery_spawn(n, yielder, (void *)(intptr_t)(i + 1)) != NULL, "spawn");
    JanusNurseryResult r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_SUCCESS, "yielders: %d", r.kind);
    janus_nursery_destroy(n);

    n = janus_nursery_create();
    for (int i = 0; i < SIBLINGS; i++) CHECK(janus_nursery_spawn(n, sibling, (void *)(intptr_t)(1000 + i)) != NULL, "spawn");
    CHECK(janus_nursery_spawn(n, failing, NULL) != NULL, "spawn");
    r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_CHILD_FAILED && r.error == 99, "fail_fast: %d %ld", r.kind, (long)r.error);
    janus_nursery_destroy(n);
    CHECK(janus_scheduler_spawn((void *)yielder, NULL) == JANUS_E_NURSERY_NOT_ACTIVE, "spawn without a nursery");
    atomic_store(&test_passed, 1);
    return 0;
}

static char *slurp(const char *path, long *len) {
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)*len + 1);
    CHECK(b != NULL && fread(b, 1, (size_t)*len, f) == (size_t)*len, "read %s", path);
    fclose(f);
    return b;
}

/* run runs the program once and returns a copy of its interleaving. */
static int *run(uint32_t workers, uint64_t seed, const char *trace, int *len) {
    JanusSchedulerConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.worker_count = workers;
    cfg.deterministic = 1;
    cfg.deterministic_seed = seed;
    cfg.trace_path = trace;
    cfg.budget.ops = 100000;
    cfg.budget.memory = 1 << 20;
    cfg.budget.spawn_count = 1000;
    order_len = 0;
    cancelled_seen = 0;
    started = 0;
    atomic_store(&test_passed, 0);
    void *s = janus_scheduler_create(cfg);
    CHECK(s != NULL, "create deterministic");
    CHECK(janus_scheduler_spawn((void *)root, NULL) == JANUS_OK, "spawn");
    janus_scheduler_shutdown(s);
    CHECK(atomic_load(&test_passed) == 1, "seed %lu: root did not pass", (unsigned long)seed);
    CHECK(cancelled_seen == SIBLINGS, "seed %lu: %d of %d siblings saw JANUS_E_CANCELLED", (unsigned long)seed, cancelled_seen, SIBLINGS);
    int *copy = malloc(sizeof(int) * (size_t)order_len);
    memcpy(copy, order, sizeof(int) * (size_t)order_len);
    *len = order_len;
    return copy;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    char a[4096], b[4096], c[4096];
    snprintf(a, sizeof a, "%s/c-seed7-w2-a.trace", dir);
    snprintf(b, sizeof b, "%s/c-seed7-w2-b.trace", dir);
    snprintf(c, sizeof c, "%s/c-seed8-w4.trace", dir);
    int la, lb, lc;
    int *oa = run(2, 7, a, &la);
    int *ob = run(2, 7, b, &lb);
    int *oc = run(4, 8, c, &lc);
    long na, nb, nc;
    char *ta = slurp(a, &na), *tb = slurp(b, &nb), *tc = slurp(c, &nc);
    CHECK(na > 0 && na == nb && memcmp(ta, tb, (size_t)na) == 0, "seed 7 twice: traces differ (%ld and %ld bytes)", na, nb);
    CHECK(la == lb && memcmp(oa, ob, sizeof(int) * (size_t)la) == 0, "seed 7 twice: interleavings differ");
    CHECK(nc != na || memcmp(ta, tc, (size_t)na) != 0, "seed 8 on 4 workers wrote seed 7's trace");
    CHECK(lc != la || memcmp(oa, oc, sizeof(int) * (size_t)la) != 0, "seed 8 on 4 workers: the same interleaving");
    printf("test_deterministic: seed 7 on 2 workers twice: identical traces (%ld bytes) and interleavings; seed 8 on 4 workers: different: ok\n", na);
    return 0;
}
