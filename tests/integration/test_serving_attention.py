#!/usr/bin/env python3
"""Serving ops end to end (issue 18): attention sized by the step annotation (the infattn family, TraceLens'
InferenceAttention), a fused MoE layer and a scaled GEMM.

usage: test_serving_attention.py JARVIS_ANALYZE

A generated trace: two vLLM steps, each a user_annotation "execute_<n>_context_<r>(sq..sk..sqsq..sqsk..)_
generation_<r>(...)" around a vllm::unified_attention_with_output call of the same shapes (gpt-oss: 64 query
heads, 8 KV heads of 64, bf16), and a third call of other shapes outside any annotation. Checks, against values
computed by hand from the definitions (FLOPs = 2 H_Q P (d_qk + d_v), P = Σsq·sk - Σsq²/2 + Σsq/2; bytes = Σsq H_Q
(d_qk + d_v) bpe + Σsk H_KV (d_qk + d_v) bpe):
- each call is modelled with its own step's lengths: the row's GFLOPS and Data Moved are its first call's, its
  TFLOPS/s_mean the mean of both calls' rates;
- InferenceAttention_fwd has one row per step (param: g_sk 55086 and 12), with their GFLOPS;
- the call outside any annotation has no model and the reason "attention sized by sequence lengths ...";
- a vllm::outplace_fused_experts call (mxfp4 weights) and a _C::cutlass_scaled_mm call (fp8, its scales' bytes
  counted) are modelled (the moe and gemm families; hand values in test_family_moe / test_family_gemm), in MoE_fused
  and GEMM;
- two _C::paged_attention_v1 calls of the same shapes (4 sequences), one inside a decode step of 4 requests (exact)
  and one outside any step (bounded by its max_seq_len 1024): one unified_perf_summary row, two
  InferenceAttention_fwd rows whose param kv_lens says which (hand values in test_family_infattn).
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: jvcheck
sys.path.insert(0, HERE)  # hostile_gen
from jvcheck import check, close, finish, read_csv  # noqa: E402
import hostile_gen as g  # noqa: E402

OP = 'vllm::unified_attention_with_output'
STEP1 = 'execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)'
STEP2 = 'execute_3_context_1(sq4sk10sqsq16sqsk40)_generation_2(sq2sk12sqsq2sqsk12)'
STEP3 = 'execute_4_context_0(sq0sk0sqsq0sqsk0)_generation_4(sq4sk1000sqsq4sqsk1000)'
BF16 = ['c10::BFloat16'] * 4 + ['']
# paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens, block_size,
# max_seq_len, alibi_slopes, kv_cache_dtype, k_scale, v_scale): 32 query heads, 8 KV heads of 128, blocks of 16
PAGED = {'Input Dims': [[4, 32, 128], [4, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], [4, 64], [4], [],
                        [], [], [], [], []],
         'Input type': ['c10::BFloat16'] * 4 + ['Scalar', 'Scalar', 'int', 'int', 'Scalar', 'Scalar', '', '', 'float',
                                               'float'],
         'Concrete Inputs': ['', '', '', '', '8', '0.088', '', '', '16', '1024', '', 'auto', '', '']}


def annotation(name, ts, dur):
    return {'ph': 'X', 'cat': 'user_annotation', 'name': name, 'pid': 100, 'tid': 100, 'ts': ts, 'dur': dur,
            'args': {}}


def attention(ts, tokens, corr, kdur):
    dims = [[tokens, 64, 64], [tokens, 8, 64], [tokens, 8, 64], [tokens, 64, 64], []]
    return [dict(g.op(OP, ts, 50), args={'Input Dims': dims, 'Input type': BF16}),
            g.launch(ts + 1, corr), g.kernel('kernel_unified_attention_2d', ts + 5, kdur, corr)]


def main():
    exe = sys.argv[1]
    ev = ([annotation(STEP1, 0, 500)] + attention(100, 32, 1, 100) +
          [annotation(STEP2, 1000, 500)] + attention(1100, 32, 2, 50) +
          attention(2000, 16, 3, 20) +
          # a fused MoE layer (mxfp4 weights packed two to a byte) and vLLM's fp8 scaled GEMM
          [dict(g.op('vllm::outplace_fused_experts', 3000, 50),
                args={'Input Dims': [[32, 2880], [32, 5760, 1440], [32, 2880, 1440], [32, 4], [32, 4]],
                      'Input type': ['c10::BFloat16', 'unsigned char', 'unsigned char', 'float', 'int']}),
           g.launch(3001, 4), g.kernel('_matmul_ogs_NNT_bf16xbf16xmxfp4', 3005, 40, 4),
           dict(g.op('_C::cutlass_scaled_mm', 4000, 50),
                args={'Input Dims': [[32, 1024], [32, 4096], [4096, 1024], [32, 1], [1, 1024], [1024]],
                      'Input type': ['c10::BFloat16', 'c10::Float8_e4m3fn', 'c10::Float8_e4m3fn', 'float', 'float',
                                     'c10::BFloat16']}),
           g.launch(4001, 5), g.kernel('cutlass_scaled_mm_sm90_fp8', 4005, 10, 5),
           dict(g.op('_C::paged_attention_v1', 5000, 50), args=PAGED), g.launch(5001, 6),
           g.kernel('paged_attention_v1_kernel', 5005, 20, 6), annotation(STEP3, 6000, 500),
           dict(g.op('_C::paged_attention_v1', 6100, 50), args=PAGED), g.launch(6101, 7),
           g.kernel('paged_attention_v1_kernel', 6105, 20, 7)])
    # by hand: step 1: P = 55086, FLOPs = 2*64*55086*128, bytes = 32*64*128*2 + 55086*8*128*2
    f1, b1 = 2 * 64 * 55086 * 128, 32 * 64 * 128 * 2 + 55086 * 8 * 128 * 2
    # step 2: P = (40 - 8 + 2) + (12 - 1 + 1) = 46, FLOPs = 2*64*46*128, bytes = 6*64*128*2 + 22*8*128*2
    f2, b2 = 2 * 64 * 46 * 128, 6 * 64 * 128 * 2 + 22 * 8 * 128 * 2
    check((f1, b1, f2, b2) == (902529024, 113340416, 753664, 143360), 'hand values', f1, b1, f2, b2)
    with tempfile.TemporaryDirectory(prefix='jv_infattn_') as tmp:
        rc, err, out, _ = g.analysed(exe, tmp, 'serving', ev)
        check(rc == 0, f'exit {rc}', err[-1000:])
        if rc:
            return finish()
        csvs = os.path.join(out, 'perf_report_csvs')
        uni = read_csv(os.path.join(csvs, 'unified_perf_summary.csv'))
        rows = {r['Input Dims'].split('),')[0]: r for r in uni if r['name'] == OP}
        two, lone = rows.get('((32, 64, 64'), rows.get('((16, 64, 64')
        check(two is not None and lone is not None, 'a row per shape', list(rows))
        if two:
            check(two['operation_count'] == '2', 'both steps in one row', two['operation_count'])
            check(close(float(two['GFLOPS']), f1 / 1e9), 'GFLOPS: the first call', two['GFLOPS'])
            check(close(float(two['Data Moved (MB)']), b1 / 2**20), 'Data Moved: the first call',
                  two['Data Moved (MB)'])
            want = (f1 / 1e12 / 100e-6 + f2 / 1e12 / 50e-6) / 2
            check(close(float(two['TFLOPS/s_mean']), want, rel=1e-6), 'TFLOPS/s_mean: each call its own model',
                  two['TFLOPS/s_mean'], want)
            check(two['No Model Reason'] == '', 'modelled: no reason', two['No Model Reason'])
        if lone:
            check(lone['GFLOPS'] == '' and lone['Data Moved (MB)'] == '', 'outside any step: no model',
                  lone['GFLOPS'])
            check(lone['No Model Reason'] == 'attention sized by sequence lengths the trace does not record',
                  'outside any step: the reason', lone['No Model Reason'])
        sheet = read_csv(os.path.join(csvs, 'InferenceAttention_fwd.csv'), optional=True)
        by_gsk = {r.get('param: g_sk'): r for r in sheet}
        check(sorted(by_gsk) == ['1000', '12', '4096', '55086'], 'InferenceAttention_fwd: a row per step',
              sorted(by_gsk))
        if sorted(by_gsk) == ['12', '55086']:
            check(close(float(by_gsk['55086']['GFLOPS_first']), f1 / 1e9), 'sheet: step 1 GFLOPS')
            check(close(float(by_gsk['12']['GFLOPS_first']), f2 / 1e9), 'sheet: step 2 GFLOPS')
            check(close(float(by_gsk['12']['Data Moved (MB)_first']), b2 / 2**20), 'sheet: step 2 bytes')
            check(by_gsk['12']['param: c_sqsk'] == '40' and by_gsk['12']['param: H_Q'] == '64',
                  'sheet: the params', by_gsk['12'])
        # the fused MoE: 2*32*2880*2880*4*2 + 2*32*2880*2880*4 + 32*2880*7 FLOPs (unit test: test_family_moe)
        moe = [r for r in uni if r['name'] == 'vllm::outplace_fused_experts']
        check(len(moe) == 1 and moe[0]['op category'] == 'MoE_fused' and
              close(float(moe[0]['GFLOPS'] or 'nan'), 6370744320 / 1e9), 'fused MoE: modelled, MoE_fused',
              moe[0] if moe else None)
        msheet = read_csv(os.path.join(csvs, 'MoE_fused.csv'), optional=True)
        check(len(msheet) == 1 and msheet[0].get('param: topk') == '4' and
              msheet[0].get('param: weight_pack') == '2', 'MoE_fused sheet', msheet)
        # the scaled GEMM: 2*32*1024*4096 + 32*1024 FLOPs, in the GEMM sheet
        mm = [r for r in uni if r['name'] == '_C::cutlass_scaled_mm']
        check(len(mm) == 1 and mm[0]['op category'] == 'GEMM' and
              close(float(mm[0]['GFLOPS'] or 'nan'), 268468224 / 1e9) and
              close(float(mm[0]['Data Moved (MB)'] or 'nan'), 4397184 / 2**20), 'cutlass_scaled_mm: modelled, GEMM',
              mm[0] if mm else None)
        # paged attention: outside a step bounded by max_seq_len (P = 4 * 1024: FLOPs 2*32*4096*256, bytes
        # 4*32*512 + 4*1024*8*256*2), inside STEP3 exact (P = 1000: FLOPs 2*32*1000*256, bytes 4*32*512 +
        # 1000*8*256*2); the first call gives the summary row's numbers
        pa = [r for r in uni if r['name'] == '_C::paged_attention_v1']
        check(len(pa) == 1 and pa[0]['operation_count'] == '2' and pa[0]['op category'] == 'SDPA_fwd' and
              close(float(pa[0]['GFLOPS'] or 'nan'), 67108864 / 1e9) and
              close(float(pa[0]['Data Moved (MB)'] or 'nan'), 16842752 / 2**20) and pa[0]['No Model Reason'] == '',
              'paged_attention_v1: one row, modelled', pa)
        if '4096' in by_gsk and '1000' in by_gsk:
            check(by_gsk['4096']['param: kv_lens'] == 'upper bound: max_seq_len 1024' and
                  close(float(by_gsk['4096']['GFLOPS_first']), 67108864 / 1e9), 'sheet: the bounded call',
                  by_gsk['4096'])
            check(by_gsk['1000']['param: kv_lens'] == 'step annotation' and
                  close(float(by_gsk['1000']['GFLOPS_first']), 16384000 / 1e9) and
                  close(float(by_gsk['1000']['Data Moved (MB)_first']), 4161536 / 2**20), 'sheet: the exact call',
                  by_gsk['1000'])
        gsheet = read_csv(os.path.join(csvs, 'GEMM.csv'), optional=True)
        check([r['param: K'] for r in gsheet] == ['4096'], 'GEMM sheet: the scaled GEMM', gsheet)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
