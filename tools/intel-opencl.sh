#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# intel-opencl.sh BUILDDIR: install Intel's CPU OpenCL runtime (and DPC++'s
# Unified Runtime with its OpenCL adapter, for bench/ur-vs-sx) from PyPI
# into BUILDDIR/intel-opencl, never system-wide, and write an .icd file of
# our own for OCL_ICD_VENDORS.
#
#   BUILDDIR/intel-opencl/             pip --prefix (lib/libintelocl.so, lib/libur_loader.so, ...)
#   BUILDDIR/intel-opencl/vendors/     intel-cpu.icd: the one OCL_ICD_VENDORS directory
#   BUILDDIR/intel-opencl/wheels/      the downloaded wheels (a reinstall needs no network)
#   BUILDDIR/intel-opencl/UNAVAILABLE  why the runtime is not there (the tests print it and skip)
#
# A rerun with the same versions does nothing (stamp files). Never fails the
# caller: without network, pip or a package, it leaves UNAVAILABLE and exits 0.
# SX_INTEL_OPENCL=0 skips it (the reason says so).
set -u
mkdir -p "${1:-.}" && build=$(cd "${1:-.}" && pwd) || { echo "intel-opencl: cannot use build directory ${1:-.}" >&2; exit 0; }
dir=$build/intel-opencl
# Pinned: 2026.2.0 of intel-cmplr-lib-ur no longer ships libur_adapter_opencl.so.
OCL_PKGS="intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0"
UR_PKGS="intel-cmplr-lib-ur==2026.1.2"
mkdir -p "$dir/vendors" "$dir/wheels"

unavailable() {
    echo "$*" > "$dir/UNAVAILABLE"
    echo "intel-opencl: $*" >&2
    exit 0
}

[ "${SX_INTEL_OPENCL:-1}" = 0 ] && unavailable "not installed: SX_INTEL_OPENCL=0"

# pip_install STAMP PACKAGES...: download into wheels/, install from there.
pip_install() {
    stamp=$1; shift
    [ -f "$dir/$stamp" ] && [ "$(cat "$dir/$stamp")" = "$*" ] && return 0
    for py in python3 python; do
        command -v $py >/dev/null 2>&1 && $py -m pip --version >/dev/null 2>&1 && break
        py=
    done
    [ -n "$py" ] || { echo "no python3 with pip (apt-get install python3-pip)"; return 1; }
    echo "intel-opencl: pip installing $* into $dir" >&2
    log=$dir/pip.log
    if ! $py -m pip download -q --disable-pip-version-check -d "$dir/wheels" "$@" >"$log" 2>&1; then
        # Offline: what wheels/ already holds may still do.
        $py -m pip install -q --disable-pip-version-check --no-index --find-links "$dir/wheels" \
            --prefix "$dir" "$@" >>"$log" 2>&1 ||
            { echo "pip could not get $* ($(tail -n 1 "$log"))"; return 1; }
    else
        $py -m pip install -q --disable-pip-version-check --no-index --find-links "$dir/wheels" \
            --prefix "$dir" "$@" >>"$log" 2>&1 ||
            { echo "pip install of $* failed ($(tail -n 1 "$log"))"; return 1; }
    fi
    echo "$*" > "$dir/$stamp"
}

why=$(pip_install .stamp-opencl $OCL_PKGS) || unavailable "$why"
[ -f "$dir/lib/libintelocl.so" ] || unavailable "$dir/lib/libintelocl.so missing after pip install"
# The wheel's own .icd names an anaconda placeholder path: write ours.
echo "$dir/lib/libintelocl.so" > "$dir/vendors/intel-cpu.icd"
rm -f "$dir/UNAVAILABLE"

# Unified Runtime for the benchmark only: its absence fails nothing.
if why=$(pip_install .stamp-ur $UR_PKGS); then
    rm -f "$dir/UR-UNAVAILABLE"
else
    echo "$why" > "$dir/UR-UNAVAILABLE"
    echo "intel-opencl: Unified Runtime: $why" >&2
fi
exit 0
