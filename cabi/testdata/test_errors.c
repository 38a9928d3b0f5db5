/* Bad arguments and calls out of place: every one answered with its
 * documented code (docs/c-abi.md), never a crash. */
#include <string.h>
#include "janus_sched.h"
#include "check.h"

static int64_t nothing(void *arg) {
    (void)arg;
    return 0;
}

static JanusNursery *shared; /* a nursery of another task */
static void *sched_handle;

static int64_t owner_of_shared(void *arg) {
    (void)arg;
    shared = janus_nursery_create();
    CHECK(shared != NULL, "nursery");
    while (atomic_load(&test_passed) == 0) janus_scheduler_yield(); /* keep it open */
    janus_nursery_destroy(shared);
    return 0;
}

static int64_t checks(void *arg) {
    (void)arg;
    JanusNurseryResult r;
    /* No nursery open: janus_scheduler_spawn has nowhere to spawn. */
    CHECK(janus_scheduler_spawn((void *)nothing, NULL) == JANUS_E_NURSERY_NOT_ACTIVE, "spawn without a nursery");
    CHECK(janus_scheduler_spawn(NULL, NULL) == JANUS_E_INVALID, "spawn NULL");
    /* NULL arguments. */
    CHECK(janus_nursery_spawn(NULL, nothing, NULL) == NULL && janus_last_error() == JANUS_E_INVALID, "spawn into NULL");
    r = janus_nursery_await(NULL);
    CHECK(r.kind == JANUS_NURSERY_PENDING && janus_last_error() == JANUS_E_INVALID, "await NULL");
    janus_nursery_destroy(NULL);
    CHECK(janus_last_error() == JANUS_E_INVALID, "destroy NULL");
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL && janus_last_error() == JANUS_OK, "create");
    CHECK(janus_nursery_spawn(n, NULL, NULL) == NULL && janus_last_error() == JANUS_E_INVALID, "spawn NULL fn");
    CHECK(janus_nursery_spawn(n, nothing, NULL) != NULL && janus_last_error() == JANUS_OK, "spawn");
    /* A destroyed nursery (destroy also awaits: it was not awaited). */
    janus_nursery_destroy(n);
    CHECK(janus_nursery_spawn(n, nothing, NULL) == NULL && janus_last_error() == JANUS_E_INVALID, "spawn into destroyed");
    r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_PENDING && janus_last_error() == JANUS_E_INVALID, "await destroyed");
    janus_nursery_destroy(n);
    CHECK(janus_last_error() == JANUS_E_INVALID, "destroy twice");
    /* Made-up and foreign handles. */
    JanusNursery *bogus = (JanusNursery *)(uintptr_t)0xdeadbeef;
    CHECK(janus_nursery_spawn(bogus, nothing, NULL) == NULL && janus_last_error() == JANUS_E_INVALID, "made-up handle");
    for (int i = 0; i < 100000 && shared == NULL; i++) janus_scheduler_yield();
    CHECK(shared != NULL, "the other task never opened its nursery");
    CHECK(janus_nursery_spawn(shared, nothing, NULL) == NULL && janus_last_error() == JANUS_E_INVALID, "another task's nursery");
    r = janus_nursery_await(shared);
    CHECK(r.kind == JANUS_NURSERY_PENDING && janus_last_error() == JANUS_E_INVALID, "await another task's nursery");
    /* Scheduler calls that belong to the program's threads. */
    JanusSchedulerConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    CHECK(janus_scheduler_create(cfg) == NULL && janus_last_error() == JANUS_E_INVALID, "create in a task");
    janus_scheduler_shutdown(sched_handle);
    CHECK(janus_last_error() == JANUS_E_INVALID, "shutdown in a task");
    CHECK(janus_in_task(), "in task");
    atomic_store(&test_passed, 1);
    return 0;
}

int main(void) {
    JanusSchedulerConfig cfg;
    JanusBudget b = {10, 0, 0, 0, 0};
    /* Outside any task, before any scheduler. */
    CHECK(!janus_in_task(), "in task outside");
    CHECK(janus_scheduler_spawn((void *)nothing, NULL) == JANUS_E_NURSERY_NOT_ACTIVE, "spawn with no scheduler");
    CHECK(janus_scheduler_yield() == JANUS_E_NOT_IN_TASK, "yield outside");
    CHECK(janus_budget_recharge(b) == JANUS_E_NOT_IN_TASK, "recharge outside");
    b = janus_budget_get_current();
    CHECK(b.ops == 0 && b.memory == 0 && janus_last_error() == JANUS_E_NOT_IN_TASK, "budget outside");
    CHECK(janus_nursery_create() == NULL && janus_last_error() == JANUS_E_NOT_IN_TASK, "nursery outside");
    CHECK(janus_nursery_spawn(NULL, nothing, NULL) == NULL, "nursery spawn outside");
    CHECK(janus_nursery_await(NULL).kind == JANUS_NURSERY_PENDING, "await outside");
    janus_nursery_destroy(NULL);
    janus_scheduler_shutdown(NULL);
    janus_scheduler_shutdown((void *)(uintptr_t)12345);
    /* Bad configs. */
    memset(&cfg, 0, sizeof cfg);
    cfg.worker_count = 257;
    CHECK(janus_scheduler_create(cfg) == NULL && janus_last_error() == JANUS_E_INVALID, "257 workers");
    cfg.worker_count = 2;
    cfg.profile = 3;
    CHECK(janus_scheduler_create(cfg) == NULL, "profile 3");
    cfg.profile = JANUS_PROFILE_SERVICE;
    cfg.trace_path = "/tmp/never-written.trace";
    CHECK(janus_scheduler_create(cfg) == NULL, "a trace path without deterministic");
    cfg.trace_path = NULL;
    cfg.deterministic = 1;
    cfg.deterministic_seed = UINT64_MAX;
    CHECK(janus_scheduler_create(cfg) == NULL, "a seed above 2^63-1");
    /* A good one. */
    memset(&cfg, 0, sizeof cfg);
    cfg.worker_count = 2;
    sched_handle = janus_scheduler_create(cfg);
    CHECK(sched_handle != NULL && janus_last_error() == JANUS_OK, "create");
    CHECK(janus_scheduler_spawn(NULL, NULL) == JANUS_E_INVALID, "spawn NULL outside");
    CHECK(janus_scheduler_spawn((void *)owner_of_shared, NULL) == JANUS_OK, "spawn");
    CHECK(janus_scheduler_spawn((void *)checks, NULL) == JANUS_OK, "spawn");
    janus_scheduler_shutdown(sched_handle);
    CHECK(atomic_load(&test_passed) == 1, "checks did not finish");
    CHECK(janus_scheduler_spawn((void *)nothing, NULL) == JANUS_E_NURSERY_NOT_ACTIVE, "spawn after shutdown");
    janus_scheduler_shutdown(sched_handle); /* twice */
    printf("test_errors: NULL, destroyed, made-up and foreign handles, calls out of place, bad configs: ok\n");
    return 0;
}
