#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""check-cache.py DIR: every entry of a persistent program cache directory is
whole: no temporary file left behind, names are 64 hex digits + ".bin", and
(formats 1 to 3, lib/pcache.c) the header's size and key match; format 1's
payload SHA-256 too, format 3's HMAC-SHA256 under the directory's secret (.key).
Prints the number of entries."""
import hashlib
import hmac
import os
import re
import struct
import sys

d = sys.argv[1]
entries = 0
secret = None
if os.path.exists(os.path.join(d, ".key")):
    secret = open(os.path.join(d, ".key"), "rb").read()
    assert len(secret) == 32 and (os.stat(os.path.join(d, ".key")).st_mode & 0o077) == 0, ".key is not private"
for name in sorted(os.listdir(d)):
    path = os.path.join(d, name)
    if name.startswith(".nobinary-") or name in (".lock", ".key"):  # lib/pcache.c's markers, eviction lock, secret
        continue
    assert ".tmp" not in name, "a half-written entry was left behind: " + name
    m = re.fullmatch(r"([0-9a-f]{64})\.bin", name)
    assert m, "not a cache entry: " + name
    data = open(path, "rb").read()
    assert data[:7] == b"SXPCACH", (name, data[:8])
    version, kind, size = struct.unpack_from("<IIQ", data, 8)
    if version in (1, 2, 3):
        assert len(data) == 88 + size, (name, len(data), size)
        assert data[24:56].hex() == m.group(1), (name, "key does not match the name")
    if version == 1:  # (2 checksums the payload with the library's own wide hash)
        assert hashlib.sha256(data[88:]).digest() == data[56:88], (name, "payload checksum")
    if version == 3:
        assert secret is not None, (name, "a format 3 entry without the directory's secret")
        mac = hmac.new(secret, data[:56] + data[88:], hashlib.sha256).digest()
        assert mac == data[56:88], (name, "MAC does not verify")
    entries += 1
print(entries)
