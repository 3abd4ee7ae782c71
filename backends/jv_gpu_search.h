/* jv_gpu_search: a vendor library's algorithm search, one copy for the
 * cuBLASLt / cuDNN paths of cuda/ and the hipBLASLt path of hip/ (each keeps
 * only its library's calls): the candidates a heuristic offers are each run
 * JV_GPU_GEMM_WARMUP times, then timed JV_GPU_GEMM_REPS times between device
 * events (median), and the fastest is kept; the choice is cached per
 * configuration (a key of the library's descriptors), so that later ops of
 * the same configuration are not searched again. Needs no device: the runs
 * and the events are the backend's callbacks (a test gives fakes). */
#ifndef JV_GPU_SEARCH_H
#define JV_GPU_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "jv_dtype.h"
#include "jv_status.h"

#define JV_GPU_GEMM_CANDIDATES 16 /* heuristic results asked for and timed (gemm-algo best) */
#define JV_GPU_GEMM_WARMUP     2  /* untimed launches of each candidate */
#define JV_GPU_GEMM_REPS       5  /* timed launches of each candidate; the median is kept */

#define JV_GPU_KEY_WORDS       96

/* One configuration as the library sees it (a convolution step's or a GEMM's descriptors, as words). */
typedef struct {
    int64_t w[JV_GPU_KEY_WORDS];
    int n; /* words used; 0 .. JV_GPU_KEY_WORDS (more set overflow) */
    int overflow;
} jv_gpu_key;

/* Choices per key, per context: one cache type for every kind of choice, a value of val_size bytes per key (the
 * first put sets it). */
typedef struct {
    jv_gpu_key *keys;
    unsigned char *vals;
    size_t val_size;
    int n, cap;
} jv_gpu_cache;

/* Appends v to k (sets k->overflow instead beyond JV_GPU_KEY_WORDS). */
void jv_gpu_key_add(jv_gpu_key *k, int64_t v);

/* The value stored for k, or NULL (always NULL for an overflowed key). */
const void *jv_gpu_cache_find(const jv_gpu_cache *c, const jv_gpu_key *k);

/* Stores the size bytes at v for k (replacing an earlier value; an overflowed key is not stored). JV_ERR_NOMEM
 * when the cache cannot grow, JV_ERR_INTERNAL when size differs from the values stored before. */
jv_status jv_gpu_cache_put(jv_gpu_cache *c, const jv_gpu_key *k, const void *v, size_t size, jv_err *err);

/* Releases the cache's memory and empties it (safe on an empty cache). */
void jv_gpu_cache_clear(jv_gpu_cache *c);

/* Index of the fastest candidate: the smallest t[i] > 0 (a candidate that did not run has t[i] <= 0, or NaN); on
 * a tie the lower index (the heuristic's preference). -1 when none ran. */
int jv_gpu_fastest(const double *t, int n);

/* What a GEMM algorithm search chose for one configuration. */
typedef struct {
    uint64_t algo[8];    /* the library's algorithm struct (cublasLtMatmulAlgo_t, hipblasLtMatmulAlgo_t), as words */
    size_t ws;           /* its workspace bytes */
    int offered;         /* candidates the heuristic returned */
    int timed;           /* of them, those that ran */
    int rank;            /* the chosen one's place in the heuristic's order (0: its first pick) */
    double ms, first_ms; /* median ms of the chosen one and of the heuristic's first pick (0: it did not run) */
} jv_gpu_gemm_choice;

typedef jv_gpu_cache jv_gpu_gemm_cache; /* of jv_gpu_gemm_choice */

/* jv_gpu_cache_find / _put for GEMM search results */
static inline const jv_gpu_gemm_choice *jv_gpu_gemm_cache_find(const jv_gpu_gemm_cache *c, const jv_gpu_key *k) {
    return (const jv_gpu_gemm_choice *)jv_gpu_cache_find(c, k);
}
static inline jv_status jv_gpu_gemm_cache_put(jv_gpu_gemm_cache *c, const jv_gpu_key *k, const jv_gpu_gemm_choice *v,
                                              jv_err *err) {
    return jv_gpu_cache_put(c, k, v, sizeof *v, err);
}

/* What the timing loop needs of a backend: one run of a candidate on its stream, and device events. */
typedef struct {
    void *ctx;
    /* queues one run of candidate i; *launched 0 when the library refuses to launch it (skipped, not an error) */
    jv_status (*run)(void *ctx, int i, int *launched, jv_err *err);
    jv_status (*start)(void *ctx, jv_err *err);            /* records the start event */
    jv_status (*stop)(void *ctx, double *ms, jv_err *err); /* records the stop event, waits, ms since start */
    jv_status (*sync)(void *ctx, jv_err *err);             /* waits for the stream */
} jv_gpu_search_ops;

/* Times the candidates i in [0, n) with eligible[i] set: JV_GPU_GEMM_WARMUP untimed runs, then JV_GPU_GEMM_REPS
 * runs each between the events; t[i] = their median ms, 0 for a candidate not eligible or refused (the stream is
 * synchronized after a refusal). *timed counts those that ran. A runtime failure is returned as is. */
jv_status jv_gpu_search_time(const jv_gpu_search_ops *o, const int *eligible, int n, double *t, int *timed,
                             jv_err *err);

/* Fills ch from timings t[0, n) of the heuristic's candidates (jv_gpu_fastest): rank, ms, first_ms, offered and
 * timed; the caller copies the chosen candidate's algorithm and workspace (index ch->rank). JV_ERR_NOTFOUND
 * "<backend> backend: <op>: gemm-algo best: none of <lib>'s N candidates ran" when none did. */
jv_status jv_gpu_search_pick(const double *t, int n, int timed, const char *backend, const char *lib, const char *op,
                             jv_gpu_gemm_choice *ch, jv_err *err);

/* The host pattern a search's scratch operands are filled with: words 64-bit words of values of dtype dt (bf16,
 * fp16, fp32; anything else as fp64) of magnitude in [1, 2) with random sign and mantissa (the bits a GEMM's data
 * toggles; no NaN or infinity), xorshift64 from seed. */
void jv_gpu_search_pattern(uint64_t *h, size_t words, jv_dtype dt, uint64_t seed);

/* Appends to buf (its string of len bytes, cap in all; truncated, terminated) how a searched choice went:
 * ", searched N, best of R: heuristic's #I X us (#1 Y us)" (N offered, R that ran, I the chosen one's place in
 * the heuristic's order; "#1 did not run" when it did not; just "#1 X us" when the first pick won). */
void jv_gpu_search_describe(const jv_gpu_gemm_choice *c, char *buf, size_t len, size_t cap);

#endif
