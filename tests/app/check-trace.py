#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# check-trace.py FILE.json: an SX_TRACE timeline (Trace Event JSON, array
# form) of examples/app: valid JSON; every span ("ph":"X") has the fields
# Perfetto needs; per thread, spans nest (each one inside the one it starts
# in, none straddling); a named track per thread; the spans the app must
# show, with their arguments (launch: kernel, dims, global, local, device;
# copies: bytes, device; cache lookup: cache_hit).
import json
import sys

events = json.load(open(sys.argv[1]))
assert isinstance(events, list) and events, "not a non-empty JSON array"
spans = [e for e in events if e.get("ph") == "X"]
meta = [e for e in events if e.get("ph") == "M"]
for e in spans:
    for k in ("name", "pid", "tid", "ts", "dur", "args"):
        assert k in e, "span without %s: %r" % (k, e)
    assert e["dur"] >= 0, e
tids = {e["tid"] for e in spans}
named = {e["tid"] for e in meta if e["name"] == "thread_name"}
assert tids <= named, "threads without a thread_name track: %r" % (tids - named)

# Nesting per thread: sorted by start (longer first on ties), every span
# ends before the enclosing one does.
for tid in tids:
    mine = sorted((e for e in spans if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in mine:
        start, end = e["ts"], e["ts"] + e["dur"]
        while stack and stack[-1][1] <= start + 1e-9:
            stack.pop()
        if stack:
            assert end <= stack[-1][1] + 1e-3, "span %r (%.3f-%.3f) straddles %r ending %.3f on thread %d" % (
                e["name"], start, end, stack[-1][0], stack[-1][1], tid)
        stack.append((e["name"], end))

names = {e["name"] for e in spans}
for need in ("register", "resolve", "build", "cache lookup", "launch", "copy", "device_global write",
             "device_global read", "wait", "queue wait", "first launch: program and kernel"):
    assert need in names, "no '%s' span (have %s)" % (need, sorted(names))
launches = [e for e in spans if e["name"] == "launch"]
blur = [e for e in launches if e["args"].get("kernel") == "__sycl_kernel_blur2d"]
assert len(blur) == 2, "expected 2 blur2d launches, got %d" % len(blur)
for e in blur:
    a = e["args"]
    assert a["dims"] == 2 and a["global"] == [16, 4] and a["local"] == [8, 1] and a["device"], a
for e in spans:
    if e["name"] in ("copy", "device_global write", "device_global read"):
        assert isinstance(e["args"].get("bytes"), int) and e["args"].get("device"), e
copies = [e for e in spans if e["name"] == "copy"]
assert any(e["args"]["bytes"] == 16 for e in copies), copies
lookups = [e for e in spans if e["name"] == "cache lookup"]
assert all(isinstance(e["args"].get("cache_hit"), bool) for e in lookups), lookups
# A launch that builds holds its first-launch span, which holds the build.
first = [e for e in spans if e["name"] == "first launch: program and kernel"]
assert any(any(l["tid"] == f["tid"] and l["ts"] <= f["ts"] and f["ts"] + f["dur"] <= l["ts"] + l["dur"] + 1e-3
               for l in launches) for f in first), "no first-launch span inside a launch"
print("timeline: %d spans on %d thread(s): %s" % (len(spans), len(tids), ", ".join(sorted(names))))
