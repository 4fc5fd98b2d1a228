#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""check-cache.py DIR: every entry of a persistent program cache directory is
whole: no temporary file left behind, names are 64 hex digits + ".bin", and
(formats 1 and 2, lib/pcache.c) the header's size and key match; format 1's
payload SHA-256 too.
Prints the number of entries."""
import hashlib
import os
import re
import struct
import sys

d = sys.argv[1]
entries = 0
for name in sorted(os.listdir(d)):
    path = os.path.join(d, name)
    if name.startswith(".nobinary-") or name == ".lock":  # lib/pcache.c's markers and eviction lock
        continue
    assert ".tmp" not in name, "a half-written entry was left behind: " + name
    m = re.fullmatch(r"([0-9a-f]{64})\.bin", name)
    assert m, "not a cache entry: " + name
    data = open(path, "rb").read()
    assert data[:7] == b"SXPCACH", (name, data[:8])
    version, kind, size = struct.unpack_from("<IIQ", data, 8)
    if version in (1, 2):
        assert len(data) == 88 + size, (name, len(data), size)
        assert data[24:56].hex() == m.group(1), (name, "key does not match the name")
    if version == 1:  # (2 checksums the payload with the library's own wide hash)
        assert hashlib.sha256(data[88:]).digest() == data[56:88], (name, "payload checksum")
    entries += 1
print(entries)
