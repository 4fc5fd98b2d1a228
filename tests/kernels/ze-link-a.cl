/* ze-link-a.cl: a kernel importing ze_helper, which ze-link-b.cl exports. */
extern int ze_helper(int x);

kernel void ze_use_helper(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = ze_helper((int)i);
}
