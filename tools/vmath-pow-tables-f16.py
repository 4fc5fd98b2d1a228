#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# vmath-pow-tables-f16.py: the 32-entry tables and float polynomials of vmath-pow.c's AVX-512 and AVX2 powf (and logf)
import math, struct
from fractions import Fraction as F
from decimal import Decimal as D, getcontext
getcontext().prec = 50
def f32(b): return struct.unpack('<f', struct.pack('<I', b))[0]
def fl(v): return struct.unpack('<f', struct.pack('<f', float(v)))[0]
def fit(fn, a, b, deg):
    n = deg + 1
    xs = [(a + b) / 2 + (b - a) / 2 * math.cos(math.pi * (2 * i + 1) / (2 * n)) for i in range(n)]
    A = [[F(x) ** k for k in range(n)] for x in xs]
    v = [F(fn(x)) for x in xs]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(A[r][c]))
        A[c], A[p] = A[p], A[c]; v[c], v[p] = v[p], v[c]
        for r in range(n):
            if r != c and A[r][c] != 0:
                m = A[r][c] / A[c][c]
                A[r] = [A[r][k] - m * A[c][k] for k in range(n)]; v[r] -= m * v[c]
    return [float(v[i] / A[i][i]) for i in range(n)]
OFF = 0x3f360000
N = 32
cands = sorted(set([k / 32 for k in range(32, 64)] + [k / 64 for k in range(32, 64)]))  # 6-bit values in [0.5, 2)
invc = []; lch = []; lcl = []; rmax = 0
for j in range(N):
    lo = f32(OFF + (j << 18)); hi = f32(OFF + ((j + 1) << 18) - 1)
    if lo <= 1.0 <= hi:
        ic = 1.0
    else:
        ic = min(cands, key=lambda c: max(abs(lo * c - 1), abs(hi * c - 1)))
    invc.append(ic)
    rmax = max(rmax, abs(lo * ic - 1), abs(hi * ic - 1))
    lc = -D(ic).ln() / D(2).ln()
    h = round(lc * (2 ** 15)) / 2 ** 15
    lch.append(h); lcl.append(fl(lc - D(h)))
print("rmax", rmax, math.log2(rmax))
L1 = D(1) / D(2).ln()
L1h = fl(L1); L1l = fl(L1 - D(L1h))
print("L1", L1h.hex(), L1l.hex())
def pf(r):
    if abs(r) < 1e-6:
        return -0.5 / math.log(2) + r / 3 / math.log(2)
    return float((D(math.log1p(r)) / D(2).ln() - D(r) * L1) / (D(r) ** 2))
P = [fl(c) for c in fit(pf, -rmax, rmax, 4)]
err = max(abs(sum(P[k] * r ** k for k in range(5)) - pf(r)) for r in [-rmax + 2 * rmax * i / 4000 for i in range(4001)] if abs(r) > 1e-5)
print("P", [c.hex() for c in P], "abs err of P", err, math.log2(err))
ef = lambda f: math.expm1(f * math.log(2)) / f if f != 0 else math.log(2)
E = [fl(c) for c in fit(ef, -0.5, 0.5, 5)]
err = max(abs(1 + f * sum(E[k] * f ** k for k in range(6)) - 2 ** f) / 2 ** f for f in [-0.5 + i / 4000 for i in range(4001)])
print("E", [c.hex() for c in E], "rel err", err, math.log2(err))
print("invc", ", ".join(fl(x).hex() + "f" for x in invc))
print("lch", ", ".join(float(x).hex() + "f" for x in lch))
print("lcl", ", ".join(float(x).hex() + "f" for x in lcl))
LN2 = D(2).ln()
def qf(r):
    if abs(r) < 1e-6:
        return -0.5 + r / 3
    return float((D(math.log1p(r)) - D(r)) / (D(r) ** 2))
Q = [fl(c) for c in fit(qf, -rmax, rmax, 4)]
err = max(abs(sum(Q[k] * r ** k for k in range(5)) - qf(r)) for r in [-rmax + 2 * rmax * i / 4000 for i in range(4001)] if abs(r) > 1e-5)
print("Q", [c.hex() for c in Q], "abs err of Q", err, math.log2(err))
l2h = fl(LN2); l2l = fl(LN2 - D(l2h))
print("LN2", l2h.hex(), l2l.hex())
