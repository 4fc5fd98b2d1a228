/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vf-base.cuh: the design document's Base for CUDA: foo in the default
// set, bar in a set that uses double, baz (static) from another library.
struct Base {
    int tag;
    __device__ virtual void key();      // defined with the kernels: the vtable lives there
    __device__ virtual int foo(int x);  // set "_ZTSv"
    __device__ virtual int bar(int x);  // set "_ZTS8set_fp64"
    __device__ static int baz(int x);
};
