/* jv_check.h: the counting check macros the C unit tests share. Include once
 * per test program; report with
 *   printf("%d checks passed, %d failed\n", passed, failed); return failed != 0;
 * CHECK(x) counts x; CHECK_MSG(x, fmt, ...) also prints the message when x fails. */
#ifndef JV_CHECK_H
#define JV_CHECK_H

#include <stdio.h>

static int passed, failed;

static __attribute__((unused)) void check_at(int ok, const char *what, const char *file, int line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
    }
}
#define CHECK(x) check_at(!!(x), #x, __FILE__, __LINE__)
#define CHECK_MSG(x, ...)                                                                                              \
    do {                                                                                                               \
        int ok_ = !!(x);                                                                                               \
        if (!ok_) {                                                                                                    \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                                            \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
        check_at(ok_, #x, __FILE__, __LINE__);                                                                         \
    } while (0)

#endif
