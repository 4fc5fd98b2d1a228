#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Extract every OpenCL C builtin overload clang-14 declares (opencl-c.h)
for host builds (-target x86_64-linux-gnu), with the mangled name clang
emits for a call to it, for -cl-std=CL2.0 and CL1.2.

Writes a TSV: std, mangled, return type, name, parameter types ('|'-separated).
This is the list the native builtins library (sx-native-builtins.so) is
measured against: tools/ocl-builtins-gen.py implements rows of it and
tests/native-builtins/coverage.sh compares it with the module's exports.

usage: ocl-builtins-extract.py CLANG OUT.tsv [NAMES.h]
NAMES.h gets the sorted names of every builtin function clang declares
(provided or not), for the native adapter's report of undefined symbols.
"""
import os, re, subprocess, sys, tempfile

def decls(pp):
    text = re.sub(r'\s+', ' ', '\n'.join(l for l in pp.splitlines() if not l.startswith('#')))
    for stmt in text.split(';'):
        if 'overloadable' not in stmt or '{' in stmt or '}' in stmt:
            continue
        s = re.sub(r'__attribute__\(\([^()]*(\([^()]*\))?[^()]*\)\)', ' ', stmt).strip()
        m = re.match(r'^(.*?)\b([A-Za-z_]\w*) ?\((.*)\)$', s)
        if not m:
            continue
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        ps = [] if params in ('', 'void') else [p.strip() for p in params.split(',')]
        yield ret, name, ps

def strip_name(p):
    # drop a trailing parameter name: last identifier that is not a type word
    m = re.match(r'^(.*[\s*])([A-Za-z_]\w*)$', p)
    types = {'char','uchar','short','ushort','int','uint','long','ulong','float','double','half',
             'size_t','ptrdiff_t','event_t','void','bool','memory_order','memory_scope',
             'intptr_t','uintptr_t','sampler_t','clk_event_t','queue_t','ndrange_t','reserve_id_t',
             'cl_mem_fence_flags'}
    if m and m.group(2) not in types and not re.match(r'^(u?(char|short|int|long)|float|double|half)\d+$', m.group(2)) \
            and not m.group(2).startswith(('atomic_', 'image', '__')):
        return m.group(1).strip()
    return p

SPACES = ('__global', '__local', '__private')


def named_variants(ds, seen):
    """clang's driver adds -fdeclare-opencl-builtins to the default header, and
    its builtin table declares some CL2.0 functions (the C11 atomics) for
    named address spaces too, which the header does not show: call each
    generic-pointer overload with global, local and private pointers and
    keep what mangles differently (duplicates fold by mangled name later)."""
    import itertools
    out = []
    for ret, name, ps in ds:
        idx = [i for i, p in enumerate(ps) if p.endswith('*') and not any(
            a in p for a in SPACES + ('__constant',))]
        if not idx:
            continue
        for combo in itertools.product(SPACES, repeat=len(idx)):
            q = list(ps)
            for i, sp in zip(idx, combo):
                q[i] = re.sub(r'^((?:const |volatile )*)', lambda m: m.group(1) + sp + ' ', q[i])
            key = (ret, name, tuple(q))
            if key not in seen:
                seen.add(key)
                out.append(key)
    return out


def main():
    clang, out = sys.argv[1], sys.argv[2]
    rows = []
    all_names = set()
    with tempfile.TemporaryDirectory() as d:
        for std in ('CL2.0', 'CL1.2'):
            src = os.path.join(d, 'h.cl')
            open(src, 'w').write('#include <opencl-c.h>\n')
            base = [clang, '-x', 'cl', '-cl-std=' + std, '-Xclang', '-finclude-default-header',
                    '-target', 'x86_64-linux-gnu', '-w']
            pp = subprocess.run(base + ['-E', '-P', src], capture_output=True, text=True, check=True).stdout
            ds = []
            seen = set()
            for ret, name, ps in decls(pp):
                all_names.add(name)
                ps = [strip_name(p) for p in ps]
                key = (ret, name, tuple(ps))
                if key in seen:
                    continue
                seen.add(key)
                ds.append(key)
            if std == 'CL2.0':
                ds += named_variants(ds, seen)
            # one wrapper per overload; the call it makes gives the mangled name.
            # A few declarations cannot be called as declared (clang-14's header
            # declares e.g. half fast_distance without a definition behind the
            # guard): the wrappers clang rejects are dropped and counted.
            head = ['#pragma OPENCL EXTENSION cl_khr_fp16 : enable',
                    '#pragma OPENCL EXTENSION cl_khr_fp64 : enable']
            live = list(range(len(ds)))
            for attempt in range(4):
                w = list(head)
                line_of = {}
                for i in live:
                    ret, name, ps = ds[i]
                    args = ', '.join('a%d' % j for j in range(len(ps)))
                    prm = ', '.join('%s a%d' % (p, j) for j, p in enumerate(ps)) or 'void'
                    w.append('%s __attribute__((overloadable)) sxw_%d(%s) { %s%s(%s); }' % (
                        ret, i, prm, '' if ret == 'void' else 'return ', name, args))
                    line_of[len(w)] = i
                open(src, 'w').write('\n'.join(w) + '\n')
                ll = subprocess.run(base + ['-O0', '-ferror-limit=0', '-S', '-emit-llvm', '-o', '-', src],
                                    capture_output=True, text=True)
                if ll.returncode == 0:
                    break
                bad = {line_of[int(n)] for n in re.findall(r'h\.cl:(\d+):\d+: error', ll.stderr)
                       if int(n) in line_of}
                if not bad:
                    sys.stderr.write(ll.stderr[:4000])
                    sys.exit(1)
                sys.stderr.write('%s: %d declarations clang cannot call, left out\n' % (std, len(bad)))
                for i in sorted(bad): sys.stderr.write('  dropped: %s %s(%s)\n' % (ds[i][0], ds[i][1], ', '.join(ds[i][2])))
                live = [i for i in live if i not in bad]
            cur = None
            callee = {}
            for line in ll.stdout.splitlines():
                m = re.match(r'define .*@_Z\d+sxw_(\d+)', line)
                if m:
                    cur = int(m.group(1))
                    continue
                m = re.search(r'call .*?@(_Z\w+)\(', line)
                if m and cur is not None and cur not in callee:
                    callee[cur] = m.group(1)
            for i, (ret, name, ps) in enumerate(ds):
                if i in callee:
                    rows.append((std, callee[i], ret, name, '|'.join(ps)))
    # one row per mangled name (CL2.0's spelling first), split into what the
    # native device provides and what it does not claim (with the reason)
    seen = {}
    for r in rows:
        seen.setdefault(r[1], r)
    keep, skipped = [], {}
    for r in seen.values():
        why = out_of_scope(r[3], r[2], r[4].split('|') if r[4] else [])
        if why:
            skipped[why] = skipped.get(why, 0) + 1
        else:
            keep.append(r)
    if len(sys.argv) > 3:
        with open(sys.argv[3], 'w') as f:
            f.write('/* GENERATED by tools/ocl-builtins-extract.py from clang-14 opencl-c.h: the name of\n'
                    ' * every OpenCL C builtin function, sorted (strcmp) for bsearch. */\n')
            f.write('static const char *const sxn_builtin_names[] = {\n')
            for n in sorted(all_names):
                f.write('    "%s",\n' % n)
            f.write('};\n')
    with open(out, 'w') as f:
        f.write('# OpenCL C builtins clang-14 declares (opencl-c.h), as called from host builds\n')
        f.write('# (-target x86_64-linux-gnu, -cl-std=CL2.0 and CL1.2), one row per mangled name.\n')
        f.write('# Generated by tools/ocl-builtins-extract.py; do not edit. Includes the named-address-space\n')
        f.write('# variants clang adds from its builtin table (-fdeclare-opencl-builtins, e.g. atomic_init).\n')
        f.write('# In scope: %d overloads. Not claimed by the native device:\n' % len(keep))
        for why in sorted(skipped):
            f.write('#   %-40s %5d\n' % (why, skipped[why]))
        f.write('# std\tmangled\treturn\tname\tparams\n')
        for r in sorted(keep, key=lambda r: (r[3], r[1])):
            f.write('\t'.join(r) + '\n')

def is_half_value(t):
    t = t.strip()
    return not t.endswith('*') and re.match(r'^(const )?half\d*$', t) is not None

def out_of_scope(name, ret, ps):
    """Why the native device does not provide this overload, or None."""
    if any(is_half_value(t) for t in [ret] + ps):
        return 'half arithmetic (cl_khr_fp16)'
    if 'image' in name or any('image' in t or 'sampler' in t for t in ps):
        return 'images and samplers'
    if 'sub_group' in name:
        return 'sub-groups'
    if re.match(r'work_group_(all|any|broadcast|reduce|scan)', name):
        return 'work-group collectives'
    if 'pipe' in name or any('pipe' in t for t in ps):
        return 'pipes'
    if re.match(r'(ndrange_|enqueue_|get_default_queue|create_user_event|retain_event|release_event|'
                r'set_user_event_status|capture_event_profiling_info|is_valid_event|get_kernel_)', name):
        return 'device-side enqueue'
    if re.match(r'(arm|amd|intel)_', name):
        return 'vendor extensions'
    return None

main()
