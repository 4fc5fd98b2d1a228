#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generate the builtin comparison test from the same table of signatures
as the library (adapters/native/builtins.tsv).

Each overload family gets kernels that call every overload (per pointer
address space: global, local, private, constant where the table has them)
on inputs read from `in` and write every result to `out`. The same source
is built three times: CL2.0 and CL1.2 host images for the native device
(CL2.0 reaches the generic-pointer overloads, CL1.2 the named ones) and
CL1.2 for PoCL, the reference. The host side (bt-run.c) fills the inputs
from the domains written here, runs every kernel on both and compares
with the tolerances written here (OpenCL C 1.2, 7.4 for the math ulps).
Rows only OpenCL C 2.0 has (C11 atomics, get_fence) go to kernels run on
the native device alone and checked against the specification's result.

usage: ocl-builtins-testgen.py TABLE.tsv OUTDIR
"""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib
gen = importlib.import_module('ocl-builtins-gen')
Ty = gen.Ty

TCODE = {'char': 0, 'uchar': 1, 'short': 2, 'ushort': 3, 'int': 4, 'uint': 5, 'long': 6, 'ulong': 7,
         'float': 8, 'double': 9, 'half': 10, 'size_t': 7}
SIZE = {'char': 1, 'uchar': 1, 'short': 2, 'ushort': 2, 'int': 4, 'uint': 4, 'long': 8, 'ulong': 8,
        'float': 4, 'double': 8, 'half': 2, 'size_t': 8}

# input domains (bt-run.c knows them by number)
D = dict(ANY=0, SPECIAL=1, UNIT=2, POS=3, GE1=4, SMALL=5, EXP=6, GAMMA=7, NONZERO=8, INTSMALL=9,
         ROOTN=10, FRAC01=11, LO=12, HI=13, EDGE0=14, EDGE1=15, I24=16, CONVSAT=17, BITS=18,
         ATOM=19, HALFRANGE=20, D2F=21, LDEXP=22, TRIG=23, SHIFT=24)
CONV_IN = 100
V20 = {'ctz'}  # + destination type code: floats inside that type's range

FDOM = {
    'acos': ['UNIT'], 'asin': ['UNIT'], 'acospi': ['UNIT'], 'asinpi': ['UNIT'], 'atanh': ['UNIT'],
    'acosh': ['GE1'], 'log': ['POS'], 'log2': ['POS'], 'log10': ['POS'], 'log1p': ['POS'],
    'sqrt': ['POS'], 'rsqrt': ['POS'], 'lgamma': ['GAMMA'], 'tgamma': ['GAMMA'], 'lgamma_r': ['GAMMA'],
    'exp': ['EXP'], 'exp2': ['EXP'], 'exp10': ['EXP'], 'expm1': ['EXP'], 'sinh': ['EXP'],
    'cosh': ['EXP'], 'pow': ['POS', 'SMALL'], 'powr': ['POS', 'SMALL'], 'pown': ['SMALL', 'INTSMALL'],
    'rootn': ['POS', 'ROOTN'], 'ldexp': ['SMALL', 'LDEXP'], 'fmod': ['SMALL', 'NONZERO'],
    'remainder': ['SMALL', 'NONZERO'], 'remquo': ['SMALL', 'NONZERO'], 'mix': ['SMALL', 'SMALL', 'FRAC01'],
    'clamp': ['SMALL', 'LO', 'HI'], 'smoothstep': ['EDGE0', 'EDGE1', 'SMALL'],
    'divide': ['SMALL', 'NONZERO'], 'recip': ['NONZERO'], 'sin': ['TRIG'], 'cos': ['TRIG'],
    'tan': ['TRIG'], 'sincos': ['TRIG'], 'nan': ['BITS'], 'bitselect': ['BITS', 'BITS', 'BITS'],
    'mul24': ['I24', 'I24'], 'mad24': ['I24', 'I24', 'I24'],
    'select': ['BITS', 'BITS', 'BITS'], 'shuffle': ['BITS', 'BITS'], 'shuffle2': ['BITS', 'BITS', 'BITS'],
    'any': ['BITS'], 'all': ['BITS'], 'rotate': ['ANY', 'SHIFT'],
}
for r in ('isequal', 'isnotequal', 'isgreater', 'isgreaterequal', 'isless', 'islessequal',
          'islessgreater', 'isfinite', 'isinf', 'isnan', 'isnormal', 'isordered', 'isunordered', 'signbit',
          'copysign', 'fabs', 'nextafter', 'ceil', 'floor', 'trunc', 'round', 'rint', 'logb', 'ilogb',
          'fract', 'modf', 'frexp', 'fmax', 'fmin', 'maxmag', 'minmag', 'sign'):
    FDOM[r] = ['SPECIAL', 'SPECIAL']

# float tolerances in ulp (OpenCL C 1.2, 7.4; -1: implementation-defined,
# checked loosely as a relative error of 1e-3, and only for finite results)
ULP = {'acos': 4, 'acosh': 4, 'acospi': 5, 'asin': 4, 'asinh': 4, 'asinpi': 5, 'atan': 5, 'atan2': 6,
       'atanh': 5, 'atanpi': 5, 'atan2pi': 6, 'cbrt': 2, 'cos': 4, 'cosh': 4, 'cospi': 4, 'erfc': 16,
       'erf': 16, 'exp': 3, 'exp2': 3, 'exp10': 3, 'expm1': 3, 'hypot': 4, 'lgamma': 16, 'lgamma_r': 16,
       'log': 3, 'log2': 3, 'log10': 3, 'log1p': 2, 'pow': 16, 'pown': 16, 'powr': 16, 'rootn': 16,
       'rsqrt': 2, 'sin': 4, 'sincos': 4, 'sinh': 4, 'sinpi': 4, 'sqrt': 3, 'tan': 5, 'tanh': 5,
       'tanpi': 6, 'tgamma': 16, 'degrees': 2, 'radians': 2, 'divide': 3, 'recip': 3,
       'mad': -1, 'mix': -1, 'smoothstep': -1, 'dot': -1, 'length': -1, 'distance': -1,
       'normalize': -1, 'cross': -1, 'fast_length': -1, 'fast_distance': -1, 'fast_normalize': -1}


def tol_of(name, elem):
    """tolerance code for an output: 0 exact, >0 ulp, -1 loose"""
    if elem not in ('float', 'double'):
        return 0
    m = re.match(r'^(native|half)_(\w+)$', name)
    if m:
        return -1
    if name.startswith('convert_') or name.startswith('vload'):
        return 0
    return ULP.get(name, 0)


class Kernel:
    def __init__(self, name):
        self.name, self.lines = name, []
        self.inp, self.out, self.lm, self.lcur = 0, 0, 0, 0
        self.ins, self.outs = [], []
        self.v20 = set()  # outputs only a CL2.0 (or 3.0) build computes
        self.nat = set()  # outputs PoCL cannot compute (cl_khr_fp16 types)
        self.copies = {}  # output -> (input offset, element bytes, stride, gather?, count) of an async copy
        self.args = {}  # output -> (input offset, type code) of its call's first value argument

    def alloc_in(self, ty_elem, n, dom, count=None):
        sz = SIZE[ty_elem] * (4 if n == 3 else n)
        cnt = count if count is not None else n
        al = min(128, sz if count is None else SIZE[ty_elem])
        self.inp = (self.inp + al - 1) // al * al
        off = self.inp
        tot = sz if count is None else SIZE[ty_elem] * count
        self.inp += tot
        self.ins.append((off, TCODE[ty_elem], cnt if count is not None else n, dom))
        return off

    def alloc_out(self, ty_elem, n, tol, what, count=None):
        sz = SIZE[ty_elem] * (4 if n == 3 else n)
        al = min(128, sz if count is None else SIZE[ty_elem])
        self.out = (self.out + al - 1) // al * al
        off = self.out
        self.out += sz if count is None else SIZE[ty_elem] * count
        self.outs.append((off, TCODE[ty_elem], count if count is not None else n, tol, what))
        return off

    def alloc_lm(self, nbytes):
        # calls run one after another: each starts again at 0 (new_call)
        self.lcur = (self.lcur + 127) // 128 * 128
        off = self.lcur
        self.lcur += nbytes
        self.lm = max(self.lm, self.lcur)
        return off

    def new_call(self):
        self.lcur = 0


def dom_for(name, k, ty, conv_dst=None, sat=False):
    if name.startswith('convert_') and ty.elem in ('float', 'double'):
        if sat:
            return D['CONVSAT']
        if conv_dst in ('float', 'double'):
            return D['D2F']
        return CONV_IN + TCODE[conv_dst]
    if name.startswith('vstore') and 'half' in name:
        return D['HALFRANGE']
    base = re.sub(r'^(native|half)_', '', name)
    lst = FDOM.get(base)
    if lst:
        d = lst[min(k, len(lst) - 1)]
        if ty.elem in ('float', 'double') or d in ('I24', 'BITS', 'LO', 'HI', 'INTSMALL', 'ROOTN',
                                                   'LDEXP', 'SHIFT'):
            return D[d]
    if ty.elem in ('float', 'double'):
        return D['SMALL']
    return D['ANY']


def emit_call(K, name, ret, ps, space):
    """One call of `name` with pointer params in `space`; returns False if
    the overload has no such variant."""
    m = re.match(r'^convert_([a-z]+)\d*(_sat)?', name)
    conv_dst, sat = (m.group(1), bool(m.group(2))) if m else (None, False)
    args, pre, post = [], [], []
    K.new_call()
    first_out = len(K.outs)
    first_arg = None  # where the specification's value of an output is computed from (bt-run.c)
    ret_tol = tol_of(name, ret.elem)
    for k, p in enumerate(ps):
        if not p.ptr:
            if p.base in ('event_t',):
                args.append('0')
                continue
            if p.base in ('memory_order', 'memory_scope'):
                args.append('memory_order_seq_cst' if p.base == 'memory_order' else 'memory_scope_device')
                continue
            dom = dom_for(name, k, p, conv_dst, sat)
            if p.base == 'size_t':
                args.append('1')
                continue
            off = K.alloc_in(p.elem, p.n, dom)
            if first_arg is None:
                first_arg = (off, TCODE[p.elem])
            args.append('LD(%s, %d)' % (p.base, off))
            continue
        # pointers
        is_const = 'const' in p.text.split()
        el = p.base
        if name.startswith(('vload', 'vstore')):
            N = int(re.search(r'(\d+)', name.replace('half', 'x')).group(1)) if re.search(r'\d', name) else 1
            step = 4 if ('vloada' in name or 'vstorea' in name) and N == 3 else N
            cnt = 2 * step
            if name.startswith('vload'):
                dom = D['BITS'] if el == 'half' else dom_for(name, 0, p)
                src_el = 'ushort' if el == 'half' else el
                off = K.alloc_in('ushort' if el == 'half' else el, 1, dom, count=cnt)
                sp = {'global': '__global', 'local': '__local', 'private': '__private', 'constant': '__constant'}[space]
                if space == 'global':
                    args.append('(const __global %s *)(in + %d)' % (el, off))
                elif space == 'constant':
                    args.append('(const __constant %s *)(cin + %d)' % (el, off))
                elif space == 'local':
                    lo = K.alloc_lm(cnt * SIZE[src_el])
                    pre.append('LCOPY(%d, %d, %d);' % (lo, off, cnt * SIZE[src_el]))
                    args.append('(const __local %s *)(lm + %d)' % (el, lo))
                else:
                    pre.append('%s pb[%d]; for (int q = 0; q < %d; q++) pb[q] = ((const __global %s *)(in + %d))[q];'
                               % (src_el, cnt, cnt, src_el, off))
                    args.append('(const __private %s *)pb' % el)
            else:
                # vstore: data written at offset 1, i.e. elements [step, step + N)
                dst_el = 'ushort' if el == 'half' else el
                tol = 0
                o = K.alloc_out(el if el == 'half' else dst_el, 1, tol, name, count=cnt)
                if space == 'global':
                    args.append('(__global %s *)(out + %d)' % (el, o))
                elif space == 'local':
                    lo = K.alloc_lm(cnt * SIZE[dst_el])
                    args.append('(__local %s *)(lm + %d)' % (el, lo))
                    post.append('OCOPY(%d, %d, %d);' % (o + step * SIZE[dst_el], lo + step * SIZE[dst_el],
                                                        N * SIZE[dst_el]))
                elif space == 'private':
                    pre.append('%s pb[%d];' % (dst_el, cnt))
                    args.append('(__private %s *)pb' % el)
                    post.append('for (int q = 0; q < %d; q++) ((__global %s *)(out + %d))[%d + q] = pb[%d + q];'
                                % (N, dst_el, o, step, step))
                else:
                    return False
            continue
        if name.startswith(('atomic_', 'atom_')):
            # the atomic object: initialised from an input, final value recorded
            t = p.elem
            off = K.alloc_in(t, 1, D['ATOM'])
            o = K.alloc_out(t, 1, 0, name + ' (memory)')
            ut = '(%s)' % t
            if space == 'global':
                pre.append('*(__global %s *)(out + %d) = LD(%s, %d);' % (t, o, t, off))
                args.append('(volatile __global %s *)(out + %d)' % (t, o))
            elif space == 'local':
                lo = K.alloc_lm(8)
                pre.append('*(__local %s *)(lm + %d) = LD(%s, %d);' % (t, lo, t, off))
                args.append('(volatile __local %s *)(lm + %d)' % (t, lo))
                post.append('*(__global %s *)(out + %d) = *(__local %s *)(lm + %d);' % (t, o, t, lo))
            else:
                return False
            continue
        if name.startswith('async_work_group'):
            first = len(K.outs)
            if not emit_async(K, name, ps, space):
                return False
            if p.elem == 'half':  # cl_khr_fp16 types: PoCL has none; checked as the copy the spec says
                K.lines[-1] = '\n#ifdef cl_khr_fp16\n    %s\n#endif\n' % K.lines[-1]
                K.nat.update(range(first, len(K.outs)))
            return True
        if name == 'prefetch' and p.elem == 'half':
            K.lines.append('\n#ifdef cl_khr_fp16\n    prefetch((const __global %s *)(in), 1);\n#endif\n' % p.base)
            return True
        if name == 'prefetch':
            off = K.alloc_in(p.elem, p.n, D['ANY'])
            args.append('(const __global %s *)(in + %d)' % (p.base, off))
            continue
        # an out-parameter (fract, modf, sincos, frexp, lgamma_r, remquo)
        tol = 0 if p.elem not in ('float', 'double') else tol_of(name, p.elem)
        if name == 'remquo':
            tol = 0
        o = K.alloc_out(p.elem, p.n, tol, name + ' (out)')
        if space == 'global':
            args.append('(__global %s *)(out + %d)' % (p.base, o))
        elif space == 'local':
            lo = K.alloc_lm(SIZE[p.elem] * (4 if p.n == 3 else p.n))
            args.append('(__local %s *)(lm + %d)' % (p.base, lo))
            post.append('OCOPY(%d, %d, %d);' % (o, lo, SIZE[p.elem] * (4 if p.n == 3 else p.n)))
        elif space == 'private':
            pre.append('%s pv;' % p.base)
            args.append('&pv')
            post.append('*(__global %s *)(out + %d) = pv;' % (p.base, o))
        else:
            return False
    call = '%s(%s)' % (name, ', '.join(args))
    if ret.base == 'void':
        body = call + ';'
    elif ret.base == 'event_t':
        body = call + ';'
    else:
        if ret.base == 'bool':
            o = K.alloc_out('int', 1, 0, name)
            body = '*(__global int *)(out + %d) = %s;' % (o, call)
        else:
            o = K.alloc_out(ret.elem, ret.n, ret_tol, name)
            body = 'ST(%s, %d, %s);' % (ret.base, o, call)
    if first_arg is not None:
        for j in range(first_out, len(K.outs)):
            K.args[j] = first_arg
    line = '{ %s }' % ' '.join(pre + [body] + post)
    if name in V20:  # OpenCL C 2.0 (and 3.0) only: not in the CL1.2 image
        line = '\n#if __OPENCL_C_VERSION__ >= 200\n    %s\n#endif\n' % line
        K.v20.update(range(first_out, len(K.outs)))
    K.lines.append(line)
    return True


def emit_async(K, name, ps, space):
    """async copies of 5 elements (stride 2 for the strided form)."""
    if space != 'global':
        return False
    dst, src = ps[0], ps[1]
    el, n = dst.elem, dst.n
    esz = SIZE[el] * (4 if n == 3 else n)
    strided = 'strided' in name
    num, stride = 5, 2 if strided else 1
    span = num * stride
    gather = dst.space == '__local'
    off = K.alloc_in(el, 1, D['BITS'], count=span * esz // SIZE[el])
    o = K.alloc_out(el, 1, 0, name, count=span * esz // SIZE[el])
    K.copies[len(K.outs) - 1] = (off, esz, stride, int(gather), num)
    lo = K.alloc_lm(span * esz)
    extra = ', %d' % stride if strided else ''
    T = dst.base
    if gather:  # global -> local, then local -> out by hand
        real = ('{ event_t e = %s((__local %s *)(lm + %d), (const __global %s *)(in + %d), %d%s, 0); '
                'BT_WAIT(e); OCOPY(%d, %d, %d); }' % (name, T, lo, T, off, num, extra, o, lo, num * esz))
        ref = ('{ for (int j = 0; j < %d; j++) for (int b = 0; b < %d; b++) out[%d + j * %d + b] = in[%d + j * %d + b]; }'
               % (num, esz, o, esz, off, stride * esz))
    else:  # in -> local by hand, local -> global (scattered)
        real = ('{ LCOPY(%d, %d, %d); event_t e = %s((__global %s *)(out + %d), (const __local %s *)(lm + %d), '
                '%d%s, 0); BT_WAIT(e); }' % (lo, off, num * esz, name, T, o, T, lo, num, extra))
        ref = ('{ for (int j = 0; j < %d; j++) for (int b = 0; b < %d; b++) out[%d + j * %d + b] = in[%d + j * %d + b]; }'
               % (num, esz, o, stride * esz, off, esz))
    # PoCL 3.1 crashes in its async copies (and in these kernels' local
    # buffers): its reference is the copy the specification describes, done
    # byte by byte from global to global
    K.lines.append('\n#ifdef BT_POCL\n    %s\n#else\n    %s\n#endif\n' % (ref, real))
    return True


PRELUDE = r'''/* GENERATED by tools/ocl-builtins-testgen.py from adapters/native/builtins.tsv;
 * do not edit. Calls every overload of the builtin families; see bt-run.c. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define LD(T, off) (*(const __global T *)(in + (off)))
#define ST(T, off, v) (*(__global T *)(out + (off)) = (v))
#define LCOPY(lo, off, n) for (int q = 0; q < (n); q++) lm[(lo) + q] = in[(off) + q]
#define OCOPY(off, lo, n) for (int q = 0; q < (n); q++) out[(off) + q] = lm[(lo) + q]
/* PoCL 3.1 crashes in wait_group_events; its copies are complete on return */
#ifdef BT_POCL
#define BT_WAIT(e) (void)(e)
#else
#define BT_WAIT(e) wait_group_events(1, &(e))
#endif
'''
KHEAD = ('__kernel void %s(__global const uchar *in, __global uchar *out, __local uchar *lm, '
         '__constant uchar *cin)\n{\n    size_t g = get_global_id(0);\n    in += g * %dUL; out += g * %dUL; '
         'cin += g * %dUL;\n')

FAMILY = [
    ('math', lambda n: n in gen.MATH and n not in INTEGER or re.match(r'^(native|half)_', n) or n in gen.OUTPARAM),
    ('integer', lambda n: n in INTEGER),
    ('relational', lambda n: n in gen.RELATIONAL or n in ('any', 'all', 'select', 'bitselect')),
    ('geometric', lambda n: n in ('dot', 'length', 'distance', 'normalize', 'cross', 'fast_length',
                                  'fast_distance', 'fast_normalize')),
    ('vector', lambda n: n.startswith(('vload', 'vstore', 'shuffle'))),
    ('convert', lambda n: n.startswith('convert_')),
    ('atomic', lambda n: re.match(r'^atomi?c?_(add|sub|xchg|min|max|and|or|xor|inc|dec|cmpxchg)$', n) is not None),
    ('async', lambda n: n.startswith('async_') or n == 'prefetch'),
]
INTEGER = set('''abs abs_diff add_sat hadd rhadd clz ctz mad_hi mad_sat mul_hi rotate sub_sat popcount
mad24 mul24 upsample'''.split())


def family_of(name, ps):
    if name in ('max', 'min', 'clamp', 'bitselect') and ps and ps[0].elem not in ('float', 'double'):
        return 'integer' if name != 'bitselect' else 'relational'
    for fam, f in FAMILY:
        if f(name):
            return fam
    return None


def canon(ps, name):
    """parameter types without address spaces: overloads that differ only there"""
    if name.startswith('async_'):
        return tuple(p.text for p in ps)
    return tuple(re.sub(r'\b(__global|__local|__private|__constant)\s*', '', p.text) for p in ps)


def main():
    table, outdir = sys.argv[1], sys.argv[2]
    groups = {}  # (family, name, ret, canon params) -> set of spaces
    order = []
    for line in open(table):
        if line.startswith('#') or not line.strip():
            continue
        std, mangled, rtext, name, ptext = line.rstrip('\n').split('\t')
        ps = [Ty(p) for p in ptext.split('|')] if ptext else []
        fam = family_of(name, ps)
        if fam is None:
            continue
        key = (fam, name, rtext, canon(ps, name))
        if key not in groups:
            groups[key] = (ps, Ty(rtext), set())
            order.append(key)
        for p in ps:
            if p.ptr:
                s = p.space.replace('__', '') or 'generic'
                groups[key][2].add(s)
    kernels = {}
    MAXC = 160
    for key in order:
        fam, name, rtext, _ = key
        ps, ret, spaces = groups[key]
        if name.startswith('async_'):
            want = ['global']
        elif any(p.ptr for p in ps):
            want = [s for s in ('global', 'local', 'private', 'constant')
                    if s in spaces or (s != 'constant' and 'generic' in spaces)]
        else:
            want = ['-']
        for sp in want:
            lst = kernels.setdefault(fam, [])
            if not lst or len(lst[-1].lines) >= (32 if fam == 'async' else MAXC):
                lst.append(Kernel('bt_%s_%d' % (fam, len(lst))))
            emit_call(lst[-1], name, ret, ps, sp)
    allk = [k for fam in kernels for k in kernels[fam] if k.lines]
    with open(os.path.join(outdir, 'bt-kernels.cl'), 'w') as f:
        f.write('/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */\n')
        f.write(PRELUDE)
        for K in allk:
            K.inp = max(128, (K.inp + 127) // 128 * 128)
            K.out = max(128, (K.out + 127) // 128 * 128)
            f.write(KHEAD % (K.name, K.inp, K.out, K.inp))
            for l in K.lines:
                f.write('    ' + l + '\n')
            f.write('}\n\n')
    with open(os.path.join(outdir, 'bt-table.h'), 'w') as f:
        f.write('/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */\n')
        f.write('/* GENERATED by tools/ocl-builtins-testgen.py; do not edit. */\n')
        for i, K in enumerate(allk):
            f.write('static const bt_in bt_in_%d[] = {\n' % i)
            for (off, t, n, dom) in K.ins:
                f.write('    {%d, %d, %d, %d},\n' % (off, t, n, dom))
            f.write('    {0, -1, 0, 0}};\n')
            f.write('static const bt_out bt_out_%d[] = {\n' % i)
            for j, (off, t, n, tol, what) in enumerate(K.outs):
                flag = 2 if j in K.nat else 1 if j in K.v20 else 0
                cp = K.copies.get(j, (0, 0, 0, 0, 0))
                arg = K.args.get(j, (-1, -1))
                f.write('    {%d, %d, %d, %d, %d, "%s", {%d, %d, %d, %d, %d}, %d, %d},\n'
                        % ((off, t, n, tol, flag, what) + cp + arg))
            f.write('    {0, -1, 0, 0, 0, 0, {0, 0, 0, 0, 0}, -1, -1}};\n')
        f.write('static const bt_kernel bt_kernels[] = {\n')
        for i, K in enumerate(allk):
            f.write('    {"%s", %d, %d, %d, bt_in_%d, bt_out_%d},\n' % (K.name, K.inp, K.out,
                                                                 max(K.lm, 128), i, i))
        f.write('};\n')
    sys.stderr.write('%d kernels, %d calls\n' % (len(allk), sum(len(k.lines) for k in allk)))


if __name__ == '__main__':
    main()


# --------------------------------------------------------------------------
# OpenCL C 2.0 atomics (C11 style, generic pointers): PoCL has no generic
# address space, so bt-c11 runs on the native device alone and bt-c11.c
# checks each result against the specification's, computed on the host.
C11_TYPES = {'atomic_int': ('int', 4), 'atomic_uint': ('uint', 5), 'atomic_long': ('long', 6),
             'atomic_ulong': ('ulong', 7), 'atomic_float': ('float', 8), 'atomic_double': ('double', 9),
             'atomic_uintptr_t': ('ulong', 7), 'atomic_flag': ('int', 4)}
C11_OPS = ['init', 'store', 'load', 'exchange', 'cas_strong', 'cas_weak', 'fetch_add', 'fetch_sub',
           'fetch_or', 'fetch_xor', 'fetch_and', 'fetch_min', 'fetch_max', 'flag_test_and_set', 'flag_clear']


def c11_main(table, outdir):
    calls, recs = [], []
    for line in open(table):
        if line.startswith('#') or not line.strip():
            continue
        std, mangled, rtext, name, ptext = line.rstrip('\n').split('\t')
        m = re.match(r'^atomic_(init|store|load|exchange|compare_exchange_strong|compare_exchange_weak|'
                     r'fetch_\w+?|flag_test_and_set|flag_clear)(_explicit)?$', name)
        if not m:
            continue
        op = m.group(1).replace('compare_exchange_', 'cas_')
        pts = ptext.split('|')
        at = Ty(pts[0]).base
        t, code = C11_TYPES[at]
        nargs = len(pts)
        for variant in ((0, 1) if op.startswith('cas') else (0,)):
            s = len(recs)
            signed = t in ('int', 'long')
            init = (-1000 - 7 * s if signed and s % 2 else 1000 + 7 * s) if t not in ('float', 'double') else 1.5 + s
            if op.startswith('flag'):
                init = s % 2
            operand = (37 + s if t not in ('float', 'double') else 2.25 + s)
            if op in ('fetch_min', 'fetch_max') and s % 3 == 0:
                operand = -operand if signed else operand + 5000
            expect_in = init if variant == 0 else init + 1
            lit = lambda v: ('%r' % float(v)) + ('f' if t == 'float' else '') if t in ('float', 'double') else \
                ('%dL' % v if t in ('long', 'ulong') and v < 0 else '%d' % v) + ('UL' if t == 'ulong' and v >= 0 else '')
            local = '__local' in pts[0]
            args = ['(%s)m' % pts[0]]
            if op.startswith('cas'):
                args += ['&e', lit(operand)]
            elif op not in ('load', 'flag_test_and_set', 'flag_clear'):
                args.append(('(ptrdiff_t)' if at == 'atomic_uintptr_t' else '') + lit(operand))
            # trailing memory_order / memory_scope arguments of the _explicit forms
            for p in pts[len(args):]:
                args.append('memory_order_seq_cst' if 'memory_order' in p else 'memory_scope_device')
            call = 'atomic_%s(%s)' % (name[len('atomic_'):], ', '.join(args))
            sp, base = ('__local', 'lm + %d' % (8 * s)) if local else ('__global', 'out + %d' % (32 * s))
            body = '{ %s %s *m = (%s %s *)(%s); *m = %s; %s e = %s; ' % (
                sp, t, sp, t, base, lit(init), t, lit(expect_in))
            if rtext == 'void':
                body += '%s; ' % call
            elif rtext == 'bool':
                body += '*(__global int *)(out + %d) = %s; ' % (32 * s + 8, call)
            else:
                body += '*(__global %s *)(out + %d) = %s; ' % (t, 32 * s + 8, call)
            body += '*(__global %s *)(out + %d) = e; ' % (t, 32 * s + 16)
            if local:
                body += '*(__global %s *)(out + %d) = *m; ' % (t, 32 * s)
            body += '}'
            calls.append(body)
            recs.append((C11_OPS.index(op), code, init, operand, expect_in, rtext == 'bool', name, s))
    with open(os.path.join(outdir, 'bt-c11.cl'), 'w') as f:
        f.write('/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */\n')
        f.write('/* GENERATED by tools/ocl-builtins-testgen.py; do not edit. OpenCL C 2.0 atomics\n'
                ' * (every overload of the table, one work-item), then counters over all\n'
                ' * work-items on global and local memory; checked by bt-c11.c. */\n')
        f.write('#define BT_C11_CALLS %d\n' % len(recs))
        f.write('__kernel void bt_c11(__global uchar *out, __local uchar *lm)\n{\n')
        f.write('    if (get_global_linear_id() == 0) {\n')
        for c in calls:
            f.write('        %s\n' % c)
        f.write('''    }
    /* every work-item: a global and a work-group counter */
    __global uchar *tail = out + 32 * BT_C11_CALLS;
    volatile __local atomic_int *la = (volatile __local atomic_int *)(lm + 8 * BT_C11_CALLS);
    if (get_local_linear_id() == 0)
        atomic_init(la, 0);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    atomic_fetch_add_explicit(la, 1, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_add((volatile __global atomic_int *)tail, 1);
    work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
    if (get_local_linear_id() == 0)
        atomic_fetch_add((volatile __global atomic_int *)(tail + 4), atomic_load(la));
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    read_mem_fence(CLK_LOCAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    ((__global uint *)(tail + 8))[get_global_linear_id()] =
        get_global_linear_id() & 1 ? get_fence(tail) : get_fence((const __global uchar *)tail);
}
''')
    with open(os.path.join(outdir, 'bt-c11.h'), 'w') as f:
        f.write('/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */\n')
        f.write('/* GENERATED by tools/ocl-builtins-testgen.py; do not edit. */\n')
        f.write('/* op, type code, init, operand, expected-in, returns bool, name */\n')
        f.write('static const bt_c11 bt_c11_calls[] = {\n')
        for (op, code, init, operand, ein, rb, name, s) in recs:
            f.write('    {%d, %d, %r, %r, %r, %d, "%s"},\n' % (op, code, float(init), float(operand),
                                                           float(ein), int(rb), name))
        f.write('};\n')


if __name__ == '__main__' and len(sys.argv) > 2:
    c11_main(sys.argv[1], sys.argv[2])
