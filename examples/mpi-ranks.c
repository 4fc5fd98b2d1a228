/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mpi-ranks: libsycl-ext under MPI. Each rank picks its device from its
 * local rank (one GPU per rank where there are GPUs, else the native CPU
 * device with the cores shared out between the node's ranks), writes its
 * own value into a device_global, runs a kernel that reads it and a kernel
 * that calls a virtual function, and checks both. All ranks share one
 * persistent program cache: rank 0 launches first (building and storing
 * the linked program), the others after a barrier, so they read it back.
 * Prints one line per rank and, on rank 0, the total; exit 0 when every
 * rank got the right results. Kernels: mpi-scale.cl, mpi-kernels.cl.
 * doc/mpi.md. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sycl-ext/sx.h>

#include "mpi-shared.h" /* the device_global rank_scale and the kernel's name */

#define N 256

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        if (r_ != SX_SUCCESS) {                                                                       \
            fprintf(stderr, "rank %d: %s failed: %s: %s\n", rank, #call, sx_result_name(r_),          \
                    sx_last_error());                                                                 \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

/* Without SX_NATIVE_THREADS, give each of the node's ranks its share of
 * the cores so that the native device's thread pools do not oversubscribe
 * them. Must run before sx_init (the native adapter reads it there). */
static void share_cores(int local_size)
{
    if (getenv("SX_NATIVE_THREADS"))
        return;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long share = cpus / (local_size > 0 ? local_size : 1);
    char v[32];
    snprintf(v, sizeof(v), "%ld", share > 0 ? share : 1);
    setenv("SX_NATIVE_THREADS", v, 1);
}

/* The device of this rank: with SX_DEVICE_SELECTOR set (per rank by the
 * launcher), the default device; else GPU number local_rank modulo the
 * node's GPUs; with no GPU, the default (native) device. */
static sx_result pick_device(int local_rank, sx_device *dev)
{
    if (getenv("SX_DEVICE_SELECTOR"))
        return sx_device_get_default(dev);
    uint32_t n = 0;
    sx_result r = sx_device_get(NULL, SX_DEVICE_TYPE_GPU, 0, NULL, &n);
    if (r != SX_SUCCESS || n == 0)
        return sx_device_get_default(dev);
    sx_device *gpus = calloc(n, sizeof(*gpus));
    if (!gpus)
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    r = sx_device_get(NULL, SX_DEVICE_TYPE_GPU, n, gpus, NULL);
    if (r == SX_SUCCESS)
        *dev = gpus[(uint32_t)local_rank % n];
    free(gpus);
    return r;
}

static int run(int rank, int local_rank, int *bad)
{
    sx_device dev;
    CHECK(pick_device(local_rank, &dev));
    char name[256] = "";
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    sx_context ctx;
    sx_queue q;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    int *out, *r;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(int), 0, (void **)&out));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(int), 0, (void **)&r));

    /* device_global: this rank's value, read back by the kernel. */
    int scale = 1000 + rank;
    CHECK(sx_queue_device_global_write(q, &rank_scale, &scale, sizeof(scale), 0, 1, 0, NULL, NULL));
    sx_kernel k;
    sx_args args;
    CHECK(sx_kernel_get_free_function(SX_KERNEL_NAME(scale), &k));
    CHECK(sx_args_create(k, &args));
    CHECK(sx_args_set_pointer(args, 0, out));
    size_t global[1] = {N}, local[1] = {64};
    CHECK(sx_nd_launch(q, args, 1, global, local, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    int back = 0;
    CHECK(sx_queue_device_global_read(q, &back, &rank_scale, sizeof(back), 0, 1, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        *bad += out[i] != i * scale;
    *bad += back != scale;

    /* Virtual function: linked with its set's image at the first launch
     * (or served from the persistent cache). */
    sx_kernel vk;
    CHECK(sx_kernel_get("vf_apply", &vk));
    for (int i = 0; i < N; i++)
        r[i] = i + rank;
    sx_arg va[1] = {{.type = SX_ARG_POINTER, .index = 0, .size = sizeof(void *), .value = r}};
    CHECK(sx_queue_launch(q, vk, 1, NULL, global, local, 1, va, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    for (int i = 0; i < N; i++)
        *bad += r[i] != (i + rank) * (i + rank) + 7;

    const char *threads = getenv("SX_NATIVE_THREADS");
    printf("rank %d (local %d): %s (native threads %s): device_global %d, vf_apply: %s\n", rank, local_rank, name,
           threads ? threads : "-", back, *bad ? "WRONG" : "ok");
    fflush(stdout);
    CHECK(sx_args_release(args));
    CHECK(sx_kernel_release(k));
    CHECK(sx_kernel_release(vk));
    CHECK(sx_usm_free(ctx, out));
    CHECK(sx_usm_free(ctx, r));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    return 0;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, local_rank = 0, local_size = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* The ranks on this node: MPI-3's shared-memory split, portable across
     * MPI implementations (OMPI_COMM_WORLD_LOCAL_RANK is Open MPI's). */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    share_cores(local_size);
    /* "--together": every rank launches at once (a cache race) instead of
     * rank 0 first. */
    int together = argc > 1 && !strcmp(argv[1], "--together");

    int failed = 0, bad = 0;
    sx_result r = sx_init(0);
    if (r != SX_SUCCESS) {
        fprintf(stderr, "rank %d: sx_init: %s: %s\n", rank, sx_result_name(r), sx_last_error());
        failed = 1;
    }
    if (!together && rank != 0)
        MPI_Barrier(MPI_COMM_WORLD); /* wait for rank 0 to build and store */
    if (!failed)
        failed = run(rank, local_rank, &bad);
    if (!together && rank == 0) {
        sx_cache_flush(); /* the linked program is on disk before the others look */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (r == SX_SUCCESS)
        sx_fini();

    int mine = failed || bad, total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d of %d ranks right\n", total ? "FAILED" : "OK", size - total, size);
    MPI_Finalize();
    return mine ? 1 : 0;
}
