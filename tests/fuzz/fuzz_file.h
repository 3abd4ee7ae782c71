/* fuzz_file.h: what the fuzz targets that read a file by name share: one
 * private temporary file per fuzzing process (mkstemp under /tmp, removed at
 * exit) that each input is written to. Include once per target. */
#ifndef JV_FUZZ_FILE_H
#define JV_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* the file's name; the process's one mutable state (libFuzzer calls the target in one thread) */
static char g_path[64];

static void remove_file(void) {
    if (g_path[0]) unlink(g_path);
}

/* The private file's name, made on the first call ("/tmp/<prefix>-XXXXXX"); aborts when it cannot be made. */
static const char *input_file(const char *prefix) {
    if (!g_path[0]) {
        snprintf(g_path, sizeof g_path, "/tmp/%.32s-XXXXXX", prefix);
        int fd = mkstemp(g_path);
        if (fd < 0) abort();
        close(fd);
        atexit(remove_file);
    }
    return g_path;
}

/* Aborts (a finding) with what and msg on stderr when bad. */
static void fail_if(int bad, const char *what, const char *msg) {
    if (!bad) return;
    fprintf(stderr, "%s (%s)\n", what, msg ? msg : "");
    abort();
}

#endif
