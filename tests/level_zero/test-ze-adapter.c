/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-ze-adapter.c: the Level Zero adapter's discovery, devices, contexts, queues, USM and events, through the real loader and the TEST DRIVER. */
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ze-harness.h"

static void fixture_setup(void)
{
    zh_setup();
}

static void fixture_teardown(void)
{
    zh_teardown();
}

START_TEST(test_proc_table_handshake)
{
    zh_use_test_driver();
    zh_load_tables();
    void *lib = dlopen(zh_path("adapters/level_zero/.libs/sx-adapter-level_zero.so"),
                       RTLD_NOW | RTLD_LOCAL);
    ck_assert_ptr_nonnull(lib);
    sxa_get_proc_table_fn get = (sxa_get_proc_table_fn)dlsym(lib, SXA_ENTRY_SYMBOL);
    sxa_adapter_table t = {.size = sizeof(t)};
    ZK_ERR(get(SXA_MAKE_VERSION(2, 0), SXA_TABLE_ADAPTER, &t), SX_ERROR_UNSUPPORTED_VERSION);
    ZK_OK(get(SXA_MAKE_VERSION(1, 7), SXA_TABLE_ADAPTER, &t));  /* any minor of major 1 */
    ZK_ERR(get(SXA_ABI_VERSION, SXA_TABLE_COUNT_, &t), SX_ERROR_INVALID_ENUMERATION);
    ZK_ERR(get(SXA_ABI_VERSION, SXA_TABLE_ADAPTER, NULL), SX_ERROR_INVALID_NULL_POINTER);
    /* An older core's smaller table gets only its prefix. */
    struct { uint32_t size; void *init; void *canary; } small = {sizeof(uint32_t) + sizeof(void *), NULL, &small};
    ZK_OK(get(SXA_ABI_VERSION, SXA_TABLE_ADAPTER, &small));
    ck_assert_ptr_nonnull(small.init);
    ck_assert_ptr_eq(small.canary, &small);
    dlclose(lib);
    /* Every entry the adapter has, including the optional ones. */
    ck_assert(ZT.adapter.init && ZT.adapter.fini && ZT.adapter.get_info);
    ck_assert(ZT.platform.get && ZT.platform.get_info && ZT.device.get && ZT.device.get_info);
    ck_assert(ZT.context.create && ZT.context.release);
    ck_assert(ZT.queue.create && ZT.queue.release && ZT.queue.finish && ZT.queue.flush);
    ck_assert(ZT.usm.alloc && ZT.usm.free);
    ck_assert(ZT.program.create && ZT.program.build && ZT.program.compile && ZT.program.link &&
              ZT.program.release && ZT.program.get_binary && ZT.program.get_global);
    ck_assert(ZT.kernel.create && ZT.kernel.release && ZT.kernel.get_info);
    ck_assert(ZT.enqueue.kernel_launch && ZT.enqueue.usm_memcpy && ZT.enqueue.usm_fill &&
              ZT.enqueue.global_write && ZT.enqueue.global_read && ZT.enqueue.barrier);
    ck_assert(ZT.event.wait && ZT.event.get_status && ZT.event.release && ZT.event.get_profiling);
    zh_teardown();
}
END_TEST

START_TEST(test_driver_exports_every_getter)
{
    /* The 1.8 loader looks up the proc-address-table getters in a driver;
     * the TEST DRIVER exports all 53 of ze_ddi.h, zet_ddi.h and zes_ddi.h. */
    static const char *const getters[] = {
        "zeGetCommandListProcAddrTable",
        "zeGetCommandQueueProcAddrTable",
        "zeGetContextProcAddrTable",
        "zeGetDeviceExpProcAddrTable",
        "zeGetDeviceProcAddrTable",
        "zeGetDriverProcAddrTable",
        "zeGetEventExpProcAddrTable",
        "zeGetEventPoolProcAddrTable",
        "zeGetEventProcAddrTable",
        "zeGetFabricEdgeExpProcAddrTable",
        "zeGetFabricVertexExpProcAddrTable",
        "zeGetFenceProcAddrTable",
        "zeGetGlobalProcAddrTable",
        "zeGetImageExpProcAddrTable",
        "zeGetImageProcAddrTable",
        "zeGetKernelExpProcAddrTable",
        "zeGetKernelProcAddrTable",
        "zeGetMemProcAddrTable",
        "zeGetModuleBuildLogProcAddrTable",
        "zeGetModuleProcAddrTable",
        "zeGetPhysicalMemProcAddrTable",
        "zeGetSamplerProcAddrTable",
        "zeGetVirtualMemProcAddrTable",
        "zesGetDeviceProcAddrTable",
        "zesGetDiagnosticsProcAddrTable",
        "zesGetDriverProcAddrTable",
        "zesGetEngineProcAddrTable",
        "zesGetFabricPortProcAddrTable",
        "zesGetFanProcAddrTable",
        "zesGetFirmwareProcAddrTable",
        "zesGetFrequencyProcAddrTable",
        "zesGetLedProcAddrTable",
        "zesGetMemoryProcAddrTable",
        "zesGetPerformanceFactorProcAddrTable",
        "zesGetPowerProcAddrTable",
        "zesGetPsuProcAddrTable",
        "zesGetRasProcAddrTable",
        "zesGetSchedulerProcAddrTable",
        "zesGetStandbyProcAddrTable",
        "zesGetTemperatureProcAddrTable",
        "zetGetCommandListProcAddrTable",
        "zetGetContextProcAddrTable",
        "zetGetDebugProcAddrTable",
        "zetGetDeviceProcAddrTable",
        "zetGetKernelProcAddrTable",
        "zetGetMetricGroupExpProcAddrTable",
        "zetGetMetricGroupProcAddrTable",
        "zetGetMetricProcAddrTable",
        "zetGetMetricQueryPoolProcAddrTable",
        "zetGetMetricQueryProcAddrTable",
        "zetGetMetricStreamerProcAddrTable",
        "zetGetModuleProcAddrTable",
        "zetGetTracerExpProcAddrTable"};
    ck_assert_uint_eq(sizeof(getters) / sizeof(getters[0]), 53);
    void *drv = dlopen(zh_path("tests/level_zero/.libs/libze_sx_test_driver.so"), RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(drv != NULL, "dlopen TEST DRIVER: %s", dlerror());
    for (size_t i = 0; i < sizeof(getters) / sizeof(getters[0]); i++)
        ck_assert_msg(dlsym(drv, getters[i]) != NULL, "TEST DRIVER lacks %s", getters[i]);
    dlclose(drv);
}
END_TEST

static void status_of(sxa_adapter a, char *buf, size_t size)
{
    size_t n = 0;
    ZK_OK(ZT.adapter.get_info(a, SXA_ADAPTER_INFO_STATUS, 0, NULL, &n));
    ck_assert(n > 1 && n <= size);
    ZK_OK(ZT.adapter.get_info(a, SXA_ADAPTER_INFO_STATUS, size, buf, NULL));
}

START_TEST(test_zero_drivers)
{
    /* The real loader with no driver at all: zeInit fails, the adapter
     * succeeds with no platforms and says why. */
    zh_use_test_driver();
    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    zh_load_tables();
    ZK_OK(ZT.adapter.init(&zh_services, &zh_adapter));
    uint32_t n = 99;
    ZK_OK(ZT.platform.get(zh_adapter, 0, NULL, &n));
    char status[256];
    status_of(zh_adapter, status, sizeof(status));
    if (n == 0) {
        ck_assert_msg(strstr(status, "zeInit: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)") &&
                          strstr(status, "no Level Zero driver") && strstr(status, "0 platforms"),
                      "status '%s'", status);
    } else {
        ck_assert_msg(strstr(status, "driver"), "a real driver is installed; status '%s'", status);
    }
    zh_teardown();
}
END_TEST

START_TEST(test_no_loader)
{
    zh_use_test_driver();
    setenv("SX_ZE_LOADER", "/nonexistent/libze_loader.so.1", 1);
    zh_load_tables();
    ZK_OK(ZT.adapter.init(&zh_services, &zh_adapter));
    uint32_t n = 99;
    ZK_OK(ZT.platform.get(zh_adapter, 0, NULL, &n));
    ck_assert_uint_eq(n, 0);
    char status[256];
    status_of(zh_adapter, status, sizeof(status));
    ck_assert_msg(strstr(status, "/nonexistent/libze_loader.so.1 not loaded") &&
                      strstr(status, "0 platforms"), "status '%s'", status);
    zh_teardown();
}
END_TEST

START_TEST(test_driver_init_fails)
{
    zh_use_test_driver();
    setenv("ZE_TEST_DRIVER_FAIL", "zeInit", 1);
    zh_load_tables();
    ZK_OK(ZT.adapter.init(&zh_services, &zh_adapter));
    uint32_t n = 99;
    ZK_OK(ZT.platform.get(zh_adapter, 0, NULL, &n));
    ck_assert_uint_eq(n, 0);
    char status[256];
    status_of(zh_adapter, status, sizeof(status));
    ck_assert_msg(strstr(status, "zeInit: ZE_RESULT_ERROR_") != NULL, "status '%s'", status);
    ZK_LOG_HAS("zeInit injected failure");
    zh_teardown();
}
END_TEST

START_TEST(test_device_query_fails)
{
    /* A device whose properties cannot be read is skipped, not fatal. */
    zh_use_test_driver();
    setenv("ZE_TEST_DRIVER_FAIL", "zeDeviceGetProperties", 1);
    zh_load_tables();
    ZK_OK(ZT.adapter.init(&zh_services, &zh_adapter));
    uint32_t n = 99;
    ZK_OK(ZT.platform.get(zh_adapter, 1, &zh_platform, &n));
    ck_assert_uint_eq(n, 1);
    ZK_OK(ZT.device.get(zh_platform, SX_DEVICE_TYPE_ALL, 0, NULL, &n));
    ck_assert_uint_eq(n, 0);
    char status[256];
    status_of(zh_adapter, status, sizeof(status));
    ck_assert_msg(strstr(status, "1 driver, 0 devices") != NULL, "status '%s'", status);
    zh_teardown();
}
END_TEST

START_TEST(test_discovery)
{
    char buf[256];
    size_t n = 0;
    ZK_OK(ZT.adapter.get_info(zh_adapter, SXA_ADAPTER_INFO_NAME, sizeof(buf), buf, &n));
    ck_assert_str_eq(buf, "level_zero");
    ck_assert_uint_eq(n, strlen("level_zero") + 1);
    sx_backend b = 0;
    ZK_OK(ZT.adapter.get_info(zh_adapter, SXA_ADAPTER_INFO_BACKEND, sizeof(b), &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_LEVEL_ZERO);
    status_of(zh_adapter, buf, sizeof(buf));
    ck_assert_msg(strstr(buf, "1 driver, 1 device"), "status '%s'", buf);
    ZK_ERR(ZT.adapter.get_info(zh_adapter, 999, sizeof(buf), buf, NULL), SX_ERROR_INVALID_ENUMERATION);

    ZK_OK(ZT.platform.get_info(zh_platform, SX_PLATFORM_INFO_NAME, sizeof(buf), buf, NULL));
    ck_assert_str_eq(buf, "Level Zero driver 0");
    ZK_OK(ZT.platform.get_info(zh_platform, SX_PLATFORM_INFO_VERSION, sizeof(buf), buf, NULL));
    ck_assert_str_eq(buf, "Level Zero 1.4");
    ZK_OK(ZT.platform.get_info(zh_platform, SX_PLATFORM_INFO_VENDOR, sizeof(buf), buf, NULL));
    ck_assert_str_eq(buf, "Intel(R) Corporation");
    ZK_OK(ZT.platform.get_info(zh_platform, SX_PLATFORM_INFO_BACKEND, sizeof(b), &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_LEVEL_ZERO);

    uint32_t count = 0;
    ZK_OK(ZT.device.get(zh_platform, SX_DEVICE_TYPE_GPU, 0, NULL, &count));
    ck_assert_uint_eq(count, 1);
    ZK_OK(ZT.device.get(zh_platform, SX_DEVICE_TYPE_CPU, 0, NULL, &count));
    ck_assert_uint_eq(count, 0);
    ZK_ERR(ZT.device.get(zh_platform, SX_DEVICE_TYPE_ALL, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    /* What went through the real loader into the TEST DRIVER. */
    ZK_LOG_HAS("zeInit");
    ZK_LOG_HAS("zeDriverGet");
    ZK_LOG_HAS("zeDeviceGet");
    ZK_LOG_HAS("zeDeviceGetModuleProperties");
    ZK_LOG_HAS("zeContextCreate");
    ZK_LOG_HAS("zeCommandListCreateImmediate");
}
END_TEST

START_TEST(test_device_info)
{
    sx_device_type t = 0;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_TYPE, sizeof(t), &t, NULL));
    ck_assert_uint_eq(t, SX_DEVICE_TYPE_GPU);
    size_t n = 0;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_NAME, 0, NULL, &n));
    char name[256];
    ck_assert(n > 1 && n < sizeof(name));
    ZK_ERR(ZT.device.get_info(zh_device, SX_DEVICE_INFO_NAME, n - 1, name, NULL), SX_ERROR_INVALID_SIZE);
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_NAME, n, name, NULL));
    ck_assert_msg(strstr(name, "TEST DRIVER") != NULL, "name '%s'", name);
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_VENDOR, sizeof(name), name, NULL));
    ck_assert_str_eq(name, "Intel(R) Corporation");
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_DRIVER_VERSION, sizeof(name), name, NULL));
    ck_assert_str_eq(name, "1.0.2");
    size_t wg = 0, sizes[3] = {0};
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    ck_assert_uint_eq(wg, 256);
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES, sizeof(sizes), sizes, NULL));
    ck_assert(sizes[0] == 256 && sizes[1] == 256 && sizes[2] == 64);
    uint64_t mem = 0;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(mem), &mem, NULL));
    ck_assert_uint_eq(mem, 65536);
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof(mem), &mem, NULL));
    ck_assert_uint_eq(mem, 1ull << 32);
    uint32_t cu = 0;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL));
    ck_assert_uint_eq(cu, 16);
    sx_aspect_set as = 0;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_ASPECTS, sizeof(as), &as, NULL));
    const sx_aspect want[] = {SX_ASPECT_GPU, SX_ASPECT_FP16, SX_ASPECT_FP64, SX_ASPECT_ATOMIC64,
                              SX_ASPECT_INT64_BASE_ATOMICS, SX_ASPECT_ONLINE_COMPILER,
                              SX_ASPECT_ONLINE_LINKER, SX_ASPECT_QUEUE_PROFILING,
                              SX_ASPECT_USM_DEVICE_ALLOCATIONS, SX_ASPECT_USM_HOST_ALLOCATIONS,
                              SX_ASPECT_USM_SHARED_ALLOCATIONS};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        ck_assert_msg(as & SX_ASPECT_BIT(want[i]), "aspect %u missing", want[i]);
    ck_assert(!(as & SX_ASPECT_BIT(SX_ASPECT_CPU)));
    ck_assert(!(as & SX_ASPECT_BIT(SX_ASPECT_USM_SYSTEM_ALLOCATIONS)));
    sx_image_kind kinds[4];
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_IMAGE_KINDS, sizeof(kinds), kinds, &n));
    ck_assert_uint_eq(n, 2 * sizeof(sx_image_kind));
    ck_assert(kinds[0] == SX_IMAGE_KIND_SPIRV && kinds[1] == SX_IMAGE_KIND_NATIVE);
    sxa_platform p = NULL;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_PLATFORM, sizeof(p), &p, NULL));
    ck_assert_ptr_eq(p, zh_platform);
    uint32_t nonuniform = 9;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS, sizeof(nonuniform),
                             &nonuniform, NULL));
    ck_assert_uint_eq(nonuniform, 0);
    ZK_ERR(ZT.device.get_info(zh_device, 777, sizeof(name), name, NULL), SX_ERROR_INVALID_ENUMERATION);
    ZK_ERR(ZT.device.get_info(zh_device, SX_DEVICE_INFO_NAME, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
}
END_TEST

static sx_aspect_set aspects_with_flags(const char *flags)
{
    zh_use_test_driver();
    setenv("ZE_TEST_DRIVER_MODULE_FLAGS", flags, 1);
    zh_load_tables();
    ZK_OK(ZT.adapter.init(&zh_services, &zh_adapter));
    uint32_t n = 0;
    ZK_OK(ZT.platform.get(zh_adapter, 1, &zh_platform, &n));
    ZK_OK(ZT.device.get(zh_platform, SX_DEVICE_TYPE_ALL, 1, &zh_device, &n));
    sx_aspect_set as = 0;
    ZK_OK(ZT.device.get_info(zh_device, SX_DEVICE_INFO_ASPECTS, sizeof(as), &as, NULL));
    zh_teardown();
    return as;
}

START_TEST(test_aspects_from_module_flags)
{
    /* fp16/fp64/atomic64 follow zeDeviceGetModuleProperties' flags. */
    sx_aspect_set none = aspects_with_flags("0");
    ck_assert(!(none & SX_ASPECT_BIT(SX_ASPECT_FP16)));
    ck_assert(!(none & SX_ASPECT_BIT(SX_ASPECT_FP64)));
    ck_assert(!(none & SX_ASPECT_BIT(SX_ASPECT_ATOMIC64)));
    sx_aspect_set fp64 = aspects_with_flags("2");  /* ZE_DEVICE_MODULE_FLAG_FP64 */
    ck_assert(fp64 & SX_ASPECT_BIT(SX_ASPECT_FP64));
    ck_assert(!(fp64 & SX_ASPECT_BIT(SX_ASPECT_FP16)));
    sx_aspect_set at = aspects_with_flags("4");  /* INT64_ATOMICS */
    ck_assert(at & SX_ASPECT_BIT(SX_ASPECT_ATOMIC64));
    ck_assert(!(at & SX_ASPECT_BIT(SX_ASPECT_FP64)));
}
END_TEST

START_TEST(test_dispatch_first)
{
    const void *want = zh_services.dispatch;
    ck_assert_ptr_eq(((sxa_object *)zh_adapter)->dispatch, want);
    ck_assert_ptr_eq(((sxa_object *)zh_platform)->dispatch, want);
    ck_assert_ptr_eq(((sxa_object *)zh_device)->dispatch, want);
    ck_assert_ptr_eq(((sxa_object *)zh_context)->dispatch, want);
    ck_assert_ptr_eq(((sxa_object *)zh_queue)->dispatch, want);
    sxa_event ev = NULL;
    ZK_OK(ZT.enqueue.barrier(zh_queue, 0, NULL, &ev));
    ck_assert_ptr_eq(((sxa_object *)ev)->dispatch, want);
    ZK_OK(ZT.event.release(ev));
}
END_TEST

START_TEST(test_usm_round_trip)
{
    const sx_usm_type types[] = {SX_USM_TYPE_DEVICE, SX_USM_TYPE_HOST, SX_USM_TYPE_SHARED};
    for (int t = 0; t < 3; t++) {
        int *p = NULL;
        int src[64], dst[64];
        for (int i = 0; i < 64; i++)
            src[i] = i * 7 + t;
        memset(dst, 0, sizeof(dst));
        ZK_OK(ZT.usm.alloc(zh_context, types[t] == SX_USM_TYPE_HOST ? NULL : zh_device, types[t],
                           sizeof(src), 64, (void **)&p));
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 64, 0);
        ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 1, p, src, sizeof(src), 0, NULL, NULL));
        ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 1, dst, p, sizeof(dst), 0, NULL, NULL));
        ck_assert_mem_eq(dst, src, sizeof(src));
        ZK_OK(ZT.usm.free(zh_context, p));
    }
    ZK_LOG_HAS("zeMemAllocDevice size=256 align=64");
    ZK_LOG_HAS("zeMemAllocHost size=256");
    ZK_LOG_HAS("zeMemAllocShared size=256");
    ZK_LOG_HAS("zeCommandListAppendMemoryCopy size=256");
    ck_assert_int_eq(zh_log_count("zeMemFree ptr"), 3);
    /* In-order: consecutive commands are separated by a barrier. */
    ZK_LOG_HAS("zeCommandListAppendBarrier wait=0 signal=no");
}
END_TEST

START_TEST(test_fill)
{
    uint8_t *p = NULL;
    ZK_OK(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, 256, 0, (void **)&p));
    uint8_t out[256];
    const size_t psizes[] = {1, 2, 4, 16, 128};
    for (size_t k = 0; k < 5; k++) {
        uint8_t pat[128];
        for (size_t i = 0; i < psizes[k]; i++)
            pat[i] = (uint8_t)(0x10 * k + i + 1);
        ZK_OK(ZT.enqueue.usm_fill(zh_queue, p, psizes[k], pat, 256, 0, NULL, NULL));
        ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 1, out, p, 256, 0, NULL, NULL));
        for (size_t i = 0; i < 256; i++)
            ck_assert_msg(out[i] == pat[i % psizes[k]], "pattern %zu byte %zu: %u", psizes[k], i, out[i]);
    }
    uint8_t pat[4] = {0};
    ZK_ERR(ZT.enqueue.usm_fill(zh_queue, p, 3, pat, 12, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    ZK_MSG_HAS("3 bytes");
    ZK_ERR(ZT.enqueue.usm_fill(zh_queue, p, 256, pat, 256, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    ZK_ERR(ZT.enqueue.usm_fill(zh_queue, p, 4, pat, 10, 0, NULL, NULL), SX_ERROR_INVALID_SIZE);
    ZK_ERR(ZT.enqueue.usm_fill(zh_queue, p, 4, NULL, 8, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    ZK_LOG_HAS("zeCommandListAppendMemoryFill pattern=16 size=256");
    ZK_OK(ZT.usm.free(zh_context, p));
}
END_TEST

START_TEST(test_events)
{
    int *p = NULL, src[16] = {1, 2, 3}, dst[16] = {0};
    ZK_OK(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, sizeof(src), 0, (void **)&p));
    sxa_event e1 = NULL, e2 = NULL, e3 = NULL;
    ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 0, p, src, sizeof(src), 0, NULL, &e1));
    ck_assert_ptr_nonnull(e1);
    ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 0, dst, p, sizeof(dst), 1, &e1, &e2));
    ZK_OK(ZT.event.wait(1, &e2));
    ck_assert_mem_eq(dst, src, sizeof(src));
    sx_event_status st = SX_EVENT_STATUS_QUEUED;
    ZK_OK(ZT.event.get_status(e2, &st));
    ck_assert_int_eq(st, SX_EVENT_STATUS_COMPLETE);
    sxa_event both[2] = {e1, e2};
    ZK_OK(ZT.enqueue.barrier(zh_queue, 2, both, &e3));
    ZK_OK(ZT.event.wait(3, (sxa_event[]){e1, e2, e3}));
    ZK_LOG_HAS("zeCommandListAppendMemoryCopy size=64 wait=1 signal=yes");
    ZK_LOG_HAS("zeCommandListAppendBarrier wait=2 signal=yes");
    ZK_LOG_HAS("zeEventPoolCreate count=128 flags=0x1");
    /* Not a profiling queue: no timestamps. */
    uint64_t v;
    ZK_ERR(ZT.event.get_profiling(e1, SXA_PROFILING_START, &v), SX_ERROR_INVALID_OPERATION);
    ZK_MSG_HAS("without profiling");
    ZK_ERR(ZT.enqueue.barrier(zh_queue, 1, NULL, NULL), SX_ERROR_INVALID_EVENT_WAIT_LIST);
    ZK_ERR(ZT.event.get_status(e1, NULL), SX_ERROR_INVALID_NULL_POINTER);
    ZK_OK(ZT.event.release(e1));
    ZK_OK(ZT.event.release(e2));
    ZK_OK(ZT.event.release(e3));
    ZK_OK(ZT.usm.free(zh_context, p));
}
END_TEST

START_TEST(test_many_events_and_profiling)
{
    sxa_queue pq;
    ZK_OK(ZT.queue.create(zh_context, zh_device, SXA_QUEUE_PROFILING | SXA_QUEUE_OUT_OF_ORDER, &pq));
    /* More events than one pool holds: a second pool appears. */
    enum { N = 300 };
    sxa_event *ev = calloc(N, sizeof(*ev));
    char a[8] = "abcdefg", b[8];
    for (int i = 0; i < N; i++)
        ZK_OK(ZT.enqueue.usm_memcpy(pq, 0, b, a, sizeof(a), 0, NULL, &ev[i]));
    ZK_OK(ZT.event.wait(N, ev));
    uint64_t start = 0, end = 0, queued = 0;
    ZK_OK(ZT.event.get_profiling(ev[N - 1], SXA_PROFILING_START, &start));
    ZK_OK(ZT.event.get_profiling(ev[N - 1], SXA_PROFILING_END, &end));
    ZK_OK(ZT.event.get_profiling(ev[N - 1], SXA_PROFILING_QUEUED, &queued));
    ck_assert(start > 0 && start <= end && queued == start);
    ZK_ERR(ZT.event.get_profiling(ev[0], 99, &start), SX_ERROR_INVALID_ENUMERATION);
    ck_assert_int_ge(zh_log_count("zeEventPoolCreate count=128 flags=0x5"), 3);
    /* An out-of-order queue adds no barriers of its own. */
    ck_assert_int_eq(zh_log_count("zeCommandListAppendBarrier wait=0 signal=no"), 0);
    /* Releasing the context with events alive is refused. */
    ZK_ERR(ZT.context.release(zh_context), SX_ERROR_HANDLE_IN_USE);
    for (int i = 0; i < N; i++)
        ZK_OK(ZT.event.release(ev[i]));
    free(ev);
    ZK_OK(ZT.queue.finish(pq));
    ZK_OK(ZT.queue.flush(pq));
    ZK_OK(ZT.queue.release(pq));
}
END_TEST

START_TEST(test_usm_errors)
{
    void *p = (void *)1;
    ZK_ERR(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, 0, 0, &p), SX_ERROR_INVALID_SIZE);
    ck_assert_ptr_null(p);
    ZK_ERR(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, 64, 3, &p), SX_ERROR_INVALID_VALUE);
    ZK_ERR(ZT.usm.alloc(zh_context, NULL, SX_USM_TYPE_DEVICE, 64, 0, &p), SX_ERROR_INVALID_NULL_HANDLE);
    ZK_ERR(ZT.usm.alloc(zh_context, zh_device, 42, 64, 0, &p), SX_ERROR_INVALID_ENUMERATION);
    ZK_ERR(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, 64, 0, NULL), SX_ERROR_INVALID_NULL_POINTER);
    /* The driver's refusal comes back with its name and number. */
    setenv("ZE_TEST_DRIVER_FAIL", "zeMemAllocDevice", 1);
    ZK_ERR(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, 4096, 0, &p),
           SX_ERROR_OUT_OF_DEVICE_MEMORY);
    ZK_MSG_HAS("zeMemAllocDevice: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY (0x70000003) for 4096 bytes");
    ck_assert_ptr_null(p);
    setenv("ZE_TEST_DRIVER_FAIL", "zeMemAllocHost", 1);
    ZK_ERR(ZT.usm.alloc(zh_context, NULL, SX_USM_TYPE_HOST, 64, 0, &p), SX_ERROR_OUT_OF_HOST_MEMORY);
    ZK_MSG_HAS("zeMemAllocHost: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY");
    unsetenv("ZE_TEST_DRIVER_FAIL");
    int local;
    ZK_ERR(ZT.usm.free(zh_context, &local), SX_ERROR_INVALID_VALUE);
    ZK_MSG_HAS("zeMemFree: ZE_RESULT_ERROR_INVALID_ARGUMENT");
    ZK_OK(ZT.usm.free(zh_context, NULL));
    /* Overlapping copies are refused before reaching the driver. */
    char buf[32];
    ZK_ERR(ZT.enqueue.usm_memcpy(zh_queue, 1, buf + 4, buf, 16, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    ZK_ERR(ZT.enqueue.usm_memcpy(zh_queue, 1, NULL, buf, 16, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
}
END_TEST

START_TEST(test_command_faults)
{
    char a[16] = "x", b[16];
    setenv("ZE_TEST_DRIVER_FAIL", "zeCommandListAppendMemoryCopy", 1);
    sxa_event ev = (sxa_event)1;
    ZK_ERR(ZT.enqueue.usm_memcpy(zh_queue, 1, b, a, sizeof(a), 0, NULL, &ev), SX_ERROR_DEVICE_LOST);
    ZK_MSG_HAS("zeCommandListAppendMemoryCopy: ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)");
    ck_assert_ptr_null(ev);
    setenv("ZE_TEST_DRIVER_FAIL", "zeEventHostSynchronize", 1);
    ZK_ERR(ZT.enqueue.usm_memcpy(zh_queue, 1, b, a, sizeof(a), 0, NULL, NULL), SX_ERROR_DEVICE_LOST);
    ZK_MSG_HAS("zeEventHostSynchronize");
    ZK_ERR(ZT.queue.finish(zh_queue), SX_ERROR_DEVICE_LOST);
    setenv("ZE_TEST_DRIVER_FAIL", "zeCommandListCreateImmediate", 1);
    sxa_queue q2;
    ZK_ERR(ZT.queue.create(zh_context, zh_device, 0, &q2), SX_ERROR_OUT_OF_HOST_MEMORY);
    ZK_MSG_HAS("zeCommandListCreateImmediate: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY");
    unsetenv("ZE_TEST_DRIVER_FAIL");
    /* A fresh context has no event pool yet. */
    sxa_context c3;
    sxa_queue q3;
    ZK_OK(ZT.context.create(1, &zh_device, &c3));
    ZK_OK(ZT.queue.create(c3, zh_device, 0, &q3));
    setenv("ZE_TEST_DRIVER_FAIL", "zeEventPoolCreate", 1);
    ZK_ERR(ZT.enqueue.barrier(q3, 0, NULL, &ev), SX_ERROR_OUT_OF_HOST_MEMORY);
    ZK_MSG_HAS("zeEventPoolCreate: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY");
    ZK_ERR(ZT.queue.finish(q3), SX_ERROR_OUT_OF_HOST_MEMORY);
    unsetenv("ZE_TEST_DRIVER_FAIL");
    ZK_OK(ZT.queue.finish(q3));
    ZK_OK(ZT.queue.release(q3));
    ZK_OK(ZT.context.release(c3));
    setenv("ZE_TEST_DRIVER_FAIL", "zeContextCreate", 1);
    sxa_context c2;
    ZK_ERR(ZT.context.create(1, &zh_device, &c2), SX_ERROR_OUT_OF_HOST_MEMORY);
    ZK_MSG_HAS("zeContextCreate");
    unsetenv("ZE_TEST_DRIVER_FAIL");
}
END_TEST

START_TEST(test_bad_input)
{
    sxa_context c;
    sxa_queue q;
    ZK_ERR(ZT.context.create(0, &zh_device, &c), SX_ERROR_INVALID_SIZE);
    ZK_ERR(ZT.context.create(1, NULL, &c), SX_ERROR_INVALID_NULL_POINTER);
    ZK_ERR(ZT.queue.create(zh_context, zh_device, 0x100, &q), SX_ERROR_INVALID_VALUE);
    ZK_ERR(ZT.queue.create(NULL, zh_device, 0, &q), SX_ERROR_INVALID_NULL_HANDLE);
    ZK_ERR(ZT.queue.finish(NULL), SX_ERROR_INVALID_NULL_HANDLE);
    ZK_ERR(ZT.platform.get(zh_adapter, 0, &zh_platform, NULL), SX_ERROR_INVALID_SIZE);
    ZK_ERR(ZT.event.wait(1, NULL), SX_ERROR_INVALID_NULL_POINTER);
    /* One adapter instance per process. */
    sxa_adapter again;
    ZK_ERR(ZT.adapter.init(&zh_services, &again), SX_ERROR_INVALID_OPERATION);
    sxa_services old = zh_services;
    old.abi_version = SXA_MAKE_VERSION(9, 0);
    ZK_ERR(ZT.adapter.init(&old, &again), SX_ERROR_UNSUPPORTED_VERSION);
}
END_TEST

START_TEST(test_reinit)
{
    /* fini closes the loader; a second init opens it again. */
    for (int round = 0; round < 3; round++) {
        zh_setup();
        int *p;
        ZK_OK(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_SHARED, 8, 0, (void **)&p));
        ZK_OK(ZT.usm.free(zh_context, p));
        zh_teardown();
    }
}
END_TEST

typedef struct copier {
    int id;
    int ok;
} copier;

static void *copy_thread(void *arg)
{
    copier *c = arg;
    int *p = NULL, src[32], dst[32];
    c->ok = ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, sizeof(src), 0, (void **)&p) == SX_SUCCESS;
    for (int it = 0; c->ok && it < 50; it++) {
        for (int i = 0; i < 32; i++)
            src[i] = c->id * 1000 + it * 32 + i;
        c->ok = ZT.enqueue.usm_memcpy(zh_queue, 1, p, src, sizeof(src), 0, NULL, NULL) == SX_SUCCESS &&
                ZT.enqueue.usm_memcpy(zh_queue, 1, dst, p, sizeof(dst), 0, NULL, NULL) == SX_SUCCESS &&
                memcmp(src, dst, sizeof(src)) == 0;
    }
    if (p)
        ZT.usm.free(zh_context, p);
    return NULL;
}

START_TEST(test_threads_share_a_queue)
{
    pthread_t th[8];
    copier c[8];
    for (int i = 0; i < 8; i++) {
        c[i] = (copier){.id = i};
        pthread_create(&th[i], NULL, copy_thread, &c[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(c[i].ok, "thread %d: %s", i, zh_last_error());
    }
}
END_TEST

static Suite *ze_adapter_suite(void)
{
    Suite *s = suite_create("level_zero adapter");
    TCase *bare = tcase_create("discovery");
    tcase_add_test(bare, test_proc_table_handshake);
    tcase_add_test(bare, test_driver_exports_every_getter);
    tcase_add_test(bare, test_zero_drivers);
    tcase_add_test(bare, test_no_loader);
    tcase_add_test(bare, test_driver_init_fails);
    tcase_add_test(bare, test_device_query_fails);
    tcase_add_test(bare, test_aspects_from_module_flags);
    tcase_add_test(bare, test_reinit);
    suite_add_tcase(s, bare);
    TCase *tc = tcase_create("objects");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_discovery);
    tcase_add_test(tc, test_device_info);
    tcase_add_test(tc, test_dispatch_first);
    tcase_add_test(tc, test_usm_round_trip);
    tcase_add_test(tc, test_fill);
    tcase_add_test(tc, test_events);
    tcase_add_test(tc, test_many_events_and_profiling);
    tcase_add_test(tc, test_usm_errors);
    tcase_add_test(tc, test_command_faults);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_threads_share_a_queue);
    suite_add_tcase(s, tc);
    return s;
}

ZH_MAIN(ze_adapter_suite)
