/* janus_sched.h: the C ABI of the CBC-MN scheduler (libjanus_sched.so).
 *
 * The contract is docs/c-abi.md; this header is hand-written and is the one a
 * C program includes. Link with: cc prog.c -Icabi -Lbin -ljanus_sched -pthread
 * and run with LD_LIBRARY_PATH=bin.
 */
#ifndef JANUS_SCHED_H
#define JANUS_SCHED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JanusBudget {      /* seed 001 section 3.1 */
    uint32_t ops;
    uint64_t memory;
    uint16_t spawn_count;
    uint16_t channel_ops;
    uint16_t syscalls;
} JanusBudget;

enum { JANUS_PROFILE_SERVICE = 0, JANUS_PROFILE_CLUSTER = 1, JANUS_PROFILE_SOVEREIGN = 2 };

typedef struct JanusSchedulerConfig {
    uint32_t worker_count;        /* 1..256; 0 means one per CPU */
    uint32_t profile;             /* JANUS_PROFILE_*; :core has no scheduler */
    int32_t  deterministic;       /* nonzero: the seeded driver runs the program one step at a time */
    uint64_t deterministic_seed;  /* seed 001 section 9.3 */
    JanusBudget budget;           /* each task's starting budget; all zero means the default */
    const char *trace_path;       /* deterministic only: write the trace here; NULL writes none */
} JanusSchedulerConfig;

typedef struct JanusNursery JanusNursery;
typedef struct JanusTask JanusTask;

/* A task body. It returns 0 for success; any other value fails the task with that
   error code (the nursery's first error). */
typedef int64_t (*JanusTaskFn)(void *arg);

enum {
    JANUS_NURSERY_SUCCESS = 0,
    JANUS_NURSERY_CHILD_FAILED = 1,
    JANUS_NURSERY_CANCELLED = 2,
    JANUS_NURSERY_PENDING = 3
};

typedef struct JanusNurseryResult {   /* seed 000 section 8.1 */
    int32_t kind;     /* JANUS_NURSERY_* */
    int64_t error;    /* CHILD_FAILED: the first failing child's code; else 0 */
} JanusNurseryResult;

/* Negative results of the int-returning calls. */
enum {
    JANUS_OK = 0,
    JANUS_E_CANCELLED = -1,               /* the calling task is cancelled: return soon */
    JANUS_E_NOT_IN_TASK = -2,             /* a task-only call made outside any task */
    JANUS_E_NURSERY_NOT_ACTIVE = -3,      /* seed 001 section 14 */
    JANUS_E_SPAWN_BUDGET_EXHAUSTED = -4,  /* seed 001 section 14 */
    JANUS_E_CAPABILITY_DENIED = -5,
    JANUS_E_INVALID = -6,                 /* a bad argument: NULL, a destroyed nursery, ... */
    /* Extension (docs/c-abi.md): the calling task's budget cannot pay for the
       operation (ops, memory, ...) and nothing could recharge it. */
    JANUS_E_RESOURCE_EXHAUSTED = -7
};

void *janus_scheduler_create(JanusSchedulerConfig config);  /* NULL for a bad config */
void  janus_scheduler_shutdown(void *scheduler);            /* waits for every top-level task, then stops the workers */

/* Inside a task: spawn into the task's innermost open nursery.
   Outside any task: spawn a top-level task on the most recently created scheduler. */
int   janus_scheduler_spawn(void *func, void *arg);         /* func is a JanusTaskFn */
int   janus_scheduler_yield(void);                          /* a checkpoint: JANUS_OK or JANUS_E_CANCELLED */

JanusBudget janus_budget_get_current(void);                 /* the calling task's remaining budget */
int   janus_budget_recharge(JanusBudget amount);            /* JANUS_OK or a JANUS_E_* code */

JanusNursery      *janus_nursery_create(void);              /* a fail_fast nursery owned by the calling task */
JanusTask         *janus_nursery_spawn(JanusNursery *n, JanusTaskFn fn, void *arg);  /* NULL when refused */
JanusNurseryResult janus_nursery_await(JanusNursery *n);    /* waits for every child */
void               janus_nursery_destroy(JanusNursery *n);

/* Extensions (docs/c-abi.md). */

/* Why the calling task's last janus_* call was refused, as a JANUS_E_*
   code, or JANUS_OK if it succeeded: the way to learn why
   janus_nursery_spawn returned NULL or janus_nursery_await a PENDING
   result. Outside any task it is kept per thread. */
int   janus_last_error(void);

/* Nonzero when called from inside a task. */
int   janus_in_task(void);

#ifdef __cplusplus
}
#endif

#endif /* JANUS_SCHED_H */
