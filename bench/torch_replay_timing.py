"""The timing of bench/torch_replay.py, jarvis-replay's rules: the warm-up, batches of >= 100 us, the stop rule
(rsd < 0.5 % after >= 10 samples, or MAX_TIME_S of measured time), the --duty idle gap, event timing on CUDA
(Timer, with CUDA-graph timing) and perf_counter timing on the CPU (CpuTimer); the CPU's threads and last-level
cache. torch_replay.py imports it, re-exports its names and sets MAX_TIME_S from --time-limit."""
import math
import os
import re
import statistics
import time

# ---------------------------------------------------------------------------------------------------------
# Measuring (torch + CUDA)

WARMUP_S = 0.02
MIN_SAMPLE_S = 100e-6
MAX_TIME_S = 1.0
CPU_MAX_TIME_S = 0.25  # jarvis-replay's --time-limit default on the CPU
TARGET_RSD = 0.005
MIN_SAMPLES = 10
MAX_SAMPLES = 1000
GRAPH_BELOW_S = 20e-6
GRAPH_SPAN_S = 1e-3


def stats(samples):
    med = statistics.median(samples)
    mean = statistics.fmean(samples)
    rsd = statistics.pstdev(samples) / mean if len(samples) > 1 and mean > 0 else None
    return {"median_us": med * 1e6, "min_us": min(samples) * 1e6, "max_us": max(samples) * 1e6,
            "rsd": rsd, "samples": len(samples), "converged": rsd is not None and rsd < TARGET_RSD}


def converged(samples, measured):
    if len(samples) >= MAX_SAMPLES or measured >= MAX_TIME_S:
        return True
    if len(samples) < MIN_SAMPLES:
        return False
    m = statistics.fmean(samples)
    return m > 0 and statistics.pstdev(samples) / m < TARGET_RSD


DUTY_MAX_GAP_S = 0.05  # jarvis-replay's JV_DUTY_MAX_GAP_S


def duty_gap(sample_s, duty):
    """seconds to idle after a sample of sample_s seconds at duty cycle duty (jarvis-replay's jv_duty_gap)"""
    if not (0 < duty < 1) or not sample_s > 0:
        return 0.0
    return min(sample_s * (1 - duty) / duty, DUTY_MAX_GAP_S)


class Timer:
    def __init__(self, torch, duty=1.0):
        self.torch = torch
        self.duty = duty
        self.a = torch.cuda.Event(enable_timing=True)
        self.b = torch.cuda.Event(enable_timing=True)

    def span(self, fn, k=1, before=None):
        """seconds of k back-to-back calls of fn between two events (before() runs outside them)"""
        if before:
            before()
        self.a.record()
        for _ in range(k):
            fn()
        self.b.record()
        self.b.synchronize()
        return self.a.elapsed_time(self.b) / 1e3

    def warm(self, fn):
        """warm-up: at least 2 runs and WARMUP_S; returns an estimate of one run (s)"""
        t0 = time.perf_counter()
        est, n = self.span(fn), 1
        while time.perf_counter() - t0 < WARMUP_S or n < 2:
            est = self.span(fn)
            n += 1
        return est

    def _sample(self, one):
        samples, measured, t0, idled = [], 0.0, time.perf_counter(), 0.0
        while not converged(samples, measured) and time.perf_counter() - t0 - idled < 4 * MAX_TIME_S + 1:
            s, per = one()
            measured += s
            samples.append(per)
            gap = duty_gap(s, self.duty)  # the device idles (span() synchronized), as jarvis-replay --duty
            if gap > 0:
                time.sleep(gap)
                idled += gap
        return stats(samples)

    def hot(self, fn, est):
        k = max(1, min(10000, math.ceil(MIN_SAMPLE_S / max(est, 1e-9) - 1e-6)))

        def one():
            s = self.span(fn, k)
            return s, s / k

        out = self._sample(one)
        out["runs_per_sample"] = k
        return out

    def cold(self, fn, flush):
        def one():
            s = self.span(fn, 1, before=flush.zero_)
            return s, s

        return self._sample(one)

    def graph(self, fn, hot_s):
        torch = self.torch
        n = max(1, min(2000, math.ceil(GRAPH_SPAN_S / max(hot_s, 1e-7))))
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n):
                fn()
        g.replay()
        torch.cuda.synchronize()

        def one():
            s = self.span(g.replay)
            return s, s / n

        out = self._sample(one)
        out["runs_per_graph"] = n
        del g
        return out


class CpuTimer(Timer):
    """Timer's batches and stop rule on the CPU: time.perf_counter around calls that return when done"""

    def __init__(self, torch, duty=1.0):  # noqa: PLW0231 - no events on the CPU
        self.torch = torch
        self.duty = duty

    def span(self, fn, k=1, before=None):
        if before:
            before()
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        return time.perf_counter() - t0

    def cold(self, fn, flush):
        def one():
            s = self.span(fn, 1, before=lambda: flush.add_(1.0))  # read-modify-write, as jarvis-replay's CPU flush
            return s, s

        return self._sample(one)

    def graph(self, fn, hot_s):
        raise RuntimeError("no graph timing on the CPU")


def sync(torch, device):
    """wait for the device (a no-op on the CPU, where a call returns when it is done)"""
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def cpu_threads(requested=None):
    """threads for torch on the CPU: --threads, else OMP_NUM_THREADS, else the CPUs this process may use"""
    if requested:
        return requested
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0])
        if n > 0:
            return n
    except ValueError:
        pass
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def llc_bytes():
    """the largest cache sysfs lists for cpu0 (jarvis-replay's CPU backend reads the same), 0 when unknown"""
    best = 0
    for i in range(8):
        try:
            with open(f"/sys/devices/system/cpu/cpu0/cache/index{i}/size", encoding="ascii") as f:
                t = f.read().strip()
        except OSError:
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", t)
        if m:
            best = max(best, int(m.group(1)) * 1024 ** " KMG".index(m.group(2) or " "))
    return best
