/* jv_sampling: which elements of an output a sampled verification checks (a pure function of the tensor,
 * the budget and a seed). The output is viewed as rows x columns in memory order: the columns are the dim of
 * smallest stride (size-1 dims ignored; the last dim when strides are unknown), the rows every other dim,
 * folded outer to inner by decreasing stride (a channels_last NCHW output: rows N*H*W, columns C). The view
 * is cut into blocks of block_rows x block_cols (32 x 32, smaller for small dims, larger when there are more
 * blocks than the budget), and the sample is stratified over them:
 *   - every block holds at least one element when the blocks fit the budget (all_blocks), the budget spread
 *     evenly over the blocks, each block's share at distinct seeded random positions (one in each of equal
 *     consecutive parts of the block);
 *   - otherwise (a block side cannot grow past JV_SAMPLE_BLOCK_MAX while the other still has blocks to
 *     spare) whole Latin-square diagonals of blocks, block (p mod row_blocks, (p + d*k) mod col_blocks) for
 *     the d-th diagonal (rows and columns swapped when there are more column blocks), one seeded element in
 *     each: every row block and every column block holds at least one element;
 *   - the first and last element in memory order;
 *   - full_rows complete rows and full_cols complete columns at seeded random positions.
 * Indices are row-major logical (jv_tensor_offset_at), sorted ascending, without duplicates. */
#ifndef JV_SAMPLING_H
#define JV_SAMPLING_H

#include <stdint.h>

#include "jv_status.h"
#include "jv_tensor.h"

#define JV_SAMPLE_BLOCK     32  /* preferred block side */
#define JV_SAMPLE_BLOCK_MAX 256 /* a side grows up to this to fit every block into the budget */

/* The memory-order view of a tensor: rows x cols, and how to turn (row, col) into a logical index. */
typedef struct {
    int64_t rows, cols;
    int nrd;                      /* dims folded into rows */
    int row_dim[JV_MAX_DIMS];     /* outer to inner (memory order) */
    int col_dim;                  /* -1 when the tensor has no dim of size > 1 */
    int64_t lstride[JV_MAX_DIMS]; /* row-major logical stride of each dim */
    const jv_tensor *t;
} jv_sample_view;

/* What a plan holds. */
typedef struct {
    int64_t rows, cols;             /* the view */
    int64_t block_rows, block_cols; /* block shape */
    int64_t row_blocks, col_blocks; /* the grid */
    int all_blocks;                 /* 1: every block holds >= 1 element; 0: Latin-square diagonals */
    int64_t per_block;              /* all_blocks: the fewest elements a block holds */
    int64_t full_rows, full_cols;   /* complete lines included */
    int whole;                      /* 1: the budget covers the tensor: every element, in order */
    int64_t budget;                 /* elements over the blocks, as asked */
    int64_t n;                      /* indices in the plan */
} jv_sample_plan;

/* Builds the view of t (numel > 0, any strides). */
void jv_sample_view_make(const jv_tensor *t, jv_sample_view *v);

/* The logical index of element (row, col) of the view. */
int64_t jv_sample_view_index(const jv_sample_view *v, int64_t row, int64_t col);

/* The view's (row, col) of logical index i. */
void jv_sample_view_rowcol(const jv_sample_view *v, int64_t i, int64_t *row, int64_t *col);

/* The sample of t: budget (>= 1) elements spread over the blocks, plus the first and last element, plus
 * full_rows complete rows and full_cols complete columns (capped at the view's). Deterministic for seed.
 * *idx (malloc'd, the caller frees) receives plan->n sorted distinct logical indices; when budget plus the
 * lines reach numel, every element (plan->whole). JV_ERR_USAGE for an empty tensor or budget < 1;
 * JV_ERR_NOMEM. */
jv_status jv_sample_plan_make(const jv_tensor *t, int64_t budget, int64_t full_rows, int64_t full_cols, uint64_t seed,
                              int64_t **idx, jv_sample_plan *plan, jv_err *err);

#endif
