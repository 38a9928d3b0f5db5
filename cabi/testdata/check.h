/* check.h: the assertion the C tests share. A failed check prints where and
 * what, and exits 1 (a test never crashes to report a failure). */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

/* Set by a top-level task when it finished all its checks. */
static atomic_int test_passed;

#endif
