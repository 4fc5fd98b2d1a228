#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""check-dump.py DUMP.json DUMP.txt FILE.sximg: proptool --dump --json against
proptool --dump: the same images, entries, sets and properties in order,
with the records the runtime reads decoded."""
import json
import os
import re
import sys

doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
size = os.path.getsize(sys.argv[3])

assert doc["schema"] == "sycl-ext/proptool-dump" and doc["schema_version"] == 1, doc
assert doc["file"] == sys.argv[3], doc["file"]

# The text listing, parsed into the same shape.
head = re.match(r"descriptor version (\d+), (\d+) images?$", text[0])
assert head, text[0]
images = []
where = None
for l in text[1:]:
    if m := re.match(r"image (\d+)$", l):
        images.append({"index": int(m.group(1)), "entries": [], "sets": []})
        where = None
    elif m := re.match(r"  target: (.*)$", l):
        images[-1]["target"] = m.group(1)
    elif m := re.match(r"  format: (\S+) \((\d+)\), kind (\d+), version (\d+)$", l):
        images[-1].update(format=m.group(1), format_code=int(m.group(2)), kind=int(m.group(3)), version=int(m.group(4)))
    elif m := re.match(r"  binary: (\d+) bytes$", l):
        images[-1]["binary_size"] = int(m.group(1))
    elif re.match(r"  entries \(\d+\):$", l):
        where = "entries"
    elif m := re.match(r"  \[(.*)\] \((\d+)\)$", l):
        images[-1]["sets"].append((m.group(1), []))
        where = "sets"
    elif where == "entries" and l.startswith("    "):
        images[-1]["entries"].append(l[4:])
    elif where == "sets" and l.startswith("    ") and not l.startswith("      "):
        images[-1]["sets"][-1][1].append(l[4:].split(": ", 1))
assert doc["descriptor_version"] == int(head.group(1)) and len(doc["images"]) == int(head.group(2)) == len(images)

total = 0
seen = set()
for t, j in zip(images, doc["images"]):
    for k in ("index", "target", "format", "format_code", "kind", "version", "binary_size"):
        assert j[k] == t[k], (k, j[k], t[k])
    total += j["binary_size"]
    assert j["entries"] == t["entries"], (j["entries"], t["entries"])
    assert [s["name"] for s in j["property_sets"]] == [s[0] for s in t["sets"]]
    for js, (name, props) in zip(j["property_sets"], t["sets"]):
        assert [p["name"] for p in js["properties"]] == [p[0] for p in props], (name, js, props)
        for p, (pname, ptext) in zip(js["properties"], props):
            seen.add((name, p["type"]))
            if p["type"] == "uint32":
                assert ptext.startswith("uint32 %d" % p["value"]), (p, ptext)
            elif p["type"] == "string":
                assert ptext == 'string "%s"' % p["value"], (p, ptext)
            elif p["type"] == "byte_array":
                n = len(p["bytes"]) // 2
                assert re.fullmatch(r"[0-9a-f]*", p["bytes"]) and p["bits"] <= 8 * n, p
                assert ptext.startswith("bytes(%d bits)" % p["bits"]), (p, ptext)
                if name == "SX/kernel signatures":
                    sig = p["signature"]
                    assert "malformed" not in sig, sig
                    assert ptext.startswith("bytes(%d bits) version %d, %s" % (p["bits"], sig["version"], sig["kind"]))
                    assert ("%d source params, %d params" % (sig["source_params"], len(sig["params"]))) in ptext
                    for q in sig["params"]:
                        assert q["kind"] in ("value", "pointer", "local", "struct"), q
                        assert q["kind"] != "value" or q["scalar"] != "?", q
                    seen.add(("signature", sig["kind"]))
                    if any("members" in q for q in sig["params"]):
                        seen.add(("signature", "members"))
                if name == "SYCL/device globals":
                    dg = p["device_global"]
                    assert ptext.endswith("size %d, device_image_scope %d" % (dg["size"], dg["device_image_scope"]))
                    seen.add(("device global", dg["device_image_scope"]))
                if name == "SYCL/kernel param opt":
                    assert ptext.endswith("[%s]" % "".join("1" if e else "0" for e in p["eliminated"])), (p, ptext)
                if name == "SYCL/device requirements" and p["name"] == "aspects":
                    assert all(isinstance(a["id"], int) for a in p["aspects"]), p
                    seen.add(("aspects", len(p["aspects"]) > 0))
            else:
                raise AssertionError(p)
assert total < size, (total, size)
# The source has all of these: a listing that lost one is wrong.
for want in [("signature", "nd_range"), ("signature", "single_task"), ("signature", "members"),
             ("device global", True), ("device global", False), ("aspects", True)]:
    assert want in seen, (want, sorted(seen, key=str))
print("proptool --dump --json: %d images, as listed" % len(images))
