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

static void one(const uint8_t *data, size_t size);

/* As fuzz-image-file: the input, then without its checksum flag (byte 36). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_once();
    one(data, size);
    if (size > 36 && (data[36] & 1)) {
        uint8_t *copy = malloc(size);
        if (copy) {
            memcpy(copy, data, size);
            copy[36] &= 0xfe;
            one(copy, size);
            free(copy);
        }
    }
    return 0;
}

static void one(const uint8_t *data, size_t size)
{
    sx_image_file f;
    if (sx_image_file_load_memory(data, size, &f) != SX_SUCCESS)
        return;
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
}
