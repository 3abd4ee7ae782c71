/* test_amdgpu: backends/hip/jv_amdgpu on a fake sysfs tree made here (the
 * files the amdgpu driver writes, in its format: pp_dpm_sclk with a
 * deep-sleep level and the current level marked '*', pp_dpm_mclk, hwmon
 * power in microwatts, hwmon temperatures in millidegrees with their labels
 * "edge", "junction", "mem" as amdgpu writes them), and the last-level cache
 * by architecture. Runs
 * anywhere: no ROCm, no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jv_amdgpu.h"
#include "jv_check.h"

static char root[256];

static void put(const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static int unlink_rel(const char *rel) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    return unlink(path);
}

static void mk(const char *rel) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    CHECK(mkdir(path, 0755) == 0);
}

#define DEV "bus/pci/devices/0000:c1:00.0"

static void tree(void) {
    mk("bus");
    mk("bus/pci");
    mk("bus/pci/devices");
    mk(DEV);
    put(DEV "/pp_dpm_sclk", "S: 131Mhz\n0: 500Mhz\n1: 1310Mhz *\n2: 2100Mhz\n");
    put(DEV "/pp_dpm_mclk", "0: 900Mhz\n1: 1300Mhz *\n");
    mk(DEV "/hwmon");
    mk(DEV "/hwmon/hwmon4");
    put(DEV "/hwmon/hwmon4/power1_input", "512000000\n");
    /* amdgpu's labels; the junction one is not temp1, and the memory one is hotter than both */
    put(DEV "/hwmon/hwmon4/temp1_label", "edge\n");
    put(DEV "/hwmon/hwmon4/temp1_input", "41000\n");
    put(DEV "/hwmon/hwmon4/temp2_label", "junction\n");
    put(DEV "/hwmon/hwmon4/temp2_input", "67500\n");
    put(DEV "/hwmon/hwmon4/temp3_label", "mem\n");
    put(DEV "/hwmon/hwmon4/temp3_input", "88000\n");
}

int main(void) {
    snprintf(root, sizeof root, "%s/jv_amdgpu_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    tree();

    /* the bus id as HIP spells it (upper case) finds the lower-case folder; the marked levels are read */
    jv_amdgpu a;
    jv_clocks c;
    jv_amdgpu_open(&a, root, "0000:C1:00.0");
    CHECK(a.dev[0] != 0);
    CHECK(strstr(a.power, "hwmon4/power1_input") != NULL);
    jv_amdgpu_clocks(&a, &c);
    CHECK(c.known == 1);
    CHECK(c.sm_mhz == 1310);
    CHECK(c.sm_max_mhz == 2100);
    CHECK(c.mem_mhz == 1300);
    CHECK(c.power_w > 511.9 && c.power_w < 512.1);
    CHECK(strstr(a.temp, "hwmon4/temp2_input") != NULL);
    CHECK_MSG(c.temp_c > 67.49 && c.temp_c < 67.51, "temperature %.3f C, want 67.5 (junction, millidegrees)", c.temp_c);
    CHECK(c.reasons == 0);

    /* no junction sensor (an older board): the edge one, never the memory one */
    CHECK(unlink_rel(DEV "/hwmon/hwmon4/temp2_label") == 0);
    jv_amdgpu_open(&a, root, "0000:c1:00.0");
    jv_amdgpu_clocks(&a, &c);
    CHECK_MSG(c.temp_c > 40.99 && c.temp_c < 41.01, "temperature %.3f C, want 41 (edge)", c.temp_c);
    /* neither label: temperature unknown (0), the clocks still read */
    CHECK(unlink_rel(DEV "/hwmon/hwmon4/temp1_label") == 0);
    jv_amdgpu_open(&a, root, "0000:c1:00.0");
    CHECK(a.temp[0] == 0);
    jv_amdgpu_clocks(&a, &c);
    CHECK(c.known == 1 && c.temp_c == 0);
    put(DEV "/hwmon/hwmon4/temp2_label", "junction\n");

    /* the deep-sleep level marked (an idle GPU): the current clock is that level's */
    put(DEV "/pp_dpm_sclk", "S: 131Mhz *\n0: 500Mhz\n1: 1310Mhz\n2: 2100Mhz\n");
    jv_amdgpu_clocks(&a, &c);
    CHECK(c.known == 1 && c.sm_mhz == 131 && c.sm_max_mhz == 2100);

    /* power1_average preferred over power1_input where both exist */
    put(DEV "/hwmon/hwmon4/power1_average", "300000000\n");
    jv_amdgpu_open(&a, root, "0000:c1:00.0");
    jv_amdgpu_clocks(&a, &c);
    CHECK(c.power_w > 299.9 && c.power_w < 300.1);

    /* a file that is no dpm table, or marks no level: clocks unknown, never a made-up number */
    put(DEV "/pp_dpm_sclk", "garbage\n");
    jv_amdgpu_clocks(&a, &c);
    CHECK(c.known == 0 && c.sm_mhz == 0);
    put(DEV "/pp_dpm_sclk", "0: 500Mhz\n1: 1310Mhz\n");
    jv_amdgpu_clocks(&a, &c);
    CHECK(c.known == 0);
    jv_amdgpu_open(&a, root, "0000:c1:00.0");
    CHECK(a.dev[0] == 0);

    /* a device sysfs does not have, and no root: nothing opened, clocks unknown */
    jv_amdgpu_open(&a, root, "0000:c2:00.0");
    CHECK(a.dev[0] == 0);
    jv_amdgpu_clocks(&a, &c);
    CHECK(c.known == 0);
    jv_amdgpu_open(&a, NULL, "0000:c1:00.0");
    CHECK(a.dev[0] == 0);

    /* the last-level cache: the 256 MiB Infinity Cache of MI300 (gfx940-gfx942) and MI350 (gfx950), features
     * after ':' ignored; MI200 (gfx90a) and unknown architectures keep the L2 */
    int64_t l2 = (int64_t)4 << 20, mib = (int64_t)1 << 20;
    CHECK(jv_amdgpu_llc_bytes("gfx942:sramecc+:xnack-", l2) == 256 * mib);
    CHECK(jv_amdgpu_llc_bytes("gfx942", l2) == 256 * mib);
    CHECK(jv_amdgpu_llc_bytes("gfx940", l2) == 256 * mib);
    CHECK(jv_amdgpu_llc_bytes("gfx950", l2) == 256 * mib);
    CHECK(jv_amdgpu_llc_bytes("gfx90a:sramecc+:xnack-", 8 * mib) == 8 * mib);
    CHECK(jv_amdgpu_llc_bytes("gfx9420", l2) == l2); /* a prefix is not the architecture */
    CHECK(jv_amdgpu_llc_bytes(NULL, l2) == l2);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "test_amdgpu: could not remove %s\n", root);
    printf("test_amdgpu: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
