/* jv_category: ordered name rules, then a look at the first kernel's name. */
#include "jv_category.h"

#include <string.h>

static int in_list(const char *name, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(name, *list)) return 1;
    return 0;
}

static int ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static int starts_with(const char *s, const char *pre) {
    return !strncmp(s, pre, strlen(pre));
}

static const char *const GEMM[] = {
    "aten::mm", "aten::addmm", "aten::_scaled_mm", "aten::bmm", "aten::baddbmm", "trtllm::cublas_scaled_mm",
    "bitsandbytes::int8_linear_matmul", "tex_ts::te_gemm_ts", "vllm::gemm_with_dynamic_quant",
    "vllm::rocm_unquantized_gemm", "_C::cutlass_scaled_mm",
    /* AITER's int8 / fp8 GEMMs and vLLM's wrappers of them (kernels/gemm) */
    "aiter::gemm_a8w8", "aiter::gemm_a8w8_CK", "aiter::gemm_a8w8_ck", "aiter::gemm_a8w8_bpreshuffle",
    "aiter::gemm_a8w8_bpreshuffle_ck", "aiter::gemm_a8w8_blockscale", "aiter::gemm_a8w8_blockscale_ck",
    "aiter::gemm_a8w8_blockscale_bpreshuffle", "vllm::rocm_aiter_gemm_a8w8", "vllm::rocm_aiter_gemm_a8w8_blockscale",
    "vllm::rocm_aiter_triton_gemm_a8w8_blockscale", NULL};
/* fused mixture-of-experts layers: TraceLens' FusedMoE category */
static const char *const MOE_FUSED[] = {"vllm::inplace_fused_experts", "vllm::outplace_fused_experts",
                                        "vllm::rocm_aiter_fused_moe",  "aiter::ck_moe",
                                        "aiter::fused_moe_",           NULL};
static const char *const CONV_FWD[] = {
    "aten::convolution", "aten::miopen_convolution", "aten::cudnn_convolution", "ConvBias_", "ConvBiasReLU_", NULL};
static const char *const CONV_BWD[] = {"aten::convolution_backward", "ConvBias_Backward", "ConvBiasReLU_Backward",
                                       NULL};
static const char *const SDPA[] = {
    "FlashAttnFunc", "flash_attn::_flash_attn_forward", "flash_attn::_flash_attn_varlen_forward",
    "flash_attn::_flash_attn_backward", "flash_attn::_flash_attn_varlen_backward",
    "aten::_scaled_dot_product_cudnn_attention", "aten::_scaled_dot_product_efficient_attention",
    "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_cudnn_attention_backward",
    "aten::_scaled_dot_product_efficient_attention_backward", "aten::_scaled_dot_product_flash_attention_backward",
    "aiter::mha_fwd", "aiter::mha_bwd", "aiter::fmha_v3_fwd", "flash_attn_3::fwd",
    "vllm::unified_attention_with_output",
    /* decode attention over a paged KV cache (kernels/infattn) */
    "_C::paged_attention_v1", "_C::paged_attention_v2", "_rocm_C::paged_attention", "EvoformerAttention", NULL};
static const char *const SDPA_BWD[] = {"FlashAttnFuncBackward", "aiter::mha_bwd", NULL};
static const char *const BINARY[] = {"aten::div",
                                     "aten::div_",
                                     "aten::mul",
                                     "aten::mul_",
                                     "aten::add",
                                     "aten::add_",
                                     "aten::sigmoid_backward",
                                     "aten::threshold_backward",
                                     NULL};
static const char *const REDUCE[] = {
    "aten::sum", "aten::mean",      "aten::max",    "aten::min",     "aten::norm", "aten::linalg_norm", "aten::std",
    "aten::var", "aten::logsumexp", "aten::cumsum", "aten::cumprod", "aten::amin", "aten::amax",        NULL};
static const char *const UNARY[] = {"aten::copy",      "aten::copy_",      "aten::clamp_min", "aten::clamp_min_",
                                    "aten::clamp_max", "aten::clamp_max_", "aten::sigmoid",   "aten::rsqrt",
                                    "aten::silu",      "aten::neg",        "aten::pow",       NULL};

static int is_norm(const char *name) {
    static const char *const pre[] = {"aten::", "aten::native_", "aten::miopen_", "aten::cudnn_", NULL};
    static const char *const kinds[] = {"batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm", NULL};
    if (!strcmp(name, "aten::_fused_rms_norm") || !strcmp(name, "aten::_fused_rms_norm_backward")) return 1;
    for (const char *const *p = pre; *p; p++) {
        if (!starts_with(name, *p)) continue;
        const char *rest = name + strlen(*p);
        for (const char *const *k = kinds; *k; k++) {
            size_t kn = strlen(*k);
            if (!strncmp(rest, *k, kn) && (rest[kn] == '\0' || !strcmp(rest + kn, "_backward"))) {
                /* plain rms_norm forward is not in TraceLens' list; its backward is */
                if (!strcmp(*k, "rms_norm") && rest[kn] == '\0') return 0;
                return 1;
            }
        }
    }
    return 0;
}

int jv_op_is_backward(const char *name) {
    return ends_with(name, "_backward") || ends_with(name, "Backward") || ends_with(name, "_bwd") ||
           in_list(name, SDPA_BWD);
}

jv_opcat jv_op_category_id(const char *name, const char *first_kernel) {
    if (in_list(name, GEMM) || starts_with(name, "primus_turbo::grouped_gemm")) return JV_OPCAT_GEMM;
    if (in_list(name, MOE_FUSED)) return JV_OPCAT_MOE_FUSED;
    if (in_list(name, CONV_FWD)) return JV_OPCAT_CONV_FWD;
    if (in_list(name, CONV_BWD)) return JV_OPCAT_CONV_BWD;
    if (is_norm(name)) return jv_op_is_backward(name) ? JV_OPCAT_NORM_BWD : JV_OPCAT_NORM_FWD;
    if (in_list(name, SDPA) || starts_with(name, "aiter::_flash_attn_") || starts_with(name, "aiter::wrapper_fmha_v3_"))
        return jv_op_is_backward(name) ? JV_OPCAT_SDPA_BWD : JV_OPCAT_SDPA_FWD;
    if (in_list(name, BINARY)) return JV_OPCAT_ELEMENTWISE;
    if (in_list(name, REDUCE)) return JV_OPCAT_REDUCE;
    if (starts_with(name, "triton")) return JV_OPCAT_TRITON;
    if (starts_with(name, "_C_cache_ops::")) return JV_OPCAT_INFERENCE_ATTENTION;
    if (starts_with(name, "record_param_comms")) return JV_OPCAT_RECORD_PARAM_COMMS;
    if (in_list(name, UNARY)) return JV_OPCAT_ELEMENTWISE;
    /* resampling reads and writes each element once: TraceLens files it with elementwise */
    if (starts_with(name, "aten::upsample_")) return JV_OPCAT_ELEMENTWISE;
    if (first_kernel && starts_with(first_kernel, "void at::native")) {
        if (strstr(first_kernel, "elementwise")) return JV_OPCAT_ELEMENTWISE;
        if (strstr(first_kernel, "reduce")) return JV_OPCAT_REDUCE;
        if (strstr(first_kernel, "multi_tensor_apply")) return JV_OPCAT_MULTI_TENSOR_APPLY;
    }
    return JV_OPCAT_OTHER;
}

const char *jv_opcat_name(jv_opcat c) {
    static const char *const names[JV_OPCAT_COUNT] = {
        "GEMM",     "MoE_fused",          "CONV_fwd",           "CONV_bwd",           "NORM_fwd",
        "NORM_bwd", "SDPA_fwd",           "SDPA_bwd",           "elementwise",        "reduce",
        "triton",   "InferenceAttention", "record_param_comms", "multi_tensor_apply", "other"};
    return (unsigned)c < JV_OPCAT_COUNT ? names[c] : names[JV_OPCAT_OTHER];
}

const char *jv_op_category(const char *name, const char *first_kernel) {
    return jv_opcat_name(jv_op_category_id(name, first_kernel));
}
