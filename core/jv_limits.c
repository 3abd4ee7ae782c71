/* jv_limits: size arguments and the memory budget (see jv_limits.h). */
#include "jv_limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int64_t jv_parse_size(const char *s) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0)) return -1;
    double m = 1;
    if (*end == 'K' || *end == 'k')
        m = 1024.0, end++;
    else if (*end == 'M' || *end == 'm')
        m = 1024.0 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        m = 1024.0 * 1024 * 1024, end++;
    if (*end == 'i') end++;
    if (*end == 'B') end++;
    if (*end || v * m > 9e18) return -1;
    return (int64_t)(v * m);
}

jv_status jv_memory_budget_set(int64_t bytes, jv_err *err) {
    if (bytes < 256ll << 20)
        JV_FAIL(err, JV_ERR_USAGE, "--max-memory %lld bytes: under 256 MiB, less than the program itself needs",
                (long long)bytes);
    struct rlimit cur;
    if (getrlimit(RLIMIT_AS, &cur)) JV_FAIL(err, JV_ERR_IO, "--max-memory: getrlimit: %s", strerror(errno));
    if (cur.rlim_max != RLIM_INFINITY && (rlim_t)bytes > cur.rlim_max)
        JV_FAIL(err, JV_ERR_USAGE, "--max-memory %lld bytes: above this process's hard limit of %llu bytes",
                (long long)bytes, (unsigned long long)cur.rlim_max);
    struct rlimit lim = {.rlim_cur = (rlim_t)bytes, .rlim_max = (rlim_t)bytes};
    if (setrlimit(RLIMIT_AS, &lim)) JV_FAIL(err, JV_ERR_IO, "--max-memory: setrlimit: %s", strerror(errno));
    return JV_OK;
}
