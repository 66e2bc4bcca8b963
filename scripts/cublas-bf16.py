"""cuBLAS's best rate for an 8192^3 matrix product through PyTorch, BF16 and, where PyTorch has
torch._scaled_mm, FP8 (E4M3, BF16 out): the figures gputopo's wgmma rows are set beside."""
import time

import torch

N = 8192


def best_tflops(product):
    for _ in range(5):
        product()
    torch.cuda.synchronize()
    best = 0.0
    for _ in range(5):
        t = time.perf_counter()
        n = 20
        for _ in range(n):
            product()
        torch.cuda.synchronize()
        best = max(best, n * 2 * N**3 / (time.perf_counter() - t) / 1e12)
    return best


a = torch.randn(N, N, dtype=torch.bfloat16, device="cuda")
b = torch.randn(N, N, dtype=torch.bfloat16, device="cuda")
print(f"cuBLAS bf16 8192^3: {best_tflops(lambda: a @ b):.1f} TFLOP/s")
try:
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.to(torch.float8_e4m3fn).t().contiguous().t()  # column-major, as _scaled_mm wants
    one = torch.ones((), device="cuda")
    rate = best_tflops(lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16))
    print(f"cuBLAS fp8 e4m3 8192^3: {rate:.1f} TFLOP/s")
except (AttributeError, RuntimeError, TypeError) as e:
    print(f"cuBLAS fp8 e4m3: not run ({e})")
