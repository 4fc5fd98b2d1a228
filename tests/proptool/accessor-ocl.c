/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* accessor-ocl.c: proptool's output on a real OpenCL implementation
 * (Oclgrind: it shares program variables across kernels, as accessors
 * need). The SPIR bitcode variant (--spir-bc) of kernels.cl with
 * --device-global-accessors, driven as adapters/opencl/globals.c drives
 * them (op 0 size, 1 read, 2 write, 3 bind): write dg_scope through its
 * accessor, see __sycl_kernel_once read it (and see if_device:
 * only_on_host's store gone, only_on_device's kept), read it back; write
 * and read back the pointer slot of dg_usm; both sizes; bind dg_usm to
 * two buffers in turn (op 3: the slot holds each one's own, distinct,
 * non-NULL address) while op 3 leaves device_image_scope dg_scope alone.
 * accessor-ocl IMAGE.bc SCOPE_ACCESSOR USM_ACCESSOR */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                         \
    do {                                                                                              \
        cl_int e_ = (x);                                                                              \
        if (e_) {                                                                                     \
            fprintf(stderr, "accessor-ocl: %s: error %d\n", #x, e_);                                  \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

static cl_command_queue q;

enum { OP_SIZE = 0, OP_READ = 1, OP_WRITE = 2, OP_BIND = 3 };

static int access(cl_kernel k, cl_mem buf, cl_ulong off, cl_ulong cnt, cl_uint op)
{
    size_t one = 1;
    CK(clSetKernelArg(k, 0, sizeof buf, &buf));
    CK(clSetKernelArg(k, 1, sizeof off, &off));
    CK(clSetKernelArg(k, 2, sizeof cnt, &cnt));
    CK(clSetKernelArg(k, 3, sizeof op, &op));
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    FILE *f = fopen(argv[1], "rb");
    static unsigned char bin[1 << 20];
    size_t n = f ? fread(bin, 1, sizeof bin, f) : 0;
    if (f)
        fclose(f);
    if (!n)
        return 2;
    cl_platform_id p;
    cl_device_id d;
    cl_int e, st;
    CK(clGetPlatformIDs(1, &p, NULL));
    CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    CK(e);
    q = clCreateCommandQueue(c, d, 0, &e);
    CK(e);
    const unsigned char *bp = bin;
    cl_program pr = clCreateProgramWithBinary(c, 1, &d, &n, &bp, &st, &e);
    CK(e);
    if ((e = clBuildProgram(pr, 1, &d, "-x spir", NULL, NULL))) {
        char log[8192] = "";
        clGetProgramBuildInfo(pr, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "accessor-ocl: build failed (%d): %s\n", e, log);
        return 1;
    }
    cl_kernel ks = clCreateKernel(pr, argv[2], &e);
    CK(e);
    cl_kernel ku = clCreateKernel(pr, argv[3], &e);
    CK(e);
    cl_kernel ko = clCreateKernel(pr, "__sycl_kernel_once", &e);
    CK(e);
    cl_mem buf = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &e);
    CK(e);
    cl_mem out = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &e);
    CK(e);
    int zero[16] = {0}, val = 100;
    CK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 4, &val, 0, NULL, NULL));
    CK(clEnqueueWriteBuffer(q, out, CL_TRUE, 0, 64, zero, 0, NULL, NULL));
    if (access(ks, buf, 0, 4, OP_WRITE))
        return 1;
    size_t one = 1;
    CK(clSetKernelArg(ko, 0, sizeof out, &out));
    CK(clEnqueueNDRangeKernel(q, ko, 1, NULL, &one, &one, 0, NULL, NULL));
    int res[16];
    CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 64, res, 0, NULL, NULL));
    CK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 64, zero, 0, NULL, NULL));
    if (access(ks, buf, 0, 4, OP_READ))
        return 1;
    int back = 0;
    CK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 4, &back, 0, NULL, NULL));
    /* The USM form: the variable is the pointer slot. */
    unsigned long long slot = 0x1122334455667788ull, slot_back = 0;
    CK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 8, &slot, 0, NULL, NULL));
    if (access(ku, buf, 0, 8, OP_WRITE))
        return 1;
    CK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 64, zero, 0, NULL, NULL));
    if (access(ku, buf, 0, 8, OP_READ))
        return 1;
    CK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 8, &slot_back, 0, NULL, NULL));
    /* op 0: the variables' sizes (int, and the pointer slot). */
    unsigned long long size_s = 0, size_u = 0;
    if (access(ks, buf, 0, 0, OP_SIZE))
        return 1;
    CK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 8, &size_s, 0, NULL, NULL));
    if (access(ku, buf, 0, 0, OP_SIZE))
        return 1;
    CK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 8, &size_u, 0, NULL, NULL));
    /* op 3: bind dg_usm to `out`, then to `buf`; read the slot after each. */
    unsigned long long bound_out = 0, bound_buf = 0;
    if (access(ku, out, 0, 0, OP_BIND) || access(ku, buf, 0, 8, OP_READ))
        return 1;
    CK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 8, &bound_out, 0, NULL, NULL));
    if (access(ku, buf, 0, 0, OP_BIND) || access(ku, out, 0, 8, OP_READ))
        return 1;
    CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 8, &bound_buf, 0, NULL, NULL));
    /* op 3 on the image-scope variable: nothing (dg_scope stays 100) */
    int scope_after = 0;
    if (access(ks, buf, 0, 0, OP_BIND) || access(ks, out, 0, 4, OP_READ))
        return 1;
    CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &scope_after, 0, NULL, NULL));
    int bad = 0;
    if (!bound_out || !bound_buf || bound_out == bound_buf || bound_out == slot || bound_buf == slot) {
        fprintf(stderr, "accessor-ocl: op 3 bound dg_usm to %#llx and %#llx (want two distinct addresses)\n",
                bound_out, bound_buf);
        bad++;
    }
    if (scope_after != 100) {
        fprintf(stderr, "accessor-ocl: op 3 on dg_scope changed it to %d\n", scope_after);
        bad++;
    }
    if (res[0] != 0 || res[1] != 2000) {
        fprintf(stderr, "accessor-ocl: if_device: out[0]=%d (want 0), out[1]=%d (want 2000)\n", res[0], res[1]);
        bad++;
    }
    if (res[2] != 3 * 7 + 100) {
        fprintf(stderr, "accessor-ocl: kernel saw dg_scope as %d (want 100)\n", res[2] - 21);
        bad++;
    }
    if (back != 100) {
        fprintf(stderr, "accessor-ocl: dg_scope read back %d (want 100)\n", back);
        bad++;
    }
    if (size_s != 4 || size_u != 8) {
        fprintf(stderr, "accessor-ocl: sizes %llu and %llu (want 4 and 8)\n", size_s, size_u);
        bad++;
    }
    if (slot_back != slot) {
        fprintf(stderr, "accessor-ocl: dg_usm slot read back %#llx\n", slot_back);
        bad++;
    }
    clReleaseMemObject(buf);
    clReleaseMemObject(out);
    clReleaseKernel(ks);
    clReleaseKernel(ku);
    clReleaseKernel(ko);
    clReleaseProgram(pr);
    clReleaseCommandQueue(q);
    clReleaseContext(c);
    printf("accessor-ocl: %s\n", bad ? "FAILED" : "OK");
    return bad ? 1 : 0;
}
