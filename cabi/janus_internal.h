/* janus_internal.h: what the Go half of libjanus_sched.so shares with its C
 * half (janus.c). Not installed; C programs include janus_sched.h only. */
#ifndef JANUS_INTERNAL_H
#define JANUS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "janus_sched.h"

/* The requests a C task makes of its carrier (the Go side), one per janus_*
   call made on a task stack. */
enum {
    JANUS_OP_END = 1,        /* the task function returned; ret is its value */
    JANUS_OP_YIELD,
    JANUS_OP_SPAWN,          /* janus_scheduler_spawn: a0 fn, a1 arg */
    JANUS_OP_BUDGET_GET,
    JANUS_OP_RECHARGE,       /* budget */
    JANUS_OP_NURSERY_CREATE,
    JANUS_OP_NURSERY_SPAWN,  /* a0 nursery, a1 fn, a2 arg */
    JANUS_OP_NURSERY_AWAIT,  /* a0 nursery */
    JANUS_OP_NURSERY_DESTROY /* a0 nursery */
};

/* janus_ctx is one C task: its stack and the mailbox through which it talks
   to its carrier. It lives at the top of its own stack mapping. */
typedef struct janus_ctx {
    void *task_sp;          /* the task's saved stack pointer while it is suspended */
    void *worker_sp;        /* the worker's saved stack pointer while the task runs */
    uintptr_t fn, arg;      /* the task function and its argument */
    int32_t op;             /* JANUS_OP_*: why the task switched back */
    int32_t last_error;     /* janus_last_error inside this task */
    uintptr_t a0, a1, a2;   /* request arguments */
    JanusBudget budget;     /* RECHARGE's argument, BUDGET_GET's reply */
    int64_t ret;            /* the reply; END: the task function's value */
    int32_t kind;           /* NURSERY_AWAIT's reply kind (ret is the error) */
    char *map;              /* the stack mapping, guard (JANUS_GUARD_BYTES) first */
    size_t map_size;
    struct janus_ctx *next_free;
#if !defined(__x86_64__) || defined(JANUS_SWITCH_UCONTEXT)
    void *uc_task, *uc_worker; /* ucontext_t of both sides (the portable switch) */
#endif
} janus_ctx;

/* What janus_run reports: the request the task made (ctx its context), or
   its end (op JANUS_OP_END, ctx NULL: the stack is free again, ret the
   function's value), or no stack to start it on (op 0, ctx NULL). */
typedef struct janus_step {
    janus_ctx *ctx;
    int64_t ret;
    int32_t op;
} janus_step;

/* Called by the Go side, on a worker thread, through cgo. janus_run
   resumes c, or with c NULL starts fn(arg) on a new stack, and runs it to
   its next request: one cgo call per resumption, and a task that never
   yields costs one in all. */
#define JANUS_HIDDEN __attribute__((visibility("hidden")))
JANUS_HIDDEN janus_step janus_run(janus_ctx *c, uintptr_t fn, uintptr_t arg);
JANUS_HIDDEN void       janus_ctx_free(janus_ctx *c); /* a task abandoned mid-way (the run was aborted) */
JANUS_HIDDEN size_t     janus_stack_size(void);
JANUS_HIDDEN int        janus_stack_env_ok(void); /* 0: JANUS_STACK_SIZE is set and not a size */

/* The Go side's exports for calls made outside any task (cabi/*.go). */
extern uintptr_t cabi_create(JanusSchedulerConfig *config);
extern void      cabi_shutdown(uintptr_t handle);
extern int32_t   cabi_spawn_top(uintptr_t fn, uintptr_t arg);

#endif
