#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/check-api-docs.sh: the API reference is complete. Doxygen reads the
# public headers as `make doc` does (doc/api/Doxyfile.in) and every file,
# function, type, macro, struct member and enumeration value (the result
# codes among them) must carry a description where it is declared: a
# Doxygen "is not documented" warning, or an enumeration value without
# one, fails. Every function libsycl-ext.so.1 exports must be documented
# in a header. Skips (77) without doxygen.
set -u
b=${SX_TEST_BUILDDIR:?} s=${SX_TEST_SRCDIR:?}
DOXYGEN=${DOXYGEN:-doxygen}
command -v "$DOXYGEN" >/dev/null 2>&1 || { echo "SKIP: doxygen not installed (apt-get install doxygen)"; exit 77; }
w=$b/tests/api-docs-work
rm -rf "$w" && mkdir -p "$w"
sed -e "s|%%VERSION%%|check|; s|%%OUTPUT%%|$w|g; s|%%SRCDIR%%|$s|g; s|%%BUILDDIR%%|$b|g; s|%%XML%%|YES|" \
    "$s/doc/api/Doxyfile.in" >"$w/Doxyfile"
( cd "$w" && "$DOXYGEN" Doxyfile ) >"$w/doxygen.out" 2>&1 || { cat "$w/doxygen.out"; echo "FAIL: doxygen failed"; exit 1; }
bad=0
if grep -q . "$w/warnings.log"; then
    n=$(grep -c 'is not documented' "$w/warnings.log")
    echo "FAIL: doxygen warns ($n undocumented):"
    sed "s|$s/||; s|$b/||" "$w/warnings.log" | head -n 60
    bad=1
fi
# Enumeration values (Doxygen does not warn about them) and exported functions.
python3 - "$w/xml" "$b/lib/.libs/libsycl-ext.so.1" <<'EOF' || bad=1
import glob, subprocess, sys
import xml.etree.ElementTree as ET
xmldir, lib = sys.argv[1], sys.argv[2]
def text(e):
    return ''.join(e.itertext()).strip() if e is not None else ''
documented, bad = set(), 0
for f in glob.glob(xmldir + '/*_8h.xml'):
    for m in ET.parse(f).iter('memberdef'):
        name = text(m.find('name'))
        desc = text(m.find('briefdescription')) + text(m.find('detaileddescription'))
        if desc:
            documented.add(name)
        for v in m.findall('enumvalue'):
            if not (text(v.find('briefdescription')) + text(v.find('detaileddescription'))):
                print('FAIL: %s: enumeration value %s is not documented' % (f.split('/')[-1], text(v.find('name'))))
                bad += 1
try:
    out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True).stdout
except (OSError, subprocess.CalledProcessError) as e:
    print('FAIL: nm -D %s: %s' % (lib, e))
    sys.exit(1)
exports = sorted({l.split()[-1].split('@')[0] for l in out.splitlines() if ' T ' in l})
for sym in exports:
    if sym not in documented:
        print('FAIL: %s exports %s, which no header documents' % (lib.split('/')[-1], sym))
        bad += 1
print('%d exported functions, all documented' % len(exports) if not bad else '%d problems' % bad)
sys.exit(1 if bad else 0)
EOF
exit $bad
