/* example.c: the complete example of docs/c-abi.md. Four workers fetch
 * "pages" in parallel under one nursery; one page is missing, so the
 * nursery fails fast: the fetches still running see JANUS_E_CANCELLED at
 * their next yield and return, and the await reports the first error.
 *
 *   make cabi
 *   cc example.c -Icabi -Lbin -ljanus_sched -pthread -o example
 *   LD_LIBRARY_PATH=bin ./example
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "janus_sched.h"

enum { PAGES = 16, MISSING = 11, E_NOT_FOUND = 404 };

static int fetched[PAGES];

/* A task body: a C function of one pointer returning 0 or an error code. */
static int64_t fetch(void *arg) {
    int page = (int)(intptr_t)arg;
    char buf[64]; /* on this task's own stack: it survives every yield */
    snprintf(buf, sizeof buf, "page %d", page);
    for (int chunk = 0; chunk < 100; chunk++) {
        if (page == MISSING && chunk == 3) return E_NOT_FOUND;
        /* A checkpoint: other tasks run; this one may resume on another
           worker thread, with buf intact. */
        if (janus_scheduler_yield() == JANUS_E_CANCELLED) return JANUS_E_CANCELLED;
    }
    fetched[page] = strlen(buf) > 0;
    return 0;
}

static int exit_code = 1;

/* The top-level task: opens a nursery, spawns one fetch per page, awaits. */
static int64_t crawl(void *arg) {
    (void)arg;
    JanusNursery *n = janus_nursery_create();
    if (n == NULL) {
        fprintf(stderr, "nursery refused: %d\n", janus_last_error());
        return 1;
    }
    for (intptr_t page = 0; page < PAGES; page++) {
        if (janus_nursery_spawn(n, fetch, (void *)page) == NULL) {
            fprintf(stderr, "spawn refused: %d\n", janus_last_error());
            break; /* the await below still waits for the ones spawned */
        }
    }
    JanusNurseryResult r = janus_nursery_await(n); /* every child has finished here */
    janus_nursery_destroy(n);
    JanusBudget b = janus_budget_get_current();
    int done = 0;
    for (int i = 0; i < PAGES; i++) done += fetched[i];
    printf("await: kind %d (CHILD_FAILED is %d), error %ld; %d pages fetched; %u ops left\n",
           r.kind, JANUS_NURSERY_CHILD_FAILED, (long)r.error, done, b.ops);
    if (r.kind == JANUS_NURSERY_CHILD_FAILED && r.error == E_NOT_FOUND) exit_code = 0;
    return 0;
}

int main(void) {
    JanusSchedulerConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.worker_count = 4;
    cfg.profile = JANUS_PROFILE_SERVICE;
    /* cfg.budget all zero: the default budget (64 spawns per nursery) */
    void *sched = janus_scheduler_create(cfg);
    if (sched == NULL) {
        fprintf(stderr, "bad scheduler config\n");
        return 2;
    }
    if (janus_scheduler_spawn((void *)crawl, NULL) != JANUS_OK) return 2;
    janus_scheduler_shutdown(sched); /* returns when crawl has finished */
    return exit_code;
}
