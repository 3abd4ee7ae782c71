/* smi_test: what test_rocm_smi and test_amd_smi share: the fake SMI library is built at <dir>/lib/<name>, so
 * pointing $ROCM_PATH at <dir> lets the loaders find it by their default names. */
#ifndef SMI_TEST_H
#define SMI_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets $ROCM_PATH to the folder above lib's "lib" folder; 0 (nothing set) when lib is not <dir>/lib/<file>. */
static int smi_test_set_rocm_path(const char *lib) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s", lib);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    slash = strrchr(dir, '/');
    if (!slash || strcmp(slash, "/lib")) return 0;
    *slash = 0;
    setenv("ROCM_PATH", dir, 1);
    return 1;
}

#endif
