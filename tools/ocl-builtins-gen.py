#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generate the OpenCL C builtin library of the native device from the table
of signatures (adapters/native/builtins.tsv, made by ocl-builtins-extract.py
from clang-14's opencl-c.h).

Every row becomes one definition with exactly the declared parameter types,
so clang-14, compiling it for the host, gives it the very mangled name and
calling convention a host-built kernel uses to call it. The bodies apply the
scalar helpers of builtins-ocl.h / builtins-math.c per element.

usage: ocl-builtins-gen.py TABLE.tsv OUT.cl
"""
import re, sys

# Defined by hand in builtins.c (they read the work-item state).
HAND = {'get_global_id', 'get_local_id', 'get_group_id', 'get_global_size', 'get_local_size',
        'get_enqueued_local_size', 'get_num_groups', 'get_global_offset', 'get_work_dim',
        'get_global_linear_id', 'get_local_linear_id', 'barrier', 'work_group_barrier',
        'mem_fence', 'read_mem_fence', 'write_mem_fence', 'atomic_work_item_fence',
        'wait_group_events'}

SCALARS = ['char', 'uchar', 'short', 'ushort', 'int', 'uint', 'long', 'ulong', 'float', 'double',
           'half', 'size_t']
BITS = {'char': 8, 'uchar': 8, 'short': 16, 'ushort': 16, 'int': 32, 'uint': 32, 'long': 64,
        'ulong': 64, 'float': 32, 'double': 64, 'size_t': 64}
SIGNED = {'uchar': 'char', 'ushort': 'short', 'uint': 'int', 'ulong': 'long'}


class Ty:
    """A parameter or return type: text, pointer?, element type, width."""

    def __init__(self, text):
        self.text = text.strip()
        self.ptr = self.text.endswith('*')
        core = self.text.rstrip('*').strip()
        for u in ('char', 'short', 'int', 'long'):
            core = core.replace('unsigned ' + u, 'u' + u)
        words = core.split()
        self.space = next((w for w in words if w in ('__global', '__local', '__constant', '__private')), '')
        base = [w for w in words if w not in ('const', 'volatile', '__global', '__local', '__constant',
                                             '__private')][-1] if words else ''
        self.base = base
        m = re.match(r'^(u?char|u?short|u?int|u?long|float|double|half)(\d*)$', base)
        self.elem = m.group(1) if m else base
        self.n = int(m.group(2)) if m and m.group(2) else 1
        self.vec = bool(m and m.group(2))


def E(ps, k, i='i'):
    return 'a%d[%s]' % (k, i) if ps[k].vec and not ps[k].ptr else 'a%d' % k


def elementwise(fn, ret, ps, wrap=None):
    call = lambda i: '%s(%s)' % (fn, ', '.join(E(ps, k, i) for k in range(len(ps))))
    if ret.vec:
        v = call('i')
        if wrap:
            v = wrap(v)
        return '%s r; for (int i = 0; i < %d; i++) r[i] = %s; return r;' % (ret.base, ret.n, v)
    return 'return %s;' % call(None)


MATH = set('''acos acosh acospi asin asinh asinpi atan atan2 atan2pi atanh atanpi cbrt ceil copysign
cos cosh cospi erf erfc exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin fmod hypot ilogb ldexp
lgamma log log10 log1p log2 logb mad maxmag minmag nan nextafter pow pown powr remainder rint rootn
round rsqrt sin sinh sinpi sqrt tan tanh tanpi tgamma trunc clamp degrees max min mix radians sign
smoothstep step abs abs_diff add_sat hadd rhadd clz ctz mad_hi mad_sat mul_hi rotate sub_sat popcount
mad24 mul24 upsample bitselect'''.split())
RELATIONAL = set('''isequal isnotequal isgreater isgreaterequal isless islessequal islessgreater
isfinite isinf isnan isnormal isordered isunordered signbit'''.split())
OUTPARAM = {'fract', 'modf', 'sincos', 'frexp', 'lgamma_r', 'remquo'}
MODES = {'': None, '_rte': 0, '_rtz': 1, '_rtp': 2, '_rtn': 3}

conv_helpers = {}


def conv_helper(dst, src, sat, mode):
    """Name of a static helper converting one src element to dst."""
    key = (dst, src, sat, mode)
    if key in conv_helpers:
        return conv_helpers[key][0]
    name = 'sxc_%s_%s_%s%s' % (dst, src, 's' if sat else 'n', '' if mode is None else mode)
    fdst, fsrc = dst in ('float', 'double'), src in ('float', 'double')
    if not fdst:
        bits = BITS[dst]
        signed = dst not in SIGNED
        lo = '(%s)(-%du << %d)' % (dst, 1, bits - 1) if False else None
        dmin = {'char': '-128', 'short': '-32768', 'int': '(-2147483647 - 1)',
                'long': '(-9223372036854775807L - 1)'}.get(dst, '0')
        dmax = {'char': '127', 'uchar': '255', 'short': '32767', 'ushort': '65535',
                'int': '2147483647', 'uint': '4294967295u', 'long': '9223372036854775807L',
                'ulong': '18446744073709551615ul'}[dst]
        if fsrc:
            top = '0x1p%d' % (bits - 1 if signed else bits)
            m = 1 if mode is None else mode
            body = ('double v = sx_rnd((double)x, %d); return v != v ? (%s)0 : v < (double)%s ? (%s)%s : '
                    'v >= %s ? (%s)%s : (%s)v;' % (m, dst, dmin, dst, dmin, top, dst, dmax, dst))
        elif not sat:
            body = 'return (%s)x;' % dst
        elif src in SIGNED.values():  # signed source
            if signed:
                body = 'long v = x; return v < %s ? (%s)%s : v > %s ? (%s)%s : (%s)v;' % (
                    dmin, dst, dmin, dmax, dst, dmax, dst)
            else:
                body = 'long v = x; return v < 0 ? (%s)0 : (ulong)v > (ulong)%s ? (%s)%s : (%s)v;' % (
                    dst, dmax, dst, dmax, dst)
        else:
            body = 'ulong v = x; return v > (ulong)%s ? (%s)%s : (%s)v;' % (dmax, dst, dmax, dst)
    else:
        m = 0 if mode is None else mode
        if src == dst or (dst == 'double' and src != 'long' and src != 'ulong') or m == 0:
            body = 'return (%s)x;' % dst
        elif src == 'double':
            body = 'return sxm_cvt_f_d(x, %d);' % m
        elif src == 'ulong':
            body = 'return sxm_cvt_%s_m(x, %d);' % (dst[0], m)
        else:
            body = 'return sxm_cvt_%s_l((long)x, %d);' % (dst[0], m)
    conv_helpers[key] = (name, 'static inline %s %s(%s x) { %s }' % (dst, name, src, body))
    return name


def body(name, ret, ps):
    n = len(ps)
    if name in MATH:
        return elementwise('sx_' + name, ret, ps)
    m = re.match(r'^(native|half)_(\w+)$', name)
    if m:
        return elementwise('sx_' + m.group(2), ret, ps)
    if name in RELATIONAL:
        return elementwise('sx_' + name, ret, ps, wrap=lambda v: '(%s ? -1 : 0)' % v)
    if name in ('any', 'all'):
        if not ps[0].vec:
            return 'return a0 < 0;'
        op = '||' if name == 'any' else '&&'
        return 'return %s;' % (' %s ' % op).join('(a0[%d] < 0)' % i for i in range(ps[0].n))
    if name == 'select':
        if not ret.vec:
            return 'return a2 ? a1 : a0;'
        st = SIGNED.get(ps[2].elem, ps[2].elem)
        return '%s r; for (int i = 0; i < %d; i++) r[i] = (%s)a2[i] < 0 ? a1[i] : a0[i]; return r;' % (
            ret.base, ret.n, st)
    if name == 'shuffle':
        return '%s r; for (int i = 0; i < %d; i++) r[i] = a0[a1[i] %% %d]; return r;' % (
            ret.base, ret.n, ps[0].n)
    if name == 'shuffle2':
        N = ps[0].n
        return ('%s r; for (int i = 0; i < %d; i++) { uint k = a2[i] %% %d; r[i] = k < %d ? a0[k] : a1[k - %d]; } '
                'return r;' % (ret.base, ret.n, 2 * N, N, N))
    m = re.match(r'^vload(\d+)$', name)
    if m:
        N = int(m.group(1))
        return '%s r; for (int i = 0; i < %d; i++) r[i] = a1[a0 * %d + i]; return r;' % (ret.base, N, N)
    m = re.match(r'^vstore(\d+)$', name)
    if m:
        N = int(m.group(1))
        return 'for (int i = 0; i < %d; i++) a2[a1 * %d + i] = a0[i];' % (N, N)
    m = re.match(r'^vload(a?)_half(\d*)$', name)
    if m:
        N = int(m.group(2) or 1)
        step = 4 if (m.group(1) and N == 3) else N
        u = ps[1].text.replace('half', 'ushort')
        if not ret.vec:
            return 'return sxm_from_half(((%s)a1)[a0]);' % u
        return '%s r; for (int i = 0; i < %d; i++) r[i] = sxm_from_half(((%s)a1)[a0 * %d + i]); return r;' % (
            ret.base, N, u, step)
    m = re.match(r'^vstore(a?)_half(\d*)(_rt[ezpn])?$', name)
    if m:
        N = int(m.group(2) or 1)
        step = 4 if (m.group(1) and N == 3) else N
        mode = MODES[m.group(3) or ''] or 0
        u = ps[2].text.replace('half', 'ushort')
        if not ps[0].vec:
            return '((%s)a2)[a1] = sxm_to_half((double)a0, %d);' % (u, mode)
        return 'for (int i = 0; i < %d; i++) ((%s)a2)[a1 * %d + i] = sxm_to_half((double)a0[i], %d);' % (
            N, u, step, mode)
    m = re.match(r'^convert_([a-z]+)(\d*)(_sat)?(_rt[ezpn])?$', name)
    if m:
        h = conv_helper(m.group(1), ps[0].elem, bool(m.group(3)), MODES[m.group(4) or ''])
        return elementwise(h, ret, ps)
    if name in ('dot', 'length', 'distance', 'normalize', 'fast_length', 'fast_distance', 'fast_normalize'):
        base = name.replace('fast_', '')
        k = ps[0].n
        s = 'double t0[%d], t1[%d]; ' % (k, k)
        for i in range(k):
            x0 = E(ps, 0, str(i))
            if base == 'distance':
                s += 't0[%d] = (double)%s - (double)%s; ' % (i, x0, E(ps, 1, str(i)))
            else:
                s += 't0[%d] = %s; ' % (i, x0)
                if base == 'dot':
                    s += 't1[%d] = %s; ' % (i, E(ps, 1, str(i)))
        if base == 'dot':
            return s + 'return (%s)sxm_dot(t0, t1, %d);' % (ret.base, k)
        if base in ('length', 'distance'):
            return s + 'return (%s)sxm_length(t0, %d);' % (ret.base, k)
        s += 'sxm_normalize(t0, %d); ' % k
        if not ret.vec:
            return s + 'return (%s)t0[0];' % ret.base
        return s + '%s r; for (int i = 0; i < %d; i++) r[i] = (%s)t0[i]; return r;' % (ret.base, k, ret.elem)
    if name == 'cross':
        w = ', 0' if ret.n == 4 else ''
        return ('return (%s)(a0.y * a1.z - a0.z * a1.y, a0.z * a1.x - a0.x * a1.z, '
                'a0.x * a1.y - a0.y * a1.x%s);' % (ret.base, w))
    if name in OUTPARAM:
        k = n - 1  # the out pointer is last
        ot = ps[k]
        oel = ot.elem
        args = lambda i: ', '.join(E(ps, j, i) for j in range(k))
        if not ret.vec:
            return '%s o; %s r = sx_%s(%s, &o); *a%d = o; return r;' % (oel, ret.base, name, args(None), k)
        return ('%s r; for (int i = 0; i < %d; i++) { %s o; r[i] = sx_%s(%s, &o); (*a%d)[i] = o; } return r;'
                % (ret.base, ret.n, oel, name, args('i'), k))
    if name in ('async_work_group_copy', 'async_work_group_strided_copy'):
        if name == 'async_work_group_copy':
            ds, ss, ev = '1', '1', 'a3'
        else:
            gather = ps[0].space == '__local'
            ds, ss, ev = ('1', 'a3', 'a4') if gather else ('a3', '1', 'a4')
        return ('return sxn_async_copy((void *)a0, (const void *)a1, sizeof(*a0), a2, %s, %s, %s);'
                % (ds, ss, ev))
    if name == 'prefetch':
        return ''
    if name == 'get_fence':
        return 'return CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE;'
    m = re.match(r'^atomi?c?_(add|sub|xchg|min|max|and|or|xor|inc|dec|cmpxchg)$', name)
    if m and name.startswith(('atomic_', 'atom_')):
        op = m.group(1)
        t = ps[0].elem
        if op == 'xchg' and t == 'float':
            up = ps[0].text.replace('float', 'uint')
            return 'return as_float(__atomic_exchange_n((%s)a0, as_uint(a1), SC));' % up
        if op == 'xchg':
            return 'return __atomic_exchange_n(a0, a1, SC);'
        if op == 'inc':
            return 'return __atomic_fetch_add(a0, (%s)1, SC);' % t
        if op == 'dec':
            return 'return __atomic_fetch_sub(a0, (%s)1, SC);' % t
        if op == 'cmpxchg':
            return '%s e = a1; __atomic_compare_exchange_n(a0, &e, a2, 0, SC, SC); return e;' % t
        return 'return __atomic_fetch_%s(a0, a1, SC);' % op
    S = 'SC, __OPENCL_MEMORY_SCOPE_DEVICE'
    if name == 'atomic_init':
        return '__opencl_atomic_init(a0, a1);'
    if name in ('atomic_store', 'atomic_store_explicit'):
        return '__opencl_atomic_store(a0, a1, %s);' % S
    if name in ('atomic_load', 'atomic_load_explicit'):
        return 'return __opencl_atomic_load(a0, %s);' % S
    if name in ('atomic_exchange', 'atomic_exchange_explicit'):
        return 'return __opencl_atomic_exchange(a0, a1, %s);' % S
    m = re.match(r'^atomic_compare_exchange_(strong|weak)(_explicit)?$', name)
    if m:
        return 'return __opencl_atomic_compare_exchange_%s(a0, a1, a2, SC, %s);' % (m.group(1), S)
    m = re.match(r'^atomic_fetch_(add|sub|or|xor|and|min|max)(_explicit)?$', name)
    if m:
        return 'return __opencl_atomic_fetch_%s(a0, (%s)a1, %s);' % (m.group(1), ret.base, S)
    if name.startswith('atomic_flag_test_and_set'):
        return 'return __opencl_atomic_exchange(a0, 1, %s) != 0;' % S
    if name.startswith('atomic_flag_clear'):
        return '__opencl_atomic_store(a0, 0, %s);' % S
    return None


def main():
    table, out = sys.argv[1], sys.argv[2]
    defs, missing = [], []
    for line in open(table):
        if line.startswith('#') or not line.strip():
            continue
        std, mangled, rtext, name, ptext = line.rstrip('\n').split('\t')
        if name in HAND:
            continue
        ptexts = ptext.split('|') if ptext else []
        ret, ps = Ty(rtext), [Ty(p) for p in ptexts]
        b = body(name, ret, ps)
        if b is None:
            missing.append(name)
            continue
        prm = ', '.join('%s a%d' % (p, k) for k, p in enumerate(ptexts)) or 'void'
        defs.append('%s OVL %s(%s) { %s } /* %s */' % (rtext, name, prm, b, mangled))
    if missing:
        sys.stderr.write('no rule for: %s\n' % ' '.join(sorted(set(missing))))
        sys.exit(1)
    with open(out, 'w') as f:
        f.write('/* builtins-gen.cl: GENERATED by tools/ocl-builtins-gen.py from builtins.tsv;\n'
                ' * do not edit. The OpenCL C builtins of the native device, one definition\n'
                ' * per overload, compiled by clang-14 for x86_64 (see builtins-ocl.h). */\n')
        f.write('#include "builtins-ocl.h"\n\n')
        for key in sorted(conv_helpers, key=str):
            f.write(conv_helpers[key][1] + '\n')
        f.write('\n')
        for d in defs:
            f.write(d + '\n')
    sys.stderr.write('%d overloads generated\n' % len(defs))


if __name__ == "__main__":
    main()
