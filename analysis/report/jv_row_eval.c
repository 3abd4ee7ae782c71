/* jv_row_eval: the markdown helpers shared by the category findings and the
 * standalone reports. */
#include "jv_row_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *jv_md_kernel_short(const char *name, char *buf, size_t cap) {
    if (!strncmp(name, "void ", 5)) name += 5;
    size_t n = strcspn(name, "<(");
    if (n >= cap - 8) n = cap - 8;
    memcpy(buf, name, n);
    buf[n] = 0;
    if (name[n] == '<') strcat(buf, "<…>");
    return buf;
}

const char *jv_md_time(char *buf, size_t cap, double us) {
    if (isnan(us))
        snprintf(buf, cap, "n/a");
    else if (fabs(us) >= 1000)
        snprintf(buf, cap, "%.2f ms", us / 1e3);
    else
        snprintf(buf, cap, "%.1f µs", us);
    return buf;
}
