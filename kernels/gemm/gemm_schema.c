/* gemm_schema.c: the ATen schemas of the gemm family's ops: func lines of
 * aten/src/ATen/native/native_functions.yaml (the .out overloads marked autogen there are written as torch
 * registers them); without a namespace the op is aten::. ir/ writes a call's replay IR entry with the
 * overload that fits it (jv_family.schemas). */
#include <stddef.h>

#include "gemm.h"

/* clang-format off */
/* The ATen schemas of the gemm family's ops, for writing replay IR (see jv_family.schemas). */
const char *const jv_gemm_schemas[] = {
    "mm(Tensor self, Tensor mat2) -> Tensor",
    "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    "mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor",
    "mm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "addmm.dtype(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "addmm.dtype_out(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    "bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    "bmm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor",
    "bmm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> "
    "Tensor(a!)",
    "baddbmm.dtype(Tensor self, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor",
    "baddbmm.dtype_out(Tensor self, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, Scalar beta=1, "
    "Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "_scaled_mm(Tensor self, Tensor mat2, Tensor scale_a, Tensor scale_b, Tensor? bias=None, Tensor? scale_result=None, "
    "ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor",
    "_scaled_mm.out(Tensor self, Tensor mat2, Tensor scale_a, Tensor scale_b, Tensor? bias=None, "
    "Tensor? scale_result=None, ScalarType? out_dtype=None, bool use_fast_accum=False, *, Tensor(a!) out) -> Tensor(a!)",
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    "linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> Tensor(a!)",
    "matmul(Tensor self, Tensor other) -> Tensor",
    "matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    /* vLLM's ROCm GEMM (a custom op; schema inferred from its Python signature) */
    "vllm::rocm_unquantized_gemm(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor",
    NULL,
};
/* clang-format on */
