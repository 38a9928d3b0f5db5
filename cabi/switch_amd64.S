/* switch_amd64.S: the stack switch of C tasks (System V AMD64 ABI).
 *
 * void janus_switch(void **save, void *load)
 *   Pushes the callee-saved registers, MXCSR and the x87 control word,
 *   stores the stack pointer in *save, loads load and restores the same
 *   set from there. Everything else is caller-saved, so the C compiler
 *   already spilled it around the call.
 */
    .text
    .globl janus_switch
    .hidden janus_switch
    .type janus_switch, @function
janus_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size janus_switch, .-janus_switch

/* janus_trampoline is where a new task's first switch returns: it calls
 * r13(r12), janus_task_main(ctx), which never returns. */
    .globl janus_trampoline
    .hidden janus_trampoline
    .type janus_trampoline, @function
janus_trampoline:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size janus_trampoline, .-janus_trampoline

    .section .note.GNU-stack,"",@progbits
