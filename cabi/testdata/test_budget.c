/* Budgets read and recharged under each profile: the configured budget is
 * each task's; a nursery and a spawn cost one op each; spawn_count bounds
 * a nursery's spawns; under service and cluster a task may recharge itself
 * once, up to its starting budget; under sovereign it may not (no budget
 * capability). */
#include <string.h>
#include "janus_sched.h"
#include "check.h"

static const JanusBudget start = {1000, 4096, 3, 10, 10};
static int profile;

static int64_t child(void *arg) {
    (void)arg;
    JanusBudget b = janus_budget_get_current();
    CHECK(b.ops == start.ops && b.memory == start.memory && b.spawn_count == start.spawn_count, "child budget: ops %u memory %lu spawn_count %u", b.ops, (unsigned long)b.memory, b.spawn_count);
    return 0;
}

static int64_t root(void *arg) {
    (void)arg;
    JanusBudget b = janus_budget_get_current();
    CHECK(b.ops == 1000 && b.memory == 4096 && b.spawn_count == 3 && b.channel_ops == 10 && b.syscalls == 10,
          "start: ops %u memory %lu spawn %u chan %u sys %u", b.ops, (unsigned long)b.memory, b.spawn_count, b.channel_ops, b.syscalls);
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL, "nursery: %d", janus_last_error());
    for (int i = 0; i < 3; i++) CHECK(janus_nursery_spawn(n, child, NULL) != NULL, "spawn %d: %d", i, janus_last_error());
    b = janus_budget_get_current();
    CHECK(b.ops == 1000 - 4, "after a nursery and 3 spawns: ops %u", b.ops);
    CHECK(janus_nursery_spawn(n, child, NULL) == NULL, "a 4th spawn with spawn_count 3");
    CHECK(janus_last_error() == JANUS_E_SPAWN_BUDGET_EXHAUSTED, "4th spawn: %d", janus_last_error());
    CHECK(janus_scheduler_spawn((void *)child, NULL) == JANUS_E_SPAWN_BUDGET_EXHAUSTED, "innermost spawn");
    JanusNurseryResult r = janus_nursery_await(n);
    CHECK(r.kind == JANUS_NURSERY_SUCCESS, "await: %d %ld", r.kind, (long)r.error);
    janus_nursery_destroy(n);
    JanusBudget spent = janus_budget_get_current();
    CHECK(spent.ops < 1000 - 4, "ops not charged: %u", spent.ops);
    JanusBudget nothing = {0, 0, 0, 0, 0};
    int rc = janus_budget_recharge(nothing);
    b = janus_budget_get_current();
    CHECK(rc == (profile == JANUS_PROFILE_SOVEREIGN ? JANUS_E_CAPABILITY_DENIED : JANUS_OK), "recharge by nothing: %d", rc);
    CHECK(b.ops == spent.ops, "a recharge by nothing changed ops: %u -> %u", spent.ops, b.ops);
    JanusBudget add = {3, 0, 0, 0, 0};
    rc = janus_budget_recharge(add);
    b = janus_budget_get_current();
    if (profile == JANUS_PROFILE_SOVEREIGN) {
        CHECK(rc == JANUS_E_CAPABILITY_DENIED, "sovereign recharge: %d", rc);
        CHECK(b.ops == spent.ops, "denied recharge changed ops: %u -> %u", spent.ops, b.ops);
    } else {
        CHECK(rc == JANUS_OK, "recharge: %d", rc);
        CHECK(b.ops == spent.ops + 3, "recharge by 3: %u -> %u", spent.ops, b.ops);
        /* The budget capability grants one self-recharge (docs/c-abi.md). */
        add.ops = 100000;
        rc = janus_budget_recharge(add);
        CHECK(rc == JANUS_E_CAPABILITY_DENIED, "a second recharge: %d", rc);
        CHECK(janus_budget_get_current().ops == b.ops, "a denied recharge changed ops");
    }
    atomic_fetch_add(&test_passed, 1);
    return 0;
}

/* One recharge, larger than what was spent, stops at the starting budget. */
static int64_t capped(void *arg) {
    (void)arg;
    JanusNursery *n = janus_nursery_create();
    CHECK(n != NULL, "nursery");
    janus_nursery_destroy(n);
    JanusBudget b = janus_budget_get_current();
    CHECK(b.ops == 999, "after a nursery: %u", b.ops);
    JanusBudget add = {100000, 100000, 100, 100, 100};
    int rc = janus_budget_recharge(add);
    b = janus_budget_get_current();
    if (profile == JANUS_PROFILE_SOVEREIGN) {
        CHECK(rc == JANUS_E_CAPABILITY_DENIED && b.ops == 999, "sovereign: %d, ops %u", rc, b.ops);
    } else {
        CHECK(rc == JANUS_OK, "recharge: %d", rc);
        CHECK(b.ops == start.ops && b.memory == start.memory && b.spawn_count == start.spawn_count &&
                  b.channel_ops == start.channel_ops && b.syscalls == start.syscalls,
              "a recharge stops at the starting budget: ops %u memory %lu spawn %u", b.ops, (unsigned long)b.memory, b.spawn_count);
    }
    atomic_fetch_add(&test_passed, 1);
    return 0;
}

static atomic_int tops;

static int64_t top(void *arg) {
    (void)arg;
    atomic_fetch_add(&tops, 1);
    return 0;
}

int main(void) {
    const char *names[] = {"service", "cluster", "sovereign"};
    /* Top-level tasks are not bounded by the budget: more of them than
       ops, spawn_count and the capability's one recharge could pay for. */
    {
        JanusSchedulerConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.worker_count = 2;
        cfg.budget.ops = 3;
        cfg.budget.spawn_count = 2;
        void *s = janus_scheduler_create(cfg);
        CHECK(s != NULL, "create");
        for (int i = 0; i < 100; i++) CHECK(janus_scheduler_spawn((void *)top, NULL) == JANUS_OK, "top-level spawn %d", i);
        janus_scheduler_shutdown(s);
        CHECK(atomic_load(&tops) == 100, "top-level tasks run: %d of 100", atomic_load(&tops));
    }
    for (profile = 0; profile < 3; profile++) {
        JanusSchedulerConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.worker_count = 2;
        cfg.profile = (uint32_t)profile;
        cfg.budget = start;
        atomic_store(&test_passed, 0);
        void *s = janus_scheduler_create(cfg);
        CHECK(s != NULL, "create %s", names[profile]);
        CHECK(janus_scheduler_spawn((void *)root, NULL) == JANUS_OK, "spawn");
        CHECK(janus_scheduler_spawn((void *)capped, NULL) == JANUS_OK, "spawn");
        janus_scheduler_shutdown(s);
        CHECK(atomic_load(&test_passed) == 2, "%s: a task did not pass", names[profile]);
        printf("test_budget: %s: budget read, spawn_count enforced, recharge %s: ok\n", names[profile],
               profile == JANUS_PROFILE_SOVEREIGN ? "denied" : "once, up to the starting budget");
    }
    return 0;
}
