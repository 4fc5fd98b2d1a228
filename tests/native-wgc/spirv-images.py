#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# spirv-images.py: the SPIR-V modules embedded in the shared objects of a
# wheel (DPC++ puts one module per kernel in its offload sections), found
# by the SPIR-V magic and walked instruction by instruction to the module's
# end: its last OpFunctionEnd before the next magic or the first word that
# cannot start an instruction (the last module of a library is followed by
# other data, which may read as instructions for a while).
#
#   spirv-images.py WHEEL OUTDIR [STEP]
#
# Writes every STEP-th distinct module (default 1: all) as
# OUTDIR/<library>-<n>.spv, in the order of the libraries' names and their
# offsets; prints how many it found and wrote.
import hashlib
import os
import struct
import sys
import zipfile

MAGIC = b'\x03\x02\x23\x07'


def module_end(d, off):
    """End offset of the module at off, or None if it is not one."""
    if off + 20 > len(d):
        return None
    ver, _gen, bound, schema = struct.unpack_from('<4I', d, off + 4)
    if schema != 0 or (ver >> 16) != 1 or not 0 < bound <= 1 << 24:
        return None
    p, end = off + 20, None
    while p + 4 <= len(d):
        w = struct.unpack_from('<I', d, p)[0]
        wc, op = w >> 16, w & 0xffff
        if wc == 0 or p + 4 * wc > len(d) or op > 7000:
            break
        p += 4 * wc
        if op == 56:  # OpFunctionEnd: a module ends with its last function
            end = p
        if d[p:p + 4] == MAGIC:
            break
    return end


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit('usage: spirv-images.py WHEEL OUTDIR [STEP]')
    step = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    os.makedirs(sys.argv[2], exist_ok=True)
    seen, found, wrote = set(), 0, 0
    with zipfile.ZipFile(sys.argv[1]) as z:
        for name in sorted(n for n in z.namelist() if n.endswith('.so') or '.so.' in n):
            d = z.read(name)
            lib = os.path.basename(name).split('.')[0]
            i, k = d.find(MAGIC), 0
            while i >= 0:
                e = module_end(d, i)
                if e is None:
                    i = d.find(MAGIC, i + 4)
                    continue
                h = hashlib.sha1(d[i:e]).digest()
                if h not in seen:
                    seen.add(h)
                    if found % step == 0:
                        k += 1
                        with open(os.path.join(sys.argv[2], '%s-%05d.spv' % (lib, found)), 'wb') as f:
                            f.write(d[i:e])
                        wrote += 1
                    found += 1
                i = d.find(MAGIC, e)
    print('%d SPIR-V modules, %d written' % (found, wrote))


main()
