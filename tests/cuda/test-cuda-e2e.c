/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-cuda-e2e.c: proptool image files (SPIR-V properties + PTX or cubin) end to end on the CUDA adapter (skips without a GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

static int failures, checks;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        checks++;                                                                  \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
            printf(__VA_ARGS__);                                                   \
            printf(" [%s]\n", sx_last_error());                                    \
        }                                                                          \
    } while (0)
#define CHECK_RC(expr, want)                                                       \
    do {                                                                           \
        sx_result rc_ = (expr);                                                    \
        CHECK(rc_ == (want), "%s: %s, wanted %s", #expr, sx_result_name(rc_),      \
              sx_result_name(want));                                               \
    } while (0)
#define OK(expr) CHECK_RC(expr, SX_SUCCESS)

/* host objects of props.cl's device globals (DPC++ layouts) */
static struct {
    void *usm;
    int value;
} pt_counter = {0, 100};
static struct {
    int value[4];
} pt_tile;

static sx_args args_of(const char *fn)
{
    sx_kernel k = NULL;
    sx_args a = NULL;
    OK(sx_kernel_get_free_function(fn, &k));
    if (k) {
        OK(sx_args_create(k, &a));
        OK(sx_kernel_release(k));
    }
    return a;
}

/* One image file: 0 ok, 77 no GPU. */
static int run_file(const char *path, const char *what)
{
    sx_image_file file = NULL;
    sx_result rc = sx_image_file_load(path, &file);
    if (rc == SX_ERROR_IO) {
        printf("SKIP: no image file %s (clang, proptool or nvcc missing at build time?)\n", path);
        return 77;
    }
    CHECK(rc == SX_SUCCESS, "loading %s: %s", path, sx_result_name(rc));
    if (rc)
        return 1;
    OK(sx_init(0));
    sx_device dev;
    uint32_t nd = 0;
    if (sx_device_get(NULL, SX_DEVICE_TYPE_GPU, 1, &dev, &nd) != SX_SUCCESS || !nd) {
        printf("SKIP: no CUDA driver or GPU\n");
        sx_fini();
        sx_image_file_release(file);
        return 77;
    }
    printf("# %s\n", what);
    sx_context ctx;
    sx_queue q;
    OK(sx_context_create(1, &dev, &ctx));
    OK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));

    enum { N = 1024, WG = 128 };
    int *in = NULL, *out = NULL;
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(int), 0, (void **)&in));
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(int), 0, (void **)&out));
    for (int i = 0; i < N; i++)
        in[i] = i * 7;
    sx_args a = args_of("pt_reverse");
    if (a && in && out) {
        OK(sx_args_set_pointer(a, 0, out));
        OK(sx_args_set_pointer(a, 1, in));
        OK(sx_args_set_local(a, 2, WG * sizeof(int)));
        size_t g = N, l = WG;
        OK(sx_nd_launch(q, a, 1, &g, &l, NULL, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        int good = 1;
        for (int i = 0; i < N; i++)
            good &= out[i] == ((i / WG) * WG + WG - 1 - i % WG) * 7;
        CHECK(good, "%s: pt_reverse out[0]=%d", what, out[0]);
        /* the dimensions are the kernel's */
        size_t g2[2] = {N, 1};
        CHECK_RC(sx_nd_launch(q, a, 2, g2, NULL, NULL, 0, NULL, NULL), SX_ERROR_INVALID_WORK_DIMENSION);
        OK(sx_args_release(a));
    }

    /* device globals: the USM kind starts from the host object's initial value */
    sx_args add = args_of("pt_add"), get = args_of("pt_globals"), dbl = args_of("pt_tile_double");
    if (add && get && dbl) {
        int v = 5;
        OK(sx_args_set(add, 0, sizeof(v), &v));
        size_t g = 64;
        OK(sx_nd_launch(q, add, 1, &g, NULL, NULL, 0, NULL, NULL));
        int tile[4] = {3, 5, 7, 9};
        OK(sx_queue_device_global_write(q, &pt_tile, tile, sizeof(tile), 0, 1, 0, NULL, NULL));
        OK(sx_single_task(q, dbl, NULL, 0, NULL, NULL));
        OK(sx_args_set_pointer(get, 0, out));
        OK(sx_single_task(q, get, NULL, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        CHECK(out[0] == 100 + 64 * 5, "%s: counter %d", what, out[0]);
        CHECK(out[1] == 6 && out[2] == 10 && out[3] == 14 && out[4] == 18, "%s: tile %d %d %d %d", what, out[1],
              out[2], out[3], out[4]);
        int c = 0, t[2] = {0};
        OK(sx_queue_device_global_read(q, &c, &pt_counter, sizeof(c), 0, 1, 0, NULL, NULL));
        CHECK(c == 420, "%s: counter read back %d", what, c);
        OK(sx_queue_device_global_read(q, t, &pt_tile, sizeof(t), 2 * sizeof(int), 1, 0, NULL, NULL));
        CHECK(t[0] == 14 && t[1] == 18, "%s: tile read at offset 8: %d %d", what, t[0], t[1]);
        CHECK_RC(sx_queue_device_global_read(q, t, &pt_tile, sizeof(t), 12, 1, 0, NULL, NULL),
                 SX_ERROR_INVALID_VALUE);
    }
    sx_args_release(add);
    sx_args_release(get);
    sx_args_release(dbl);
    OK(sx_usm_free(ctx, in));
    OK(sx_usm_free(ctx, out));
    OK(sx_queue_release(q));
    OK(sx_context_release(ctx));
    OK(sx_fini());
    OK(sx_image_file_release(file));
    return 0;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *b = getenv("SX_TEST_BUILDDIR");
    const char *data = getenv("SXC_TEST_DATA");
    char path[4096], dir[4096];
    if (!getenv("SX_ADAPTERS")) {
        snprintf(path, sizeof(path), "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    snprintf(dir, sizeof(dir), "%s", data ? data : b ? b : ".");
    if (!data)
        strncat(dir, "/tests/cuda", sizeof(dir) - strlen(dir) - 1);
    OK(sx_device_global_add(&pt_counter, "pt_counter", sizeof(pt_counter.value), 0, SX_HOST_ACCESS_READ_WRITE));
    OK(sx_device_global_add(&pt_tile, "pt_tile", sizeof(pt_tile.value), SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                            SX_HOST_ACCESS_READ_WRITE));
    int r = 0;
    static const char *files[][2] = {{"props-ptx.sximg", "PTX variant"}, {"props-cubin.sximg", "cubin variant"}};
    for (int i = 0; i < 2 && r == 0; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
        r = run_file(path, files[i][1]);
    }
    sx_device_global_remove(&pt_counter);
    sx_device_global_remove(&pt_tile);
    if (r == 77)
        return failures ? 1 : 77;
    printf("%d checks, %d failed\n", checks, failures);
    return failures || r ? 1 : 0;
}
