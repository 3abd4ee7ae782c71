#!/usr/bin/env python3
"""What PyTorch reaches on this GPU, measured the way jarvis-replay measures (CUDA events, warm-up, median of
timed repetitions), for comparison in the same session: an 8192^3 bf16 matmul (TFLOP/s) and a 1 GiB device-to-
device copy (bytes read + written per second). Prints one JSON object."""
import json, statistics, torch


def timed(fn, reps=20, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    return statistics.median(times), min(times), max(times)


def main():
    dev = torch.cuda.get_device_properties(0)
    n = 8192
    x = torch.randn(n, n, device='cuda', dtype=torch.bfloat16)
    y = torch.randn(n, n, device='cuda', dtype=torch.bfloat16)
    med, lo, hi = timed(lambda: torch.matmul(x, y))
    src = torch.randn(1 << 28, device='cuda', dtype=torch.float32)  # 1 GiB
    dst = torch.empty_like(src)
    cmed, clo, chi = timed(lambda: dst.copy_(src))
    print(json.dumps({
        'device': dev.name, 'torch': torch.__version__, 'cuda': torch.version.cuda,
        'matmul_bf16_8192_tflops': 2 * n ** 3 / med / 1e12, 'matmul_median_s': med, 'matmul_min_s': lo,
        'matmul_max_s': hi, 'copy_1GiB_bytes_per_s': 2 * src.numel() * 4 / cmed, 'copy_median_s': cmed,
    }, indent=1))


if __name__ == '__main__':
    main()
