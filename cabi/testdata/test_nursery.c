/* Nurseries from C: fail_fast with a failing child and siblings that see
 * JANUS_E_CANCELLED; nested nurseries (success, a failure propagated up,
 * cancellation reaching grandchildren); destroy without await; the order
 * in which nurseries must end. */
#include <string.h>
#include "janus_sched.h"
#include "check.h"

enum { SIBLINGS = 8 };

static atomic_int siblings_cancelled, grandchildren_cancelled, grandchildren_ok;
/* Tasks of until_cancelled that have started. A child queued but not yet
   started when its nursery is cancelled never runs (docs/semantics.md), so
   the failing child waits for its siblings to start: then every one of them
   must see JANUS_E_CANCELLED. */
static atomic_int started;

struct failure {
    int64_t code;
    int want_started;
};

static int64_t fail_after_yields(void *arg) {
    struct failure *f = arg;
    for (int i = 0; i < 1000000 && atomic_load(&started) < f->want_started; i++) janus_scheduler_yield();
    CHECK(atomic_load(&started) >= f->want_started, "siblings never started: %d", atomic_load(&started));
    return f->code;
}

/* Yields until cancelled; the bound makes a missed cancellation fail the
   test instead of hanging it. */
static int64_t until_cancelled(void *arg) {
    atomic_int *counter = arg;
    atomic_fetch_add(&started, 1);
    for (int i = 0; i < 1000000; i++) {
        int rc = janus_scheduler_yield();
        if (rc == JANUS_E_CANCELLED) {
            atomic_fetch_add(counter, 1);
            return JANUS_E_CANCELLED;
        }
        CHECK(rc == JANUS_OK, "yield: %d", rc);
    }
    CHECK(0, "never cancelled");
    return 0;
}

static int64_t quick_ok(void *arg) {
    (void)arg;
    janus_scheduler_yield();
    atomic_fetch_add(&grandchildren_ok, 1);
    return 0;
}

/* A child with a nursery of its own. mode 0: its children succeed. mode 1:
   one grandchild fails with 7. mode 2: its grandchildren wait to be
   cancelled from above. */
static int64_t nested(void *arg) {
    int mode = (int)(intptr_t)arg;
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL, "inner nursery: %d", janus_last_error());
    for (int i = 0; i < 3; i++) {
        JanusTaskFn fn = mode == 0 ? quick_ok : until_cancelled;
        void *a = mode == 0 ? NULL : (void *)&grandchildren_cancelled;
        CHECK(janus_nursery_spawn(n, fn, a) != NULL, "inner spawn: %d", janus_last_error());
    }
    static struct failure seven = {7, 9};
    if (mode == 1) CHECK(janus_nursery_spawn(n, fail_after_yields, &seven) != NULL, "inner spawn");
    JanusNurseryResult r = janus_nursery_await(n);
    janus_nursery_destroy(n);
    switch (mode) {
    case 0:
        CHECK(r.kind == JANUS_NURSERY_SUCCESS, "inner: kind %d", r.kind);
        return 0;
    case 1:
        CHECK(r.kind == JANUS_NURSERY_CHILD_FAILED && r.error == 7, "inner: kind %d error %ld", r.kind, (long)r.error);
        return r.error * 10; /* propagate the failure up, changed */
    default:
        /* Cancelled from above while awaiting. */
        CHECK(r.kind == JANUS_NURSERY_CANCELLED, "inner cancelled: kind %d", r.kind);
        return JANUS_E_CANCELLED;
    }
}

static int64_t root(void *arg) {
    (void)arg;
    /* 1. fail_fast: one child fails with 42, eight siblings are cancelled. */
    struct failure fortytwo = {42, SIBLINGS};
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL, "nursery");
    for (int i = 0; i < SIBLINGS; i++) CHECK(janus_nursery_spawn(n, until_cancelled, &siblings_cancelled) != NULL, "spawn");
    CHECK(janus_nursery_spawn(n, fail_after_yields, &fortytwo) != NULL, "spawn failing");
    JanusNurseryResult r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_CHILD_FAILED, "fail_fast kind %d", r.kind);
    CHECK(r.error == 42, "fail_fast error %ld", (long)r.error);
    CHECK(atomic_load(&siblings_cancelled) == SIBLINGS, "siblings that saw JANUS_E_CANCELLED: %d of %d", atomic_load(&siblings_cancelled), SIBLINGS);
    /* Awaiting again gives the same result; spawning into an awaited
       nursery is refused. */
    JanusNurseryResult again = janus_nursery_await(n);
    CHECK(again.kind == r.kind && again.error == r.error, "second await");
    CHECK(janus_nursery_spawn(n, quick_ok, NULL) == NULL && janus_last_error() == JANUS_E_NURSERY_NOT_ACTIVE, "spawn after await: %d", janus_last_error());
    janus_nursery_destroy(n);

    /* 2. Nested: inner nurseries that succeed. */
    n = janus_nursery_create();
    for (int i = 0; i < 4; i++) CHECK(janus_nursery_spawn(n, nested, (void *)0) != NULL, "spawn nested");
    r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_SUCCESS, "nested ok: kind %d error %ld", r.kind, (long)r.error);
    CHECK(atomic_load(&grandchildren_ok) == 12, "grandchildren ok: %d", atomic_load(&grandchildren_ok));
    janus_nursery_destroy(n);

    /* 3. Nested: a grandchild's failure comes up through its parent, and the
       parent's siblings' grandchildren are cancelled transitively. */
    atomic_store(&grandchildren_cancelled, 0);
    atomic_store(&started, 0);
    n = janus_nursery_create();
    CHECK(janus_nursery_spawn(n, nested, (void *)2) != NULL, "spawn");
    CHECK(janus_nursery_spawn(n, nested, (void *)2) != NULL, "spawn");
    CHECK(janus_nursery_spawn(n, nested, (void *)1) != NULL, "spawn");
    r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_CHILD_FAILED && r.error == 70, "nested failure: kind %d error %ld", r.kind, (long)r.error);
    /* 3 grandchildren under the failing child (its own fail_fast) and 3
       under each of the two siblings (transitive). */
    CHECK(atomic_load(&grandchildren_cancelled) == 9, "grandchildren cancelled: %d of 9", atomic_load(&grandchildren_cancelled));
    janus_nursery_destroy(n);

    /* 4. Two nurseries open at once: the outer cannot be awaited first;
       spawn without a handle goes to the innermost; destroying the outer
       cancels and ends both. */
    atomic_store(&siblings_cancelled, 0);
    atomic_store(&started, 0);
    JanusNursery *outer = janus_nursery_create();
    JanusNursery *inner = janus_nursery_create();
    CHECK(outer != NULL && inner != NULL, "two nurseries");
    CHECK(janus_nursery_spawn(outer, until_cancelled, &siblings_cancelled) != NULL, "outer spawn");
    CHECK(janus_scheduler_spawn((void *)until_cancelled, &siblings_cancelled) == JANUS_OK, "innermost spawn");
    for (int i = 0; i < 1000000 && atomic_load(&started) < 2; i++) janus_scheduler_yield();
    r = janus_nursery_await(outer);
    CHECK(r.kind == JANUS_NURSERY_PENDING && janus_last_error() == JANUS_E_INVALID, "outer awaited first: kind %d last %d", r.kind, janus_last_error());
    janus_nursery_destroy(outer);
    CHECK(atomic_load(&siblings_cancelled) == 2, "destroy cancelled %d of 2", atomic_load(&siblings_cancelled));
    r = janus_nursery_await(inner); /* ended with the outer one */
    CHECK(r.kind == JANUS_NURSERY_CANCELLED, "inner after outer destroy: kind %d", r.kind);
    janus_nursery_destroy(inner);
    r = janus_nursery_await(outer);
    CHECK(r.kind == JANUS_NURSERY_PENDING && janus_last_error() == JANUS_E_INVALID, "destroyed outer: kind %d", r.kind);

    /* 5. A task that returns with a nursery open: its children are
       cancelled and awaited all the same (checked by the count after the
       next await). */
    atomic_store(&test_passed, 1);
    return 0;
}

static int64_t leaves_open(void *arg) {
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL, "nursery");
    CHECK(janus_nursery_spawn(n, until_cancelled, arg) != NULL, "spawn");
    for (int i = 0; i < 1000000 && atomic_load(&started) < 1; i++) janus_scheduler_yield();
    return 0; /* no await, no destroy */
}

static int64_t root2(void *arg) {
    (void)arg;
    atomic_int cancelled = 0;
    atomic_store(&started, 0);
    JanusNursery *n = janus_nursery_create();
    CHECK(janus_nursery_spawn(n, leaves_open, &cancelled) != NULL, "spawn");
    JanusNurseryResult r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_SUCCESS, "leaves_open: kind %d error %ld", r.kind, (long)r.error);
    CHECK(atomic_load(&cancelled) == 1, "child of a nursery left open: cancelled %d", atomic_load(&cancelled));
    janus_nursery_destroy(n);
    atomic_store(&test_passed, 2);
    return 0;
}

int main(void) {
    JanusSchedulerConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.worker_count = 2;
    void *s = janus_scheduler_create(cfg);
    CHECK(s != NULL, "create");
    CHECK(janus_scheduler_spawn((void *)root, NULL) == JANUS_OK, "spawn root");
    janus_scheduler_shutdown(s);
    CHECK(atomic_load(&test_passed) == 1, "root did not pass");
    s = janus_scheduler_create(cfg);
    CHECK(janus_scheduler_spawn((void *)root2, NULL) == JANUS_OK, "spawn root2");
    janus_scheduler_shutdown(s);
    CHECK(atomic_load(&test_passed) == 2, "root2 did not pass");
    printf("test_nursery: fail_fast (%d siblings cancelled), nested, two open at once, left open: ok\n", SIBLINGS);
    return 0;
}
