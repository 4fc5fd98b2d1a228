#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# dpcpp-wheels.sh BUILDDIR: fetch DPC++-built SYCL libraries from PyPI (the
# dpctl and dpnp wheels) and DPC++'s runtime (intel-sycl-rt, for the
# loader: the modules need libsycl.so.9) into BUILDDIR/dpcpp-wheels, never
# system-wide; issue 27's tests load the modules with the bridge preloaded.
#
#   BUILDDIR/dpcpp-wheels/wheels/       the downloaded wheels (a rerun needs no network)
#   BUILDDIR/dpcpp-wheels/lib/          libDPCTLSyclInterface.so, _tensor_impl*.so, _tensor_reductions_impl*.so,
#                                       _tensor_sorting_impl*.so, _tensor_accumulation_impl*.so,
#                                       _tensor_elementwise_impl*.so, libsycl.so.9
#   BUILDDIR/dpcpp-wheels/UNAVAILABLE   why they are not there (tests print it and skip)
#
# A rerun with the same versions does nothing (stamp file). Never fails the
# caller: without network or pip it leaves UNAVAILABLE and exits 0.
# SX_DPCPP_WHEELS=0 skips it (the reason says so).
set -u
mkdir -p "${1:-.}" && build=$(cd "${1:-.}" && pwd) || { echo "dpcpp-wheels: cannot use ${1:-.}" >&2; exit 0; }
dir=$build/dpcpp-wheels
PKGS="dpctl==0.22.1 dpnp==0.20.0 intel-sycl-rt==2026.2.0"
STAMP="$PKGS: 7 modules"
mkdir -p "$dir/wheels" "$dir/lib"

unavailable() {
    echo "$*" > "$dir/UNAVAILABLE"
    echo "dpcpp-wheels: $*" >&2
    exit 0
}
[ "${SX_DPCPP_WHEELS:-1}" = 0 ] && unavailable "not downloaded: SX_DPCPP_WHEELS=0"
[ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$STAMP" ] && { rm -f "$dir/UNAVAILABLE"; exit 0; }
for py in python3 python; do
    command -v $py >/dev/null 2>&1 && $py -m pip --version >/dev/null 2>&1 && break
    py=
done
[ -n "$py" ] || unavailable "no python3 with pip (apt-get install python3-pip)"
for p in $PKGS; do
    name=$(echo "$p" | sed 's/==.*//; s/-/_/g')
    ver=$(echo "$p" | sed 's/.*==//')
    ls "$dir/wheels/$name-$ver-"*.whl >/dev/null 2>&1 && continue
    echo "dpcpp-wheels: downloading $p" >&2
    $py -m pip download -q --no-deps --disable-pip-version-check --only-binary=:all: \
        --python-version 3.11 --platform manylinux_2_28_x86_64 -d "$dir/wheels" "$p" >"$dir/pip.log" 2>&1 ||
        unavailable "pip could not download $p (offline? $(tail -n 1 "$dir/pip.log"))"
done
# Only the DPC++-built modules and the runtime's loader-facing library.
$py - "$dir" <<'PY' || unavailable "could not unpack the wheels"
import glob, os, sys, zipfile
d = sys.argv[1]
want = ("dpctl/libDPCTLSyclInterface.so", "dpnp/tensor/_tensor_impl", "dpnp/tensor/_tensor_elementwise_impl",
        "dpnp/tensor/_tensor_reductions_impl", "dpnp/tensor/_tensor_sorting_impl", "dpnp/tensor/_tensor_accumulation_impl",
        "/lib/libsycl.so.9")
for w in sorted(glob.glob(os.path.join(d, "wheels", "*.whl"))):
    with zipfile.ZipFile(w) as z:
        for n in z.namelist():
            if any(n.startswith(x) or (x.startswith("/") and n.endswith(x)) for x in want) and n.endswith((".so", ".so.9")):
                out = os.path.join(d, "lib", os.path.basename(n))
                with z.open(n) as src, open(out + ".tmp", "wb") as dst:
                    dst.write(src.read())
                os.replace(out + ".tmp", out)
PY
n=$(ls "$dir/lib" | wc -l)
[ "$n" -ge 7 ] || unavailable "the wheels held $n of the 7 libraries wanted"
echo "$STAMP" > "$dir/.stamp"
rm -f "$dir/UNAVAILABLE"
exit 0
