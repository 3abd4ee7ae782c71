/* jv_amdgpu: AMD GPU clocks, power and last-level cache (see jv_amdgpu.h). */
#include "jv_amdgpu.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* the contents of dir/name into buf (NUL-terminated, at most cap - 1 bytes); 0 when it cannot be read */
static int read_file(const char *dir, const char *name, char *buf, size_t cap) {
    char path[700];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    return n > 0;
}

/* the integer a sysfs file at path starts with into *v; 0 when it cannot be read */
static int read_ll(const char *path, long long *v) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fscanf(f, "%lld", v) == 1;
    fclose(f);
    return ok;
}

/* a pp_dpm_* table ("0: 500Mhz\n1: 1700Mhz *\n", a deep-sleep level "S: 100Mhz" included): the level
 * marked '*' into *cur and the highest level into *max, MHz; 0 when no line parses or none is marked */
static int parse_dpm(const char *text, double *cur, double *max) {
    *cur = *max = 0;
    int marked = 0, levels = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *colon = memchr(line, ':', len);
        if (colon) {
            char *num_end;
            double mhz = strtod(colon + 1, &num_end);
            if (num_end != colon + 1 && mhz > 0 && (size_t)(num_end - line) <= len && !strncasecmp(num_end, "mhz", 3)) {
                levels++;
                if (mhz > *max) *max = mhz;
                if (memchr(num_end, '*', len - (size_t)(num_end - line))) {
                    *cur = mhz;
                    marked = 1;
                }
            }
        }
        line += len + (end ? 1 : 0);
    }
    return levels > 0 && marked;
}

/* the first hwmon*\/power1_average (else power1_input) under dev/hwmon into out; "" when none */
static void find_power(const char *dev, char *out, size_t cap) {
    out[0] = 0;
    char hw[600];
    if (snprintf(hw, sizeof hw, "%s/hwmon", dev) >= (int)sizeof hw) return;
    DIR *d = opendir(hw);
    if (!d) return;
    const char *names[2] = {"power1_average", "power1_input"};
    for (int k = 0; k < 2 && !out[0]; k++) {
        rewinddir(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, "hwmon", 5) != 0) continue;
            char path[700];
            if (snprintf(path, sizeof path, "%s/%s/%s", hw, e->d_name, names[k]) >= (int)sizeof path) continue;
            if (access(path, R_OK) == 0 && strlen(path) < cap) {
                snprintf(out, cap, "%s", path);
                break;
            }
        }
    }
    closedir(d);
}

/* the hwmon*\/tempN_input (N 1 to 16) under dev/hwmon whose tempN_label reads "junction", else "edge", into out;
 * "" when none (the amdgpu driver labels temp1 "edge", temp2 "junction", temp3 "mem") */
static void find_temp(const char *dev, char *out, size_t cap) {
    out[0] = 0;
    char hw[600];
    if (snprintf(hw, sizeof hw, "%s/hwmon", dev) >= (int)sizeof hw) return;
    DIR *d = opendir(hw);
    if (!d) return;
    static const char *const WANT[2] = {"junction", "edge"};
    for (int k = 0; k < 2 && !out[0]; k++) {
        rewinddir(d);
        struct dirent *e;
        while (!out[0] && (e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, "hwmon", 5) != 0) continue;
            char sub[700];
            if (snprintf(sub, sizeof sub, "%s/%s", hw, e->d_name) >= (int)sizeof sub) continue;
            for (int n = 1; n <= 16; n++) {
                char name[32], label[64];
                snprintf(name, sizeof name, "temp%d_label", n);
                if (!read_file(sub, name, label, sizeof label)) continue;
                label[strcspn(label, "\r\n")] = 0;
                if (strcmp(label, WANT[k]) != 0) continue;
                char path[760];
                if (snprintf(path, sizeof path, "%s/temp%d_input", sub, n) >= (int)sizeof path) continue;
                if (access(path, R_OK) == 0 && strlen(path) < cap) {
                    snprintf(out, cap, "%s", path);
                    break;
                }
            }
        }
    }
    closedir(d);
}

void jv_amdgpu_open(jv_amdgpu *a, const char *root, const char *bus) {
    memset(a, 0, sizeof *a);
    if (!root || !bus || !bus[0]) return;
    char lower[64];
    size_t n = strlen(bus);
    if (n >= sizeof lower) return;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)bus[i]); /* sysfs names the device in lower case */
    char dev[sizeof a->dev];
    if (snprintf(dev, sizeof dev, "%s/bus/pci/devices/%s", root, lower) >= (int)sizeof dev) return;
    char buf[2048];
    double cur, max;
    if (!read_file(dev, "pp_dpm_sclk", buf, sizeof buf) || !parse_dpm(buf, &cur, &max)) return;
    snprintf(a->dev, sizeof a->dev, "%s", dev);
    find_power(dev, a->power, sizeof a->power);
    find_temp(dev, a->temp, sizeof a->temp);
}

void jv_amdgpu_clocks(const jv_amdgpu *a, jv_clocks *c) {
    memset(c, 0, sizeof *c);
    if (!a->dev[0]) return;
    char buf[2048];
    double cur, max;
    if (!read_file(a->dev, "pp_dpm_sclk", buf, sizeof buf) || !parse_dpm(buf, &cur, &max)) return;
    c->known = 1;
    c->sm_mhz = cur;
    c->sm_max_mhz = max;
    if (read_file(a->dev, "pp_dpm_mclk", buf, sizeof buf) && parse_dpm(buf, &cur, &max)) c->mem_mhz = cur;
    long long v = 0;
    if (a->power[0] && read_ll(a->power, &v)) c->power_w = (double)v * 1e-6; /* microwatts */
    if (a->temp[0] && read_ll(a->temp, &v)) c->temp_c = (double)v * 1e-3;    /* millidegrees */
}

int64_t jv_amdgpu_llc_bytes(const char *gcn_arch, int64_t l2_bytes) {
    static const char *const MALL_256[] = {"gfx940", "gfx941", "gfx942", "gfx950"};
    if (gcn_arch)
        for (size_t i = 0; i < sizeof MALL_256 / sizeof MALL_256[0]; i++) {
            size_t n = strlen(MALL_256[i]);
            if (!strncmp(gcn_arch, MALL_256[i], n) && (gcn_arch[n] == 0 || gcn_arch[n] == ':')) {
                int64_t mall = (int64_t)256 << 20;
                return mall > l2_bytes ? mall : l2_bytes;
            }
        }
    return l2_bytes;
}
