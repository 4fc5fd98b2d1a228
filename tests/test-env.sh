# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/test-env.sh: the environment every test runs in, sourced by the
# harness (AM_TESTS_ENVIRONMENT) after it exported SX_TEST_BUILDDIR. Tests
# must not depend on the caller's environment: the library's and the
# drivers' variables are cleared (a shell's SX_LOG, SX_ADAPTERS,
# SX_DEVICE_SELECTOR, SX_CACHE_DIR, OCL_ICD_VENDORS, POCL_DEVICES,
# XDG_CACHE_HOME ...), LD_LIBRARY_PATH and LD_PRELOAD lose every entry that
# holds another libsycl-ext, and what the tests need is set here.
# Kept: the test knobs (SX_TEST_*, SX_OCL_DRIVERS, SX_STRESS_SECONDS,
# SX_PROPTOOL_NATIVE, SX_PROPTOOL_PTX, SX_INTEL_OPENCL, SX_GPU_SANITIZE, the
# longer runs' SX_WGC_DIFF_SEEDS, SX_WGC_DIFF_COUNT, SX_DPNP_STEP), CUDA_* and the
# loader's own search for vendor libraries. tests/hostile-env.sh proves it.
for sx_v in $(awk 'BEGIN { for (k in ENVIRON) print k }'); do
    case $sx_v in
    SX_TEST_*|SX_OCL_DRIVERS|SX_STRESS_SECONDS|SX_PROPTOOL_NATIVE|SX_PROPTOOL_PTX|SX_INTEL_OPENCL|SX_GPU_SANITIZE|\
    SX_WGC_DIFF_SEEDS|SX_WGC_DIFF_COUNT|SX_DPNP_STEP) ;;
    SX_*|SXO_*|SXC_*|NT_*|KS_*|ZH_*|FAKE_*|ZE_TEST_*|OCL_ICD_*|OPENCL_*|POCL_*|OCLGRIND_*|XDG_CACHE_HOME|\
    ZE_ENABLE_*|ZE_AFFINITY_MASK|ONEAPI_DEVICE_SELECTOR|SYCL_*|CL_CONFIG_*|CK_*|UR_*)
        unset "$sx_v" ;;
    esac
done
# A search-path entry that holds a libsycl-ext (or one of its adapters)
# would shadow the library under test (libtool's wrappers find the build
# tree's themselves).
sx_filter_path() { # SEPARATOR LIST
    sx_out= sx_ifs=$IFS
    IFS=$1
    for sx_d in $2; do
        case $sx_d in
        *libsycl-ext*|*sx-adapter-*) continue ;;
        esac
        if [ -n "$sx_d" ] && [ -d "$sx_d" ]; then
            for sx_f in "$sx_d"/libsycl-ext.so* "$sx_d"/libsycl-ext-trace.so* "$sx_d"/sx-adapter-*.so \
                "$sx_d"/sycl-ext/sx-adapter-*.so; do
                [ -e "$sx_f" ] && continue 2
            done
        fi
        [ -n "$sx_d" ] && sx_out=${sx_out:+$sx_out$1}$sx_d
    done
    IFS=$sx_ifs
    printf '%s' "$sx_out"
}
if [ -n "${LD_LIBRARY_PATH:-}" ]; then
    LD_LIBRARY_PATH=$(sx_filter_path : "$LD_LIBRARY_PATH")
    if [ -n "$LD_LIBRARY_PATH" ]; then export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi
fi
if [ -n "${LD_PRELOAD:-}" ]; then
    LD_PRELOAD=$(sx_filter_path ' :' "$LD_PRELOAD")
    if [ -n "$LD_PRELOAD" ]; then export LD_PRELOAD; else unset LD_PRELOAD; fi
fi
unset sx_v sx_out sx_ifs sx_d sx_f
unset -f sx_filter_path

# What the tests rely on: adapters, builtins and the program cache from the
# build tree, no installed adapter, proptool's native variants off unless
# the caller asks, a home for the default cache directory inside the build.
export SX_NATIVE_BUILTINS="$SX_TEST_BUILDDIR/adapters/native/.libs/sx-native-builtins.so"
export CK_DEFAULT_TIMEOUT=120
export SX_CACHE_DIR="$SX_TEST_BUILDDIR/tests/program-cache"
export SX_PROPTOOL_NATIVE="${SX_PROPTOOL_NATIVE-off}"
export SX_PROPTOOL_PTX="${SX_PROPTOOL_PTX-off}"
export SX_ADAPTER_DIR="$SX_TEST_BUILDDIR/tests/no-installed-adapters"
export XDG_CACHE_HOME="$SX_TEST_BUILDDIR/tests/xdg-cache"
