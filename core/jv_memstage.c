/* jv_memstage: VmRSS / VmHWM and CPU time at stage boundaries (see jv_memstage.h). */
#include "jv_memstage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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
    fprintf(stderr, "jv-mem: %-24s rss %6.1f hwm %6.1f MiB cpu %7.3f s\n", stage, rss / 1024.0, hwm / 1024.0, cpu);
    FILE *c = fopen("/proc/self/clear_refs", "w"); /* "5": reset the peak RSS to the current RSS */
    if (c) {
        fputs("5", c);
        fclose(c);
    }
}
