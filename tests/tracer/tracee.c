/* A program with known allocations, run under the malloc tracer by tracer_test.py. It never
 * touches stdio (which allocates): every call the trace holds is one of these. Modes:
 *   basic     each allocating call once, frees in a known order, one block never freed
 *   realloc   a block grown by realloc (in place and moved), a realloc that fails, realloc(p, 0)
 *   threads   8 threads x 2,000 allocations of sizes naming thread and index, half handed to the
 *             next thread to free
 *   pingpong  one thread allocates 4 KiB blocks that another frees as they come, 20,000 times
 *   fork      allocations around a fork whose child allocates and leaves by _exit
 *   exit      allocations, then _exit without freeing
 *   exec      allocations, then a fork whose child execs this program in mode basic */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(char const *what) {
    (void)!write(2, "tracee: ", 8);
    (void)!write(2, what, strlen(what));
    (void)!write(2, "\n", 1);
    _exit(1);
}

/* Expected (allocation index: size, lifetime): 0: 100 [0,3)  1: 200 [1,4)  2: 0 [2,6)
 * 3: 128 [3,5)  4: 256 [4,7)  5: 40 [5,7)  6: 300 [6,7)  7: 7 [7,8) never freed. */
static int basic(void) {
    char *a = malloc(100);   /* 0 */
    char *b = calloc(4, 50); /* 1 */
    void *z = malloc(0);     /* 2 */
    free(a);                 /* 0 ends at 3 */
    void *p;
    if (posix_memalign(&p, 64, 128)) fail("posix_memalign"); /* 3 */
    free(b);                                                 /* 1 ends at 4 */
    char *q = aligned_alloc(64, 256);                        /* 4 */
    free(p);                                                 /* 3 ends at 5 */
    p = NULL;
    char *r = memalign(32, 40);   /* 5 */
    free(z);                      /* 2 ends at 6 */
    free(NULL);                   /* not a call the trace holds */
    char *c = realloc(NULL, 300); /* 6: realloc of NULL, an allocation */
    if (!a || !b || !z || !q || !r || !c) fail("allocation failed");
    free(c), free(q), free(r); /* 6, 4, 5 end at 7 */
    char *keep = malloc(7);    /* 7, never freed */
    if (!keep) fail("malloc");
    keep[0] = 1;
    return 0;
}

/* Expected: 0: 10 [0,1)  1: 20 [1,2)  2: 1 MiB [2,3)  3: 5 [3,6) (a failed realloc leaves it)
 * 4: 6 [4,5) (reallocarray)  5: 8 [5,6) freed by realloc(p, 0), 3 freed. */
static int grow(void) {
    char *p = realloc(NULL, 10); /* 0 */
    if (!p) fail("realloc");
    p = realloc(p, 20); /* 0 ends, 1 */
    if (!p) fail("realloc");
    p = realloc(p, 1 << 20); /* 1 ends, 2 (glibc maps it: moved) */
    if (!p) fail("realloc");
    if (realloc(p, 0) != NULL) fail("realloc(p, 0) kept a block"); /* 2 ends at 3 */
    char *k = malloc(5);                                           /* 3 */
    if (!k) fail("malloc");
    volatile size_t huge = SIZE_MAX / 2; /* volatile: no warning that it cannot succeed */
    if (realloc(k, huge) != NULL) fail("a huge realloc succeeded"); /* no call in the trace */
    char *s = reallocarray(NULL, 2, 3);                             /* 4 */
    if (!s) fail("reallocarray");
    if (reallocarray(s, huge, 4) != NULL) fail("an overflowing reallocarray"); /* none */
    free(s);                                                                   /* 4 ends at 5 */
    char *t = malloc(8);                                                       /* 5 */
    if (!t || realloc(t, 0) != NULL) fail("realloc(t, 0)");                    /* 5 ends at 6 */
    free(k);                                                                   /* 3 ends at 6 */
    return 0;
}

#define THREADS 8
#define PER_THREAD 2000

typedef struct handoff_t {
    pthread_mutex_t lock;
    void *blocks[PER_THREAD];
    size_t count;
} handoff_t;

static handoff_t handoff[THREADS];
static pthread_barrier_t barrier;

/* Thread t allocates sizes 50,000 + t * 5,000 + i in order (apart from glibc's own small ones for
 * threads); odd i go to thread t + 1 to free, even i it frees itself at once but the last 10,
 * which it never frees. */
static void *worker(void *arg) {
    size_t t = (size_t)(uintptr_t)arg;
    pthread_barrier_wait(&barrier);
    for (size_t i = 0; i < PER_THREAD; ++i) {
        char *p = malloc(50000 + t * 5000 + i);
        if (!p) fail("malloc in a thread");
        p[0] = 1;
        if (i % 2) {
            handoff_t *h = &handoff[(t + 1) % THREADS];
            pthread_mutex_lock(&h->lock);
            h->blocks[h->count++] = p;
            pthread_mutex_unlock(&h->lock);
        } else if (i < PER_THREAD - 20) {
            free(p);
        }
        handoff_t *mine = &handoff[t];
        pthread_mutex_lock(&mine->lock);
        while (mine->count) free(mine->blocks[--mine->count]);
        pthread_mutex_unlock(&mine->lock);
    }
    pthread_barrier_wait(&barrier);
    handoff_t *mine = &handoff[t];
    while (mine->count) free(mine->blocks[--mine->count]);
    return NULL;
}

static int threads(void) {
    pthread_t ids[THREADS];
    for (size_t t = 0; t < THREADS; ++t) pthread_mutex_init(&handoff[t].lock, NULL);
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (size_t t = 0; t < THREADS; ++t)
        if (pthread_create(&ids[t], NULL, worker, (void *)(uintptr_t)t)) fail("pthread_create");
    for (size_t t = 0; t < THREADS; ++t) pthread_join(ids[t], NULL);
    return 0;
}

/* A producer allocates, a consumer frees: a block freed by one thread goes back to the arena the
 * other allocates from, so its address comes back to the producer while the consumer may still
 * be inside free(). */
#define RING 64
static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    void *blocks[RING];
    size_t head, tail;
} ring = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0};

static void *consumer(void *arg) {
    for (size_t n = (size_t)(uintptr_t)arg; n; --n) {
        pthread_mutex_lock(&ring.lock);
        while (ring.head == ring.tail) pthread_cond_wait(&ring.changed, &ring.lock);
        void *p = ring.blocks[ring.tail++ % RING];
        pthread_cond_signal(&ring.changed);
        pthread_mutex_unlock(&ring.lock);
        free(p);
    }
    return NULL;
}

static int pingpong(void) {
    size_t const count = 20000;
    pthread_t id;
    if (pthread_create(&id, NULL, consumer, (void *)(uintptr_t)count)) fail("pthread_create");
    for (size_t i = 0; i < count; ++i) {
        char *p = malloc(4096);
        if (!p) fail("malloc");
        p[0] = 1;
        pthread_mutex_lock(&ring.lock);
        while (ring.head - ring.tail == RING) pthread_cond_wait(&ring.changed, &ring.lock);
        ring.blocks[ring.head++ % RING] = p;
        pthread_cond_signal(&ring.changed);
        pthread_mutex_unlock(&ring.lock);
    }
    pthread_join(id, NULL);
    return 0;
}

/* Expected in the parent's file: 0: 11 [0,2)  1: 12 [1,3)  2: 13 [2,3) never freed. The child's
 * 1,000 blocks of 77 bytes are in no file. */
static int forked(void) {
    char *a = malloc(11), *b = malloc(12);
    if (!a || !b) fail("malloc");
    pid_t child = fork();
    if (child < 0) fail("fork");
    if (child == 0) {
        for (int i = 0; i < 1000; ++i) {
            void *x = malloc(77);
            if (i % 2) free(x);
        }
        free(a);
        _exit(0);
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) fail("waitpid");
    free(a);
    char *c = malloc(13);
    free(b);
    return c ? 0 : 1;
}

/* Expected: 0: 21 [0,2)  1: 22 [1,3)  2: 23 [2,3), the last two live at _exit. */
static int leave(void) {
    char *a = malloc(21), *b = malloc(22);
    free(a);
    char *c = malloc(23);
    if (!b || !c) fail("malloc");
    _exit(0);
}

/* Expected in this process's file: 0: 31 [0,1); the child's is basic's. */
static int exec_child(char const *self) {
    char *a = malloc(31);
    if (!a) fail("malloc");
    pid_t child = fork();
    if (child < 0) fail("fork");
    if (child == 0) {
        execl(self, self, "basic", (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
        fail("the exec'd child failed");
    return 0;
}

int main(int argc, char **argv) {
    char const *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "basic")) return basic();
    if (!strcmp(mode, "realloc")) return grow();
    if (!strcmp(mode, "threads")) return threads();
    if (!strcmp(mode, "pingpong")) return pingpong();
    if (!strcmp(mode, "fork")) return forked();
    if (!strcmp(mode, "exit")) return leave();
    if (!strcmp(mode, "exec")) return exec_child(argv[0]);
    fail("usage: tracee basic|realloc|threads|pingpong|fork|exit|exec");
    return 2;
}
