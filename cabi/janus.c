/* janus.c: the C half of libjanus_sched.so. Every janus_* function a C
 * program calls is here. Made from a task's stack, a call is a request: it
 * stores its arguments in the task's janus_ctx and switches back to the
 * worker's stack, which returns from the cgo call that resumed the task; the
 * Go side answers and resumes the task. No Go code ever runs on a task
 * stack (docs/c-abi.md says why that matters). Made outside any task, the
 * few calls that make sense there go straight to the Go side's exports. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "janus_internal.h"

/* JANUS_GUARD_BYTES is the inaccessible region below each task stack. A
   page would do for code built with -fstack-clash-protection, which
   touches every page of a large frame in order; code built without it
   (gcc's default on many systems) may move the stack pointer past a page
   in one frame and write beyond it, into the next mapping, another task's
   stack. 64 KiB of guard catches any frame up to that size; it is address
   space only (PROT_NONE, never backed). docs/c-abi.md#stacks. */
enum { JANUS_GUARD_BYTES = 64 << 10 };

/* The task running on this thread, NULL outside any task. Set and cleared
   by janus_run on the worker side of the switch. */
static __thread janus_ctx *janus_current;
/* janus_last_error outside any task. */
static __thread int janus_thread_error;

/* janus_self reads janus_current once. Every request reads it before its
   switch and never after: the task may resume on another thread, and a
   compiler may keep a thread-local variable's address in a register across
   a call it cannot see into. */
__attribute__((noinline)) static janus_ctx *janus_self(void) {
    janus_ctx *c = janus_current;
    __asm__ volatile("" ::: "memory");
    return c;
}

/* ---- Stack switching ------------------------------------------------- */

#if defined(__x86_64__) && !defined(JANUS_SWITCH_UCONTEXT)

/* switch_amd64.S: save the callee-saved registers, MXCSR and the x87 control
   word on the current stack, store the stack pointer in *save, load load,
   restore and return there. */
extern void janus_switch(void **save, void *load);
extern void janus_trampoline(void);

static void janus_task_main(janus_ctx *c);

/* janus_prepare builds, at the top of c's stack, the frame janus_switch
   restores on the task's first resume: it "returns" into janus_trampoline
   with r12 = c and r13 = janus_task_main. */
static void janus_prepare(janus_ctx *c, char *top) {
    uintptr_t t = (uintptr_t)top & ~(uintptr_t)15;
    uint64_t *a = (uint64_t *)(t - 24); /* the return address: after ret, rsp is 16-aligned */
    ((uint64_t *)(t - 16))[0] = 0;      /* a zero return address ends unwinders' walks */
    ((uint64_t *)(t - 8))[0] = 0;
    a[0] = (uint64_t)(uintptr_t)janus_trampoline;
    a[-1] = 0;                                  /* rbp */
    a[-2] = 0;                                  /* rbx */
    a[-3] = (uint64_t)(uintptr_t)c;             /* r12 */
    a[-4] = (uint64_t)(uintptr_t)janus_task_main; /* r13 */
    a[-5] = 0;                                  /* r14 */
    a[-6] = 0;                                  /* r15 */
    a[-7] = 0x1F80 | ((uint64_t)0x037F << 32);  /* MXCSR, x87 control word: their defaults */
    c->task_sp = &a[-7];
}

static inline void janus_to_task(janus_ctx *c) { janus_switch(&c->worker_sp, c->task_sp); }
static inline void janus_to_worker(janus_ctx *c) { janus_switch(&c->task_sp, c->worker_sp); }

#else /* the portable switch: ucontext (a signal-mask system call per switch) */

#include <ucontext.h>

static void janus_task_main(janus_ctx *c);
static __thread janus_ctx *janus_starting;
static void janus_uc_main(void) { janus_task_main(janus_starting); }

static void janus_prepare(janus_ctx *c, char *top) {
    (void)top;
    ucontext_t *uc = calloc(2, sizeof(ucontext_t));
    if (uc == NULL) abort();
    c->uc_task = &uc[0];
    c->uc_worker = &uc[1];
    getcontext(&uc[0]);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uc[0].uc_stack.ss_sp = c->map + (JANUS_GUARD_BYTES + page - 1) / page * page;
    uc[0].uc_stack.ss_size = (size_t)((char *)c - (char *)uc[0].uc_stack.ss_sp);
    uc[0].uc_link = NULL;
    makecontext(&uc[0], janus_uc_main, 0);
    c->task_sp = NULL;
}

static inline void janus_to_task(janus_ctx *c) {
    if (c->task_sp == NULL) { c->task_sp = c; janus_starting = c; }
    swapcontext(c->uc_worker, c->uc_task);
}
static inline void janus_to_worker(janus_ctx *c) { swapcontext(c->uc_task, c->uc_worker); }

#endif

static void janus_task_main(janus_ctx *c) {
    JanusTaskFn fn = (JanusTaskFn)c->fn;
    c->ret = fn((void *)c->arg);
    c->op = JANUS_OP_END;
    janus_to_worker(c);
    abort(); /* an ended task is never resumed */
}

/* janus_request hands op to the carrier and returns when it has answered. */
static inline void janus_request(janus_ctx *c, int32_t op) {
    c->op = op;
    janus_to_worker(c);
}

/* ---- Stacks ------------------------------------------------------------ */

enum { JANUS_STACK_DEFAULT = 256 << 10, JANUS_STACK_MIN = 16 << 10, JANUS_FREE_MAX = 1024 };

static size_t janus_stack_bytes;
static int janus_stack_env_bad; /* JANUS_STACK_SIZE is set and not a size */
static pthread_once_t janus_stack_once = PTHREAD_ONCE_INIT;

static void janus_stack_init(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = JANUS_STACK_DEFAULT;
    const char *env = getenv("JANUS_STACK_SIZE");
    if (env != NULL && *env != '\0') {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0' && errno == 0 && env[0] != '-' && v >= JANUS_STACK_MIN && v <= (1ULL << 30)) {
            n = (size_t)v;
        } else {
            janus_stack_env_bad = 1;
        }
    }
    janus_stack_bytes = (n + page - 1) / page * page;
}

size_t janus_stack_size(void) {
    pthread_once(&janus_stack_once, janus_stack_init);
    return janus_stack_bytes;
}

int janus_stack_env_ok(void) {
    janus_stack_size();
    return !janus_stack_env_bad;
}

/* ---- A task that ends its thread ----------------------------------------

   pthread_exit (or a cancellation) inside a task ends the worker thread
   under the task: the carrier never hears back, and the scheduler would
   wait for it for ever. It cannot be undone, but it can be told: a
   thread-specific value set on every worker thread has a destructor that
   runs as the thread exits, and finds janus_current still set only when
   the thread ended inside a task. It says so and aborts, rather than
   leave janus_scheduler_shutdown hanging without a word. */
static pthread_key_t janus_exit_key;
static pthread_once_t janus_exit_once = PTHREAD_ONCE_INIT;
static __thread int janus_exit_armed;

static void janus_thread_exit(void *v) {
    (void)v;
    if (janus_current != NULL) {
        static const char msg[] =
            "janus: a C task ended its worker thread (pthread_exit, or a cancellation) instead of returning; "
            "the scheduler cannot go on without it (docs/c-abi.md#what-a-task-must-not-do)\n";
        ssize_t unused = write(2, msg, sizeof msg - 1);
        (void)unused;
        abort();
    }
}

static void janus_exit_init(void) { pthread_key_create(&janus_exit_key, janus_thread_exit); }

static void janus_arm_exit(void) {
    pthread_once(&janus_exit_once, janus_exit_init);
    pthread_setspecific(janus_exit_key, (void *)1);
    janus_exit_armed = 1;
}

/* Ended tasks' stacks are kept for the next ones: up to JANUS_CACHE_MAX
   on the worker thread that ended them (no lock: a spawn and the end of a
   task on one worker reuse the same few stacks), then up to JANUS_FREE_MAX
   in a list all threads share. A stack that was touched stays resident, so
   these bounds are what bounds the memory a burst of tasks leaves behind. */
enum { JANUS_CACHE_MAX = 32 };
static __thread janus_ctx *janus_cache[JANUS_CACHE_MAX];
static __thread int janus_cache_len;
static pthread_mutex_t janus_free_mu = PTHREAD_MUTEX_INITIALIZER;
static janus_ctx *janus_free_list;
static int janus_free_len;

static janus_ctx *janus_ctx_get(void) {
    if (janus_cache_len > 0) return janus_cache[--janus_cache_len];
    janus_ctx *c = NULL;
    pthread_mutex_lock(&janus_free_mu);
    if (janus_free_list != NULL) {
        c = janus_free_list;
        janus_free_list = c->next_free;
        janus_free_len--;
    }
    pthread_mutex_unlock(&janus_free_mu);
    if (c != NULL) return c;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t guard = (JANUS_GUARD_BYTES + page - 1) / page * page;
    size_t size = janus_stack_size() + guard;
    char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return NULL;
    /* The guard: an overflow faults instead of writing over the next
       mapping (JANUS_GUARD_BYTES). */
    if (mprotect(m, guard, PROT_NONE) != 0) {
        munmap(m, size);
        return NULL;
    }
    c = (janus_ctx *)((uintptr_t)(m + size - sizeof(janus_ctx)) & ~(uintptr_t)63);
    c->map = m;
    c->map_size = size;
    return c;
}

static void janus_ctx_put(janus_ctx *c) {
    if (janus_cache_len < JANUS_CACHE_MAX) {
        janus_cache[janus_cache_len++] = c;
        return;
    }
    pthread_mutex_lock(&janus_free_mu);
    if (janus_free_len < JANUS_FREE_MAX) {
        c->next_free = janus_free_list;
        janus_free_list = c;
        janus_free_len++;
        c = NULL;
    }
    pthread_mutex_unlock(&janus_free_mu);
    if (c != NULL) {
#if !defined(__x86_64__) || defined(JANUS_SWITCH_UCONTEXT)
        free(c->uc_task);
#endif
        munmap(c->map, c->map_size);
    }
}

void janus_ctx_free(janus_ctx *c) {
    if (c != NULL) janus_ctx_put(c);
}

janus_step janus_run(janus_ctx *c, uintptr_t fn, uintptr_t arg) {
    janus_step st = {NULL, 0, 0};
    if (c == NULL) {
        c = janus_ctx_get();
        if (c == NULL) return st;
#if !defined(__x86_64__) || defined(JANUS_SWITCH_UCONTEXT)
        free(c->uc_task);
#endif
        char *map = c->map;
        size_t map_size = c->map_size;
        memset(c, 0, sizeof *c);
        c->map = map;
        c->map_size = map_size;
        c->fn = fn;
        c->arg = arg;
        janus_prepare(c, (char *)c);
    }
    if (!janus_exit_armed) janus_arm_exit(); /* once per worker thread */
    janus_current = c;
    janus_to_task(c);
    janus_current = NULL;
    st.op = c->op;
    if (st.op == JANUS_OP_END) {
        st.ret = c->ret;
        janus_ctx_put(c); /* back on the worker's stack: the task's is free */
        return st;
    }
    st.ctx = c;
    return st;
}

/* ---- The exports ------------------------------------------------------- */

void *janus_scheduler_create(JanusSchedulerConfig config) {
    janus_ctx *c = janus_self();
    if (c != NULL) {
        /* A scheduler is created and shut down by the program's own
           threads; from a task it would block a worker. */
        c->last_error = JANUS_E_INVALID;
        return NULL;
    }
    uintptr_t h = cabi_create(&config);
    janus_thread_error = h == 0 ? JANUS_E_INVALID : JANUS_OK;
    return (void *)h;
}

void janus_scheduler_shutdown(void *scheduler) {
    janus_ctx *c = janus_self();
    if (c != NULL) {
        c->last_error = JANUS_E_INVALID;
        return;
    }
    if (scheduler == NULL) {
        janus_thread_error = JANUS_E_INVALID;
        return;
    }
    cabi_shutdown((uintptr_t)scheduler);
}

int janus_scheduler_spawn(void *func, void *arg) {
    janus_ctx *c = janus_self();
    if (c == NULL) {
        if (func == NULL) return JANUS_E_INVALID;
        return cabi_spawn_top((uintptr_t)func, (uintptr_t)arg);
    }
    if (func == NULL) return c->last_error = JANUS_E_INVALID;
    c->a0 = (uintptr_t)func;
    c->a1 = (uintptr_t)arg;
    janus_request(c, JANUS_OP_SPAWN);
    return (int)c->ret;
}

int janus_scheduler_yield(void) {
    janus_ctx *c = janus_self();
    if (c == NULL) return JANUS_E_NOT_IN_TASK;
    janus_request(c, JANUS_OP_YIELD);
    return (int)c->ret;
}

JanusBudget janus_budget_get_current(void) {
    janus_ctx *c = janus_self();
    if (c == NULL) {
        JanusBudget zero;
        memset(&zero, 0, sizeof zero);
        janus_thread_error = JANUS_E_NOT_IN_TASK;
        return zero;
    }
    janus_request(c, JANUS_OP_BUDGET_GET);
    return c->budget;
}

int janus_budget_recharge(JanusBudget amount) {
    janus_ctx *c = janus_self();
    if (c == NULL) return JANUS_E_NOT_IN_TASK;
    c->budget = amount;
    janus_request(c, JANUS_OP_RECHARGE);
    return (int)c->ret;
}

JanusNursery *janus_nursery_create(void) {
    janus_ctx *c = janus_self();
    if (c == NULL) {
        janus_thread_error = JANUS_E_NOT_IN_TASK;
        return NULL;
    }
    janus_request(c, JANUS_OP_NURSERY_CREATE);
    return (JanusNursery *)c->a0;
}

JanusTask *janus_nursery_spawn(JanusNursery *n, JanusTaskFn fn, void *arg) {
    janus_ctx *c = janus_self();
    if (c == NULL) {
        janus_thread_error = JANUS_E_NOT_IN_TASK;
        return NULL;
    }
    if (n == NULL || fn == NULL) {
        c->last_error = JANUS_E_INVALID;
        return NULL;
    }
    c->a0 = (uintptr_t)n;
    c->a1 = (uintptr_t)fn;
    c->a2 = (uintptr_t)arg;
    janus_request(c, JANUS_OP_NURSERY_SPAWN);
    return (JanusTask *)c->a0;
}

JanusNurseryResult janus_nursery_await(JanusNursery *n) {
    JanusNurseryResult r = {JANUS_NURSERY_PENDING, 0};
    janus_ctx *c = janus_self();
    if (c == NULL) {
        janus_thread_error = JANUS_E_NOT_IN_TASK;
        return r;
    }
    if (n == NULL) {
        c->last_error = JANUS_E_INVALID;
        return r;
    }
    c->a0 = (uintptr_t)n;
    janus_request(c, JANUS_OP_NURSERY_AWAIT);
    r.kind = c->kind;
    r.error = c->ret;
    return r;
}

void janus_nursery_destroy(JanusNursery *n) {
    janus_ctx *c = janus_self();
    if (c == NULL) {
        janus_thread_error = JANUS_E_NOT_IN_TASK;
        return;
    }
    if (n == NULL) {
        c->last_error = JANUS_E_INVALID;
        return;
    }
    c->a0 = (uintptr_t)n;
    janus_request(c, JANUS_OP_NURSERY_DESTROY);
}

int janus_last_error(void) {
    janus_ctx *c = janus_self();
    return c != NULL ? c->last_error : janus_thread_error;
}

int janus_in_task(void) { return janus_self() != NULL; }
