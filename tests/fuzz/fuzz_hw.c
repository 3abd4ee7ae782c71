/* fuzz_hw: libFuzzer target for the hardware file (jarvis-analyze --gpu-arch
 * FILE, hw/jv_hw.c). Each input is the bytes of such a file: it is written to
 * one private temporary file (jv_hw_resolve takes the argument as the user
 * gives it) and resolved; what resolves is then queried as the roofline does.
 *
 * Invariants checked beyond "no crash, no sanitizer report, no leak":
 *   - a failed resolve sets an error naming the file;
 *   - a resolved GPU has a name, a positive bandwidth, at least one roofline
 *     spec, spec counts within the table and NUL-terminated strings. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_hw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = input_file("fuzz_hw");
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();

    jv_hw hw;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_hw_resolve(path, &hw, &err);
    if (st != JV_OK) {
        fail_if(st != JV_ERR_NOMEM && !strstr(err.msg, path), "an error message without the file", err.msg);
        return 0;
    }
    fail_if(!memchr(hw.name, 0, sizeof hw.name) || !hw.name[0], "no name", hw.name);
    fail_if(!memchr(hw.vendor, 0, sizeof hw.vendor) || !memchr(hw.source, 0, sizeof hw.source), "unterminated",
            hw.name);
    fail_if(!(hw.mem_bw_gbps > 0), "no bandwidth", hw.name);
    fail_if(hw.nroof < 1 || hw.nroof > JV_HW_MAX_SPECS || hw.ndatasheet < 0 || hw.ndatasheet > JV_HW_MAX_SPECS,
            "spec counts", hw.name);
    double sum = 0;
    for (int i = 0; i < hw.nroof; i++) {
        fail_if(!memchr(hw.roof[i].key, 0, sizeof hw.roof[i].key), "unterminated spec key", hw.name);
        double p = jv_hw_peak(&hw, hw.roof[i].key);
        double d = jv_hw_datasheet_peak(&hw, hw.roof[i].key);
        sum += (isnan(p) ? 0 : 1) + (isnan(d) ? 0 : 1);
    }
    (void)jv_hw_peak(&hw, "matrix_bf16");
    (void)jv_hw_peak(&hw, "");
    (void)sum;
    return 0;
}
