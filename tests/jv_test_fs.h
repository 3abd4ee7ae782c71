/* jv_test_fs: file-system helpers shared by the C tests. */
#ifndef JV_TEST_FS_H
#define JV_TEST_FS_H

#include <dirent.h>
#include <string.h>

/* The entries of folder d but . and .., or -1 when it cannot be read. */
static inline int jv_test_dir_count(const char *d) {
    DIR *dp = opendir(d);
    if (!dp) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(dp);
    return n;
}

#endif
