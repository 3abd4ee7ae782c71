/* jv_memstage: VmRSS / VmHWM and CPU time at stage boundaries (see jv_memstage.h). */
#include "jv_memstage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* seconds since the process started (/proc/self/stat's start time, in clock ticks since boot); -1 if unknown */
static double since_start(void) {
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return -1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces: fields count from its end */
    unsigned long long start = 0;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &start) != 1) return -1;
    struct timespec ts;
    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - (double)start / (double)sysconf(_SC_CLK_TCK);
}

void jv_mem_stage(const char *stage) {
    if (!getenv("JV_DEBUG_MEM")) return;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    long rss = -1, hwm = -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmRSS:", 6)) rss = strtol(line + 6, NULL, 10);
        if (!strncmp(line, "VmHWM:", 6)) hwm = strtol(line + 6, NULL, 10);
    }
    fclose(f);
    struct rusage ru;
    double cpu = -1;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
              ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
    fprintf(stderr, "jv-mem: %-24s rss %6.1f hwm %6.1f MiB wall %6.2f cpu %7.3f s\n", stage, rss / 1024.0, hwm / 1024.0,
            since_start(), cpu);
    FILE *c = fopen("/proc/self/clear_refs", "w"); /* "5": reset the peak RSS to the current RSS */
    if (c) {
        fputs("5", c);
        fclose(c);
    }
}
