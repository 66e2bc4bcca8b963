import torch, time
a = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
b = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
for _ in range(5): a @ b
torch.cuda.synchronize()
best = 0
for _ in range(5):
    t = time.perf_counter(); n = 20
    for _ in range(n): a @ b
    torch.cuda.synchronize()
    best = max(best, n * 2 * 8192**3 / (time.perf_counter() - t) / 1e12)
print(f"cuBLAS bf16 8192^3: {best:.1f} TFLOP/s")
