/* jv_families: the registry's table, kernels/families.def in order (family i
 * has id i, JV_FAM_<NAME>). Alone in its object file on purpose: a test build
 * compiles this file again with JV_FAMILIES_EXTRA naming its own list
 * (tests/kernels/test_families.def) and links that object ahead of jv_kernels,
 * so its programs see the test families after the product's and jarvis-analyze
 * and jarvis-replay never contain them (tests/kernels/CMakeLists.txt). */
#include "jv_family.h"

#define JV_FAMILY(name, NAME) extern const jv_family jv_##name##_family;
#include "families.def"
#ifdef JV_FAMILIES_EXTRA
#include JV_FAMILIES_EXTRA
#endif
#undef JV_FAMILY

static const jv_family *const FAMILIES[] = {
#define JV_FAMILY(name, NAME) &jv_##name##_family,
#include "families.def"
#ifdef JV_FAMILIES_EXTRA
#include JV_FAMILIES_EXTRA
#endif
#undef JV_FAMILY
};

int jv_family_count(void) {
    return (int)(sizeof FAMILIES / sizeof FAMILIES[0]);
}

const jv_family *jv_family_get(int i) {
    return i >= 0 && i < jv_family_count() ? FAMILIES[i] : NULL;
}
