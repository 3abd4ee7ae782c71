/* test_hip_vendor_stub: a libhipblaslt.so that has hipblasLtCreate and nothing else, put under a fake ROCm tree
 * (<build>/tests/unit/fake_rocm/lib) for test_hip_vendor: the loader must find it through $ROCM_PATH and refuse it,
 * naming the first function it lacks. */
int hipblasLtCreate(void **handle);

int hipblasLtCreate(void **handle) {
    *handle = 0;
    return 0;
}
