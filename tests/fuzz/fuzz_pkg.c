/* fuzz_pkg: libFuzzer target for the replay package reader (ir/jv_package.c).
 * Each input is the bytes of a file given to jarvis-replay: it is written to
 * one private temporary file (the reader takes a path, as jarvis-replay does)
 * and loaded with jv_package_load (zip or bare IR detection, replay_ir.json and
 * manifest.json), then read member by member with a small limit.
 *
 * Invariants checked beyond "no crash, no sanitizer report, no leak":
 *   - a failed read leaves its outputs NULL and sets an error naming the file;
 *   - a successful read returns a NUL-terminated buffer of the length it says,
 *     never longer than the limit asked for. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_package.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "fuzz_file.h"

static void read_member(const char *path, const char *member, size_t max) {
    char *buf = (char *)1;
    size_t len = 7;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_package_read(path, member, max, &buf, &len, &err);
    if (st != JV_OK) {
        fail_if(buf != NULL, "a failed read left a buffer", err.msg);
        fail_if(st != JV_ERR_NOMEM && !strstr(err.msg, path), "an error message without the file", err.msg);
        return;
    }
    fail_if(!buf || len > max || buf[len] != 0, "a member read over its limit or not NUL-terminated", err.msg);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = input_file("fuzz_pkg");
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();

    char *ir = (char *)1, *manifest = (char *)1;
    size_t len = 7;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_package_load(path, &ir, &len, &manifest, &err);
    if (st != JV_OK) {
        fail_if(ir != NULL || manifest != NULL, "a failed load left a buffer", err.msg);
        fail_if(st != JV_ERR_NOMEM && !strstr(err.msg, path), "an error message without the file", err.msg);
    } else {
        fail_if(!ir || ir[len] != 0, "the IR is not NUL-terminated", err.msg);
        free(ir);
        free(manifest);
    }
    /* member by member, with a limit small enough to be crossed */
    read_member(path, "replay_ir.json", 64);
    read_member(path, "manifest.json", 1 << 16);
    read_member(path, "README.md", 0);
    return 0;
}
