/* demo: register a device image, run saxpy on the default device, print
 * and check what it computed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sycl-ext/sx.h>

/* The host build of saxpy.cl, embedded by the build (bin2c.sh). */
extern const unsigned char saxpy_host[];
extern const size_t saxpy_host_size;

#define CHECK(call)                                                                         \
    do {                                                                                    \
        sx_result r_ = (call);                                                              \
        if (r_ != SX_SUCCESS) {                                                             \
            fprintf(stderr, "demo: %s failed: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

/* The kernel's parameters, as proptool's "SX/kernel signatures" encodes them:
 * global float *y, global const float *x, float a. */
static const uint32_t signature[] = {
    1, SX_KERNEL_KIND_PLAIN, 0, 3, 3,
    SX_PARAM_POINTER, 0, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, 0,
    SX_PARAM_POINTER, 0, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 1, 0,
    SX_PARAM_VALUE, SX_SCALAR_F32, 4, 4, SX_ADDRESS_SPACE_PRIVATE, 2, 0,
};

int main(void)
{
    static struct { uint64_t bits; uint32_t words[sizeof(signature) / 4]; } sig;
    sig.bits = sizeof(signature) * 8;
    memcpy(sig.words, signature, sizeof(signature));
    sx_device_binary_property sig_prop = {"saxpy", &sig, SX_PROPERTY_TYPE_BYTE_ARRAY, sizeof(sig)};
    sx_device_binary_property_set sets[] = {{SX_PROP_SET_KERNEL_SIGNATURES, &sig_prop, &sig_prop + 1}};
    sx_offload_entry entry = {.name = "saxpy"};
    sx_device_binary bin = {
        .version = SX_DEVICE_BINARY_VERSION, .kind = SX_OFFLOAD_KIND_SYCL, .format = SX_BINARY_FORMAT_NATIVE,
        .device_target_spec = SX_TARGET_HOST,
        .binary_start = saxpy_host, .binary_end = saxpy_host + saxpy_host_size,
        .entries_begin = &entry, .entries_end = &entry + 1,
        .property_sets_begin = sets, .property_sets_end = sets + 1,
    };
    sx_device_binaries desc = {SX_DEVICE_BINARIES_VERSION, 1, &bin, NULL, NULL};

    CHECK(sx_register_images(&desc));
    CHECK(sx_init(0));
    sx_device dev;
    CHECK(sx_device_get_default(&dev));
    char name[256];
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    printf("device: %s\n", name);

    sx_context ctx;
    sx_queue q;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    enum { N = 1024 };
    float *x, *y;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&x));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&y));
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    sx_kernel k;
    CHECK(sx_kernel_get("saxpy", &k));
    float a = 2.0f;
    sx_arg args[] = {
        {SX_ARG_POINTER, 0, sizeof(void *), y},
        {SX_ARG_POINTER, 1, sizeof(void *), x},
        {SX_ARG_VALUE, 2, sizeof(float), &a},
    };
    size_t global[1] = {N}, local[1] = {64};
    CHECK(sx_queue_launch(q, k, 1, NULL, global, local, 3, args, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));

    int bad = 0;
    for (int i = 0; i < N; i++)
        if (fabsf(y[i] - (2.0f * (float)i + 1.0f)) > 1e-6f)
            bad++;
    printf("saxpy: y[i] = 2 * i + 1 for %d elements: y[0]=%g y[1]=%g y[1023]=%g\n", N, y[0], y[1], y[N - 1]);
    printf("%s: %d of %d elements wrong\n", bad ? "FAILED" : "OK", bad, N);

    CHECK(sx_kernel_release(k));
    CHECK(sx_usm_free(ctx, x));
    CHECK(sx_usm_free(ctx, y));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    CHECK(sx_unregister_images(&desc));
    return bad ? 1 : 0;
}
