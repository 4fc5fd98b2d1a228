/* ze-link-b.cl: exports ze_helper for ze-link-a.cl. */
int ze_helper(int x)
{
    return x * 2;
}
