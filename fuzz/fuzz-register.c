/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fuzz-register.c: fuzz target for registration with the whole core and
 * the native adapter: an input is an image file, loaded from memory and
 * registered (sx_image_file_load_memory -> sx_register_images), then every
 * kernel it gives is looked up, queried, checked for compatibility with
 * the native device (the virtual-function resolver) and given an argument
 * builder; everything is released. Programs are not built: the native
 * adapter would dlopen the input's bytes, running fuzzed code. */
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sx_device dev;

static void init_once(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    setenv("SX_ADAPTERS", "native", 1);
    if (sx_init(0) != SX_SUCCESS || sx_device_get_default(&dev) != SX_SUCCESS)
        abort();
}

/* Issue 27: an input starting "DPC3" describes a descriptor in DPC++'s
 * layouts instead of an image file: records of any version (1 and 2: 96
 * bytes, 3: 80 bytes, others must be refused), legacy or LLVM entry tables
 * (or a mix, refused), any format, binaries straight from the input
 * (compressed ones are zstd frames the fuzzer shapes). After the tag: u8
 * image count, then per image u8 version, u8 format, u8 flags (1: LLVM
 * entries, 2: one legacy entry among them, 4: format 4), u8 entry count
 * (0-3), u16 binary length, the binary, then the entry names
 * NUL-terminated. Registered, every kernel looked up, unregistered. */
#define MAXI 4
static void dpcpp_layouts(const uint8_t *d, size_t n)
{
    size_t at = 4;
    if (at >= n)
        return;
    unsigned ni = d[at++] % MAXI + 1;
    static char names[MAXI][3][64];
    static sx_offload_entry legacy[MAXI][3];
    static sx_offload_entry_llvm llvm[MAXI][3];
    static unsigned char recs[MAXI * sizeof(sx_device_binary)] __attribute__((aligned(8)));
    static uint8_t bins[MAXI][4096];
    unsigned char *w = recs;
    unsigned nent[MAXI] = {0};
    for (unsigned i = 0; i < ni; i++) {
        if (at + 6 > n)
            return;
        uint8_t version = d[at], format = d[at + 1], flags = d[at + 2];
        nent[i] = d[at + 3] % 4;
        size_t len = (size_t)d[at + 4] | (size_t)d[at + 5] << 8;
        at += 6;
        if (len > sizeof(bins[i]) || len > n - at)
            return;
        memcpy(bins[i], d + at, len);
        at += len;
        for (unsigned k = 0; k < nent[i]; k++) {
            size_t m = 0;
            while (at < n && d[at] && m < 63)
                names[i][k][m++] = (char)d[at++];
            names[i][k][m] = '\0';
            at += at < n;
            legacy[i][k] = (sx_offload_entry){.name = names[i][k]};
            llvm[i][k] = (sx_offload_entry_llvm){.version = SX_OFFLOAD_ENTRY_LLVM_VERSION,
                                                 .kind = SX_OFFLOAD_ENTRY_LLVM_KIND_SYCL, .symbol_name = names[i][k]};
        }
        if ((flags & 2) && nent[i] > 1)
            memcpy(&llvm[i][1], &legacy[i][1], sizeof(legacy[i][1])); /* a mixed table */
        sx_offload_entry *eb = (flags & 1) ? (sx_offload_entry *)(void *)llvm[i] : legacy[i];
        sx_offload_entry *ee = (flags & 1) ? (sx_offload_entry *)(void *)(llvm[i] + nent[i]) : legacy[i] + nent[i];
        if (!nent[i])
            eb = ee = NULL;
        if (flags & 4)
            format = SX_BINARY_FORMAT_COMPRESSED_NONE;
        const unsigned char *bs = len ? bins[i] : NULL, *be = len ? bins[i] + len : NULL;
        if (version == 3) {
            sx_device_binary_v3 r = {version, SX_OFFLOAD_KIND_SYCL, format, "spir64", "", "", bs, be, eb, ee, NULL, NULL};
            memcpy(w, &r, sizeof(r));
            w += sizeof(r);
        } else {
            sx_device_binary r = {version, SX_OFFLOAD_KIND_SYCL, format, "spir64", "", "", NULL, NULL, bs, be,
                                  eb, ee, NULL, NULL};
            memcpy(w, &r, sizeof(r));
            w += sizeof(r);
        }
    }
    sx_device_binaries desc = {SX_DEVICE_BINARIES_VERSION, (uint16_t)ni, (sx_device_binary *)(void *)recs, NULL,
                               NULL};
    if (sx_register_images(&desc) != SX_SUCCESS)
        return;
    for (unsigned i = 0; i < ni; i++)
        for (unsigned k = 0; k < nent[i]; k++) {
            sx_kernel kk;
            if (sx_kernel_get(names[i][k], &kk) == SX_SUCCESS)
                sx_kernel_release(kk);
        }
    if (sx_unregister_images(&desc) != SX_SUCCESS)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_once();
    if (size >= 4 && memcmp(data, "DPC3", 4) == 0) {
        dpcpp_layouts(data, size);
        return 0;
    }
    sx_image_file f;
    if (sx_image_file_load_memory(data, size, &f) != SX_SUCCESS)
        return 0;
    uint32_t n = 0;
    if (sx_kernel_get_all(0, NULL, &n) == SX_SUCCESS && n) {
        sx_kernel *ks = calloc(n, sizeof(*ks));
        uint32_t got = 0;
        if (ks && sx_kernel_get_all(n, ks, &got) == SX_SUCCESS) {
            for (uint32_t i = 0; i < n && i < got; i++) {
                char name[256];
                uint32_t v;
                int ok;
                sx_args a;
                sx_kernel_get_info(ks[i], SX_KERNEL_INFO_NAME, sizeof(name), name, NULL);
                for (sx_kernel_info p = SX_KERNEL_INFO_NUM_BACKEND_ARGS; p <= SX_KERNEL_INFO_NUM_ARGS; p++)
                    sx_kernel_get_info(ks[i], p, sizeof(v), &v, NULL);
                sx_kernel_is_compatible(ks[i], dev, &ok);
                if (sx_args_create(ks[i], &a) == SX_SUCCESS) {
                    int x = 1;
                    sx_args_set(a, 0, sizeof(x), &x);
                    sx_args_release(a);
                }
                sx_kernel_release(ks[i]);
            }
        }
        free(ks);
    }
    /* Released twice: the second must be a clean error, never a crash. */
    if (sx_image_file_release(f) != SX_SUCCESS || sx_image_file_release(f) != SX_ERROR_INVALID_HANDLE)
        abort();
    return 0;
}
