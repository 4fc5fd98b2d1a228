#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""check-sx-info.py INFO.json INFO.txt: sx-info --json against the text listing."""
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()

assert doc["schema"] == "sycl-ext/sx-info", doc["schema"]
assert doc["schema_version"] == 1, doc["schema_version"]
assert re.fullmatch(r"\d+\.\d+\.\d+", doc["library_version"]), doc["library_version"]

adapters, messages = [], []
for i, l in enumerate(text):
    m = re.match(r"  \[(\d+)\] (\S+)\s+(ok|[A-Z]+)\s+(.*)$", l)
    if m:
        adapters.append(m)
        messages.append(text[i + 1].strip())
assert len(adapters) == len(doc["adapters"]), (len(adapters), doc["adapters"])
for m, msg, a in zip(adapters, messages, doc["adapters"]):
    assert msg.endswith(a["message"]), (msg, a)
    assert a["index"] == int(m.group(1)) and a["name"] == m.group(2), (m.groups(), a)
    assert a["usable"] == (m.group(3) == "ok") and a["path"] == m.group(4).strip(), (m.groups(), a)
    assert (a["status"] == "SX_SUCCESS") == a["usable"], a
    assert a["usable"] or a["message"], a
    assert isinstance(a["platforms"], int), a

devices = [re.match(r"  \[(\w+):(\w+)\] (.*?)(  \(default\))?$", l) for l in text]
devices = [m for m in devices if m]
assert len(devices) == len(doc["devices"]) > 0, (len(devices), doc["devices"])
seen = {}
for i, (m, d) in enumerate(zip(devices, doc["devices"])):
    assert d["index"] == i and d["backend"] == m.group(1) and d["type"] == m.group(2), (m.groups(), d)
    assert d["name"] == m.group(3) and d["default"] == bool(m.group(4)), (m.groups(), d)
    assert d["selector"] == "%s:%d" % (d["backend"], seen.get(d["backend"], 0)), d
    seen[d["backend"]] = seen.get(d["backend"], 0) + 1
    for k in ("max_work_group_size", "local_mem_bytes", "global_mem_bytes"):
        assert isinstance(d[k], int) and d[k] >= 0, (k, d)
    assert all(isinstance(a, str) for a in d["aspects"]) and d["type"] in d["aspects"] + ["custom"] or \
        d["type"] == "acc", d
    assert d["image_kinds"], d
assert sum(d["default"] for d in doc["devices"]) == 1, doc["devices"]
print("sx-info --json: %d adapters, %d devices, as listed" % (len(doc["adapters"]), len(doc["devices"])))
