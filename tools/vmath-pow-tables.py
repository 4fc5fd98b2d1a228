#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# vmath-pow-tables.py: the tables and polynomial coefficients of adapters/native/vmath-pow.c
# (the double version: SSE2 and AVX2) and vmath-avx512.c (sin, exp); --f16: those of
# vmath-pow.c's AVX-512 single-precision version.
import sys
if '--f16' in sys.argv:
    exec(open(__file__.replace('vmath-pow-tables.py', 'vmath-pow-tables-f16.py')).read())
    sys.exit(0)
import math, struct
from fractions import Fraction as F
def f32(b): return struct.unpack('<f', struct.pack('<I', b))[0]
def dbits(d): return struct.unpack('<Q', struct.pack('<d', d))[0]
OFF = 0x3f340000
N = 16
rmin = rmax = 0
invc = []; logc = []
for j in range(N):
    lo = f32(OFF + (j << 19)); hi = f32(OFF + ((j + 1) << 19))
    if lo <= 1.0 < hi:
        c = 1.0; ic = 1.0
    else:
        c = (lo + hi) / 2; ic = 1.0 / c
    invc.append(ic)
    # log2(1/ic) accurately: use Fraction-free high precision via math.log with correction
    logc.append(-math.log2(ic) if ic != 1.0 else 0.0)
    rmin = min(rmin, lo * ic - 1); rmax = max(rmax, hi * ic - 1)
print("r range", rmin, rmax)
# Chebyshev nodes fit, exact rational solve
def fit(fn, a, b, deg):
    n = deg + 1
    xs = [ (a + b) / 2 + (b - a) / 2 * math.cos(math.pi * (2 * i + 1) / (2 * n)) for i in range(n)]
    A = [[F(x) ** k for k in range(n)] for x in xs]
    v = [F(fn(x)) for x in xs]
    # gauss
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(A[r][c]))
        A[c], A[p] = A[p], A[c]; v[c], v[p] = v[p], v[c]
        for r in range(n):
            if r != c and A[r][c] != 0:
                m = A[r][c] / A[c][c]
                A[r] = [A[r][k] - m * A[c][k] for k in range(n)]; v[r] -= m * v[c]
    return [float(v[i] / A[i][i]) for i in range(n)]
L2 = 1 / math.log(2)
lf = lambda r: math.log1p(r) / r * L2 if r != 0 else L2
C = fit(lf, rmin, rmax, 4)
err = max(abs((sum(C[k] * r ** k for k in range(5)) - lf(r)) / lf(r)) for r in [rmin + (rmax - rmin) * i / 20000 for i in range(20001)] if r != 0)
print("log C", [c.hex() for c in C], "rel err", err, math.log2(err))
ef = lambda r: math.expm1(r * math.log(2)) / r if r != 0 else math.log(2)
E = fit(ef, -1/32, 1/32, 2)
err = max(abs((1 + r * sum(E[k] * r ** k for k in range(3))) - 2 ** r) / 2 ** r for r in [-1/32 + i / 320000 for i in range(20001)])
print("exp E", [e.hex() for e in E], "rel err", err, math.log2(err))
print("invc", ", ".join(x.hex() for x in invc))
print("logc", ", ".join(x.hex() for x in logc))
T = [ (dbits(2.0 ** (j / N)) - (j << 48)) & (2**64-1) for j in range(N)]
print("exp2t", ", ".join("0x%016x" % t for t in T))
print("exp2d", ", ".join(float.hex(2.0 ** (j / N)) for j in range(N)))
