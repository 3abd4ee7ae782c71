// stream_sweep.cu: a standalone STREAM sweep (copy c = a, triad c = a + s*b, add c = a + b over fp32 arrays)
// that asks whether any simple kernel configuration reaches 90 % of the datasheet bandwidth (H200: 4.8 TB/s,
// bytes read + written, decimal). No project dependencies; cudart is linked statically by nvcc's default.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o stream_sweep bench/stream_sweep.cu
// Usage: stream_sweep [MIB [CSV]]   MIB: size of each of the three arrays in MiB (default 1024);
//                                   CSV: also write the table there
// Environment: STREAM_SWEEP_PEAK_GBS (default 4800) is the bandwidth the percentages refer to.
//
// Variants, for each kernel (4 x 4 x 3 x 2 = 96 per kernel, 288 in all):
//   U     float4 vectors per thread per tile: 1, 2, 4, 8 (all loads of a tile issued before its stores)
//   block 128, 256, 512, 1024 threads (a template parameter too, for __launch_bounds__(block): without it a
//         1024-thread launch of the U = 8 kernels would need more registers than an SM has)
//   hint  default (plain loads/stores through const __restrict__ pointers: nvcc makes the loads ld.global.nc
//         already, so default and nc differ in the stores only), stream (__ldcs loads, __stcs stores:
//         ld/st.global.cs), nc (__ldg loads, __stcs stores)
//   grid  covering (one tile per thread: ceil(n4 / (block * U)) blocks) or persistent (k blocks per SM,
//         k from cudaOccupancyMaxActiveBlocksPerMultiprocessor, grid-stride loop over the tiles)
// Each variant: c is set to NaN, 3 warm-up launches, 20 launches timed one by one with cudaEvents (median and
// best), then 4096 sampled elements of c (the first and last included) are checked against the host; a
// mismatch marks the variant BAD, leaves it out of the summary, and makes the exit status 3.
// The configuration of the project's baseline kernel (U 2, block 256, default, covering) is marked '*'.
// Exit status: 0 ok, 1 CUDA error or bad usage, 3 some variant computed wrong results.
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "stream_sweep: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

enum { K_COPY = 0, K_TRIAD, K_ADD, K_COUNT };
enum { H_DEFAULT = 0, H_STREAM, H_NC, H_COUNT };
static const char *const kernel_names[K_COUNT] = {"copy", "triad", "add"};
static const char *const hint_names[H_COUNT] = {"default", "stream", "nc"};
static const int us[] = {1, 2, 4, 8};
static const int blocks[] = {128, 256, 512, 1024};
static const float S = 3.0f;
static const int WARMUP = 3, TIMED = 20, SAMPLES = 4096;

// ---- device ----

template <int H> __device__ __forceinline__ float4 ld(const float4 *p) {
    if constexpr (H == H_DEFAULT)
        return *p;
    else if constexpr (H == H_STREAM)
        return __ldcs(p);
    else
        return __ldg(p);
}

template <int H> __device__ __forceinline__ void st(float4 *p, float4 v) {
    if constexpr (H == H_DEFAULT)
        *p = v;
    else
        __stcs(p, v);
}

template <int K> __device__ __forceinline__ float op(float x, float y) {
    if constexpr (K == K_COPY)
        return x;
    else if constexpr (K == K_TRIAD)
        return x + S * y;
    else
        return x + y;
}

// tiles of B * U float4 vectors; thread t of a block moves vectors t, t + B, ..., t + (U-1) B of its tile
template <int K, int U, int H, int B>
__global__ void __launch_bounds__(B)
    stream_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b, float4 *__restrict__ c, int64_t n4) {
    constexpr int64_t tile = (int64_t)B * U;
    for (int64_t t0 = (int64_t)blockIdx.x * tile + threadIdx.x; t0 < n4; t0 += (int64_t)gridDim.x * tile) {
        float4 x[U], y[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t i = t0 + (int64_t)u * B;
            x[u] = y[u] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (i < n4) {
                x[u] = ld<H>(a + i);
                if constexpr (K != K_COPY) y[u] = ld<H>(b + i);
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t i = t0 + (int64_t)u * B;
            if (i < n4)
                st<H>(c + i, make_float4(op<K>(x[u].x, y[u].x), op<K>(x[u].y, y[u].y), op<K>(x[u].z, y[u].z),
                                         op<K>(x[u].w, y[u].w)));
        }
    }
}

// exactly representable values: every result of the three kernels is exact in fp32
__host__ __device__ inline float val_a(int64_t i) {
    return 1.0f + (float)(i % 1021) * 0.5f;
}
__host__ __device__ inline float val_b(int64_t i) {
    return 2.0f + (float)(i % 997) * 0.25f;
}

__global__ void fill_kernel(float *a, float *b, float *c, int64_t n) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        a[i] = val_a(i);
        b[i] = val_b(i);
        c[i] = 0.0f;
    }
}

__global__ void gather_kernel(const float *c, const int64_t *idx, float *out, int m) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) out[j] = c[idx[j]];
}

// ---- host ----

typedef void (*kernel_fn)(const float4 *, const float4 *, float4 *, int64_t);

template <int K, int U, int H> static kernel_fn pick_b(int b) {
    switch (b) {
    case 128: return stream_kernel<K, U, H, 128>;
    case 256: return stream_kernel<K, U, H, 256>;
    case 512: return stream_kernel<K, U, H, 512>;
    default: return stream_kernel<K, U, H, 1024>;
    }
}
template <int K, int U> static kernel_fn pick_h(int h, int b) {
    switch (h) {
    case H_DEFAULT: return pick_b<K, U, H_DEFAULT>(b);
    case H_STREAM: return pick_b<K, U, H_STREAM>(b);
    default: return pick_b<K, U, H_NC>(b);
    }
}
template <int K> static kernel_fn pick_u(int u, int h, int b) {
    switch (u) {
    case 1: return pick_h<K, 1>(h, b);
    case 2: return pick_h<K, 2>(h, b);
    case 4: return pick_h<K, 4>(h, b);
    default: return pick_h<K, 8>(h, b);
    }
}
static kernel_fn pick(int k, int u, int h, int b) {
    switch (k) {
    case K_COPY: return pick_u<K_COPY>(u, h, b);
    case K_TRIAD: return pick_u<K_TRIAD>(u, h, b);
    default: return pick_u<K_ADD>(u, h, b);
    }
}

static float expected(int k, int64_t i) {
    const float x = val_a(i), y = val_b(i);
    return k == K_COPY ? x : k == K_TRIAD ? x + S * y : x + y;
}

struct Result {
    int k, u, block, hint, persistent;
    unsigned grid;
    int regs, local_bytes, occ;
    double med_gbs, best_gbs, pct;
    bool ok;
};

static void print_line(FILE *f, const Result &r, bool csv, double peak) {
    const bool base = r.u == 2 && r.block == 256 && r.hint == H_DEFAULT && !r.persistent;
    if (csv)
        fprintf(f, "%s,%d,%d,%s,%s,%u,%.1f,%.1f,%.2f,%d,%d,%d,%s,%d\n", kernel_names[r.k], r.u, r.block,
                hint_names[r.hint], r.persistent ? "persistent" : "covering", r.grid, r.med_gbs, r.best_gbs, r.pct,
                r.regs, r.local_bytes, r.occ, r.ok ? "ok" : "BAD", base ? 1 : 0);
    else
        fprintf(f,
                "%-5s U=%d block=%4d hint=%-7s grid=%-10s %8u  median %7.1f GB/s  best %7.1f GB/s  %5.1f %% of %.0f"
                "  (regs %d, local %d B, %d blocks/SM)%s%s\n",
                kernel_names[r.k], r.u, r.block, hint_names[r.hint], r.persistent ? "persistent" : "covering", r.grid,
                r.med_gbs, r.best_gbs, r.pct, peak, r.regs, r.local_bytes, r.occ, r.ok ? "" : "  BAD RESULTS",
                base ? "  *" : "");
}

int main(int argc, char **argv) {
    long mib = 1024;
    if (argc > 1) {
        char *end = nullptr;
        mib = strtol(argv[1], &end, 10);
        if (!end || *end || mib < 1 || mib > (1L << 20)) {
            fprintf(stderr, "usage: %s [MIB (>= 1, default 1024) [CSV]]\n", argv[0]);
            return 1;
        }
    }
    const char *csv_path = argc > 2 ? argv[2] : nullptr;
    double peak = 4800.0;
    if (const char *p = getenv("STREAM_SWEEP_PEAK_GBS")) peak = atof(p) > 0 ? atof(p) : peak;

    int dev = 0;
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    int sms = 0, clk = 0, memclk = 0, bus = 0, l2 = 0, drv = 0, rt = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev));
    CK(cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, dev));
    CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    printf("stream_sweep: device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %.1f MiB\n", dev, prop.name,
           prop.major, prop.minor, sms, prop.totalGlobalMem / 1073741824.0, l2 / 1048576.0);
    printf("stream_sweep: peak clocks (attributes, not the current ones): SM %.0f MHz, memory %.0f MHz, bus %d bits"
           " (2 x memory clock x bus = %.0f GB/s); driver %d, runtime %d\n",
           clk / 1e3, memclk / 1e3, bus, 2.0 * memclk * 1e3 * (bus / 8) / 1e9, drv, rt);

    const int64_t n = (int64_t)mib * (1 << 18); // floats per array, a multiple of 4
    const int64_t n4 = n / 4;
    const size_t bytes = (size_t)n * sizeof(float);
    printf("stream_sweep: 3 arrays of %ld MiB (%lld floats; %.1fx the L2 together), %d warm-up + %d timed launches"
           " per variant, %% of %.0f GB/s\n",
           mib, (long long)n, l2 > 0 ? 3.0 * bytes / l2 : 0.0, WARMUP, TIMED, peak);

    float *a, *b, *c, *d_out;
    int64_t *d_idx;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    CK(cudaMalloc(&d_idx, SAMPLES * sizeof(int64_t)));
    CK(cudaMalloc(&d_out, SAMPLES * sizeof(float)));
    fill_kernel<<<sms * 8, 256>>>(a, b, c, n);
    CK(cudaGetLastError());

    // sampled indices: the first and last elements, the ends of the first tiles, then spread pseudo-randomly
    std::vector<int64_t> idx(SAMPLES);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int j = 0; j < SAMPLES; j++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        idx[j] = (int64_t)(x % (uint64_t)n);
    }
    idx[0] = 0, idx[1] = n - 1, idx[2] = n - 4, idx[3] = n / 2;
    for (int j = 0; j < 8 && 4 + j < SAMPLES; j++)
        idx[4 + j] = std::min<int64_t>(n - 1, (int64_t)(128 << j) * 4 - 1);
    CK(cudaMemcpy(d_idx, idx.data(), SAMPLES * sizeof(int64_t), cudaMemcpyHostToDevice));
    std::vector<float> got(SAMPLES);

    FILE *csv = nullptr;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "stream_sweep: cannot write %s: %s\n", csv_path, strerror(errno));
            return 1;
        }
        fprintf(csv, "kernel,U,block,hint,grid_mode,grid,median_GBps,best_GBps,pct_of_peak_median,regs,local_bytes,"
                     "blocks_per_sm,check,baseline_config\n");
    }

    cudaEvent_t ev[2 * TIMED];
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    CK(cudaDeviceSynchronize());

    std::vector<Result> all;
    int bad = 0;
    cudaEvent_t t_all0, t_all1;
    CK(cudaEventCreate(&t_all0));
    CK(cudaEventCreate(&t_all1));
    CK(cudaEventRecord(t_all0));
    for (int k = 0; k < K_COUNT; k++) {
        const double moved = (double)bytes * (k == K_COPY ? 2 : 3);
        for (int u : us)
            for (int blk : blocks)
                for (int h = 0; h < H_COUNT; h++)
                    for (int pers = 0; pers < 2; pers++) {
                        kernel_fn fn = pick(k, u, h, blk);
                        cudaFuncAttributes fa;
                        CK(cudaFuncGetAttributes(&fa, (const void *)fn));
                        int occ = 0;
                        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void *)fn, blk, 0));
                        Result r{k, u, blk, h, pers, 0, fa.numRegs, (int)fa.localSizeBytes, occ, 0, 0, 0, false};
                        if (occ < 1 || blk > fa.maxThreadsPerBlock) {
                            printf("%-5s U=%d block=%4d hint=%-7s grid=%-10s SKIPPED: cannot launch (occupancy %d, "
                                   "max threads %d)\n",
                                   kernel_names[k], u, blk, hint_names[h], pers ? "persistent" : "covering", occ,
                                   fa.maxThreadsPerBlock);
                            continue;
                        }
                        const int64_t tiles = (n4 + (int64_t)blk * u - 1) / ((int64_t)blk * u);
                        r.grid = pers ? (unsigned)std::min<int64_t>((int64_t)occ * sms, tiles)
                                      : (unsigned)std::min<int64_t>(tiles, 0x7fffffff);
                        const float4 *a4 = reinterpret_cast<const float4 *>(a);
                        const float4 *b4 = reinterpret_cast<const float4 *>(b);
                        float4 *c4 = reinterpret_cast<float4 *>(c);
                        CK(cudaMemset(c, 0xff, bytes)); // NaN: a variant that writes nothing fails the check
                        for (int w = 0; w < WARMUP; w++)
                            fn<<<r.grid, blk>>>(a4, b4, c4, n4);
                        CK(cudaGetLastError());
                        for (int t = 0; t < TIMED; t++) {
                            CK(cudaEventRecord(ev[2 * t]));
                            fn<<<r.grid, blk>>>(a4, b4, c4, n4);
                            CK(cudaEventRecord(ev[2 * t + 1]));
                        }
                        CK(cudaGetLastError());
                        gather_kernel<<<(SAMPLES + 255) / 256, 256>>>(c, d_idx, d_out, SAMPLES);
                        CK(cudaGetLastError());
                        CK(cudaMemcpy(got.data(), d_out, SAMPLES * sizeof(float), cudaMemcpyDeviceToHost));
                        std::vector<double> gbs(TIMED);
                        for (int t = 0; t < TIMED; t++) {
                            float ms = 0;
                            CK(cudaEventElapsedTime(&ms, ev[2 * t], ev[2 * t + 1]));
                            gbs[t] = ms > 0 ? moved / (ms * 1e-3) / 1e9 : 0.0;
                        }
                        std::sort(gbs.begin(), gbs.end());
                        r.med_gbs = (gbs[TIMED / 2 - 1] + gbs[TIMED / 2]) / 2; // TIMED is even
                        r.best_gbs = gbs[TIMED - 1];
                        r.pct = 100.0 * r.med_gbs / peak;
                        int wrong = 0;
                        for (int j = 0; j < SAMPLES; j++) {
                            const float e = expected(k, idx[j]);
                            if (!(fabsf(got[j] - e) <= 1e-6f * fabsf(e))) {
                                if (wrong < 3)
                                    fprintf(stderr, "stream_sweep: %s U=%d block=%d %s %s: c[%lld] = %g, expected %g\n",
                                            kernel_names[k], u, blk, hint_names[h], pers ? "persistent" : "covering",
                                            (long long)idx[j], got[j], e);
                                wrong++;
                            }
                        }
                        r.ok = wrong == 0;
                        bad += !r.ok;
                        print_line(stdout, r, false, peak);
                        fflush(stdout);
                        if (csv) print_line(csv, r, true, peak), fflush(csv);
                        all.push_back(r);
                    }
    }
    CK(cudaEventRecord(t_all1));
    CK(cudaEventSynchronize(t_all1));
    float total_ms = 0;
    CK(cudaEventElapsedTime(&total_ms, t_all0, t_all1));

    printf("\nstream_sweep: best variant by median per kernel (* = the baseline kernel's configuration):\n");
    for (int k = 0; k < K_COUNT; k++) {
        const Result *best = nullptr, *base = nullptr;
        int n90 = 0, cnt = 0;
        for (const Result &r : all) {
            if (r.k != k || !r.ok) continue;
            cnt++;
            n90 += r.pct >= 90.0;
            if (!best || r.med_gbs > best->med_gbs) best = &r;
            if (r.u == 2 && r.block == 256 && r.hint == H_DEFAULT && !r.persistent) base = &r;
        }
        if (!best) {
            printf("  %-5s no valid variant\n", kernel_names[k]);
            continue;
        }
        printf("  best: ");
        print_line(stdout, *best, false, peak);
        if (base) printf("  base: "), print_line(stdout, *base, false, peak);
        printf("  %-5s %d of %d valid variants reach >= 90 %% of %.0f GB/s (median)\n", kernel_names[k], n90, cnt,
               peak);
    }
    printf("stream_sweep: %zu variants in %.1f s of GPU time, %d with wrong results\n", all.size(), total_ms / 1e3,
           bad);
    if (csv) fclose(csv);
    for (auto &e : ev)
        cudaEventDestroy(e);
    cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d_idx), cudaFree(d_out);
    if (bad) {
        fprintf(stderr, "stream_sweep: %d variant(s) computed wrong results\n", bad);
        return 3;
    }
    return 0;
}
