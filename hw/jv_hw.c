/* jv_hw: hardware table parsing (cJSON) and device matching. */
#include "jv_hw.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* generated from data/hardware.json by CMake */
extern const unsigned char jv_hw_data[];
extern const unsigned long jv_hw_data_len;

static int ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* case-insensitive substring */
static int icontains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    if (!n) return 0;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return 1;
    }
    return 0;
}

/* name without spaces, dashes, underscores, lower case ("H100 SXM" -> "h100sxm") */
static void squash(const char *s, char *out, size_t cap) {
    size_t k = 0;
    for (; *s && k + 1 < cap; s++)
        if (isalnum((unsigned char)*s)) out[k++] = (char)tolower((unsigned char)*s);
    out[k] = 0;
}

static double num_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A field that must be a positive finite number when present: writes "KEY is VALUE" into bad and returns
 * 0 when it is not (0, negative, not finite, or not a number). */
static int positive(const cJSON *v, const char *key, char *bad, size_t badcap) {
    if (!v) return 1;
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble > 0) return 1;
    if (cJSON_IsNumber(v))
        snprintf(bad, badcap, "%s is %g", key, v->valuedouble);
    else
        snprintf(bad, badcap, "%s is not a number", key);
    return 0;
}

static int read_specs(const cJSON *o, jv_hw_spec *out, const char *what, char *bad, size_t badcap) {
    int n = 0;
    const cJSON *e;
    if (!cJSON_IsObject(o)) return 0;
    cJSON_ArrayForEach(e, o) {
        char key[96];
        snprintf(key, sizeof key, "\"%s\".\"%.60s\"", what, e->string ? e->string : "");
        if (!positive(e, key, bad, badcap)) return -1;
        if (!e->string || n >= JV_HW_MAX_SPECS) continue;
        snprintf(out[n].key, sizeof out[n].key, "%s", e->string);
        out[n].tflops = e->valuedouble;
        n++;
    }
    return n;
}

/* Fills h from one entry. Returns 0 when the entry lacks a name or bandwidth, or (with bad set to the
 * field and its value) when a peak, bandwidth or size is 0, negative or not finite. */
static int entry_to_hw(const cJSON *o, jv_hw *h, char *bad, size_t badcap) {
    memset(h, 0, sizeof *h);
    bad[0] = '\0';
    if (!positive(cJSON_GetObjectItemCaseSensitive(o, "mem_bw_gbps"), "\"mem_bw_gbps\"", bad, badcap) ||
        !positive(cJSON_GetObjectItemCaseSensitive(o, "memory_gb"), "\"memory_gb\"", bad, badcap) ||
        !positive(cJSON_GetObjectItemCaseSensitive(o, "llc_mb"), "\"llc_mb\"", bad, badcap))
        return 0;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (!cJSON_IsString(name) || !name->valuestring[0]) return 0;
    snprintf(h->name, sizeof h->name, "%s", name->valuestring);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "vendor");
    if (cJSON_IsString(v)) snprintf(h->vendor, sizeof h->vendor, "%s", v->valuestring);
    h->mem_bw_gbps = num_of(o, "mem_bw_gbps");
    if (!(h->mem_bw_gbps > 0)) return 0;
    h->memory_gb = num_of(o, "memory_gb");
    h->llc_mb = num_of(o, "llc_mb");
    double u = num_of(o, "units");
    h->units = u > 0 && u < 1e6 ? (int)u : 0;
    h->ndatasheet =
        read_specs(cJSON_GetObjectItemCaseSensitive(o, "peak_tflops"), h->datasheet, "peak_tflops", bad, badcap);
    int nmax = read_specs(cJSON_GetObjectItemCaseSensitive(o, "max_achievable_tflops"), h->roof,
                          "max_achievable_tflops", bad, badcap);
    if (h->ndatasheet < 0 || nmax < 0) return 0;
    if (nmax > 0) {
        h->nroof = nmax;
        h->roof_is_max_achievable = 1;
    } else {
        h->nroof = h->ndatasheet;
        memcpy(h->roof, h->datasheet, sizeof h->roof);
    }
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
    if (cJSON_IsString(src)) snprintf(h->source, sizeof h->source, "%s", src->valuestring);
    return h->nroof > 0;
}

static cJSON *builtin_list(void) {
    cJSON *doc = cJSON_ParseWithLength((const char *)jv_hw_data, jv_hw_data_len);
    return doc;
}

size_t jv_hw_builtin_names(const char **names, size_t max) {
    static const char *const NAMES[] = {"MI300X", "MI325X", "MI355X",    "MI210",     "H100 SXM",      "H100 PCIe",
                                        "H200",   "B200",   "A100 80GB", "A100 40GB", "V100 SXM2 32GB"};
    size_t n = sizeof NAMES / sizeof NAMES[0];
    for (size_t i = 0; i < n && i < max; i++)
        names[i] = NAMES[i];
    return n;
}

/* Finds a built-in entry whose name, squashed, equals or starts with arg squashed. */
static int find_builtin(const char *arg, jv_hw *out) {
    cJSON *doc = builtin_list();
    if (!doc) return 0;
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(doc, "gpus"), *g;
    char want[96], have[96];
    squash(arg, want, sizeof want);
    int found = 0;
    /* exact squashed name first, then prefix ("h100" -> "H100 SXM") */
    for (int pass = 0; pass < 2 && !found; pass++) {
        cJSON_ArrayForEach(g, gpus) {
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(g, "name");
            if (!cJSON_IsString(nm)) continue;
            squash(nm->valuestring, have, sizeof have);
            int hit = pass == 0 ? !strcmp(have, want) : (want[0] && !strncmp(have, want, strlen(want)));
            char bad[160];
            if (hit && entry_to_hw(g, out, bad, sizeof bad)) {
                found = 1;
                break;
            }
        }
    }
    cJSON_Delete(doc);
    return found;
}

jv_status jv_hw_resolve(const char *arg, jv_hw *out, jv_err *err) {
    if (find_builtin(arg, out)) return JV_OK;
    FILE *f = fopen(arg, "rb");
    if (!f) {
        const char *names[32];
        size_t n = jv_hw_builtin_names(names, 32);
        char list[512] = "";
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
        }
        JV_FAIL(err, JV_ERR_NOTFOUND, "--gpu-arch %s: not a built-in GPU (%s) and no such file", arg, list);
    }
    char *buf = malloc(1 << 20);
    if (!buf) {
        fclose(f);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", arg);
    }
    size_t len = fread(buf, 1, (1 << 20) - 1, f);
    int too_big = !feof(f);
    fclose(f);
    buf[len] = 0;
    if (too_big) {
        free(buf);
        JV_FAIL(err, JV_ERR_LIMIT, "%s: GPU description larger than 1 MiB", arg);
    }
    cJSON *doc = cJSON_Parse(buf);
    free(buf);
    if (!doc) JV_FAIL(err, JV_ERR_FORMAT, "%s: not valid JSON", arg);
    const cJSON *entry = doc;
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(doc, "gpus");
    if (cJSON_IsArray(gpus)) entry = cJSON_GetArrayItem(gpus, 0);
    char bad[160] = "";
    int ok = entry && entry_to_hw(entry, out, bad, sizeof bad);
    cJSON_Delete(doc);
    if (!ok && bad[0])
        JV_FAIL(err, JV_ERR_FORMAT,
                "%s: %s: a peak, bandwidth or size must be a positive finite number (leave a field out when "
                "it is unknown)",
                arg, bad);
    if (!ok)
        JV_FAIL(err, JV_ERR_FORMAT,
                "%s: a GPU description needs \"name\", \"mem_bw_gbps\" > 0 and \"peak_tflops\" or "
                "\"max_achievable_tflops\" with compute-spec keys (\"matrix_bf16\": 989.4, ...)",
                arg);
    if (!out->source[0]) snprintf(out->source, sizeof out->source, "%s", arg);
    out->max_achievable_given = out->roof_is_max_achievable;
    return JV_OK;
}

int jv_hw_auto(const jv_hw_device *devs, size_t n, jv_hw *out, char *why, size_t whycap) {
    if (!n) {
        snprintf(why, whycap, "the trace has no deviceProperties");
        return 0;
    }
    const jv_hw_device *d = &devs[0];
    cJSON *doc = builtin_list();
    if (!doc) {
        snprintf(why, whycap, "built-in GPU table unreadable");
        return 0;
    }
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(doc, "gpus"), *g;
    int found = 0;
    /* 1: a name the table lists appears in the device name */
    if (d->name[0]) {
        cJSON_ArrayForEach(g, gpus) {
            const cJSON *mn = cJSON_GetObjectItemCaseSensitive(g, "match_names"), *m;
            cJSON_ArrayForEach(m, mn) {
                char bad[160];
                if (cJSON_IsString(m) && icontains(d->name, m->valuestring) && entry_to_hw(g, out, bad, sizeof bad)) {
                    snprintf(why, whycap, "device name \"%s\" matches %s", d->name, out->name);
                    found = 1;
                    break;
                }
            }
            if (found) break;
        }
    }
    /* 2: compute capability + SM/CU count, then the closest memory size */
    if (!found && d->cc_major > 0) {
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
        double mem_gb = d->total_mem_bytes / 1e9, best = 1e30;
        cJSON_ArrayForEach(g, gpus) {
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(g, "cc");
            double units = num_of(g, "units"), memgb = num_of(g, "memory_gb");
            if (!cJSON_IsString(c) || strcmp(c->valuestring, cc) || (int)units != d->num_sms) continue;
            double dist = mem_gb > 0 && memgb > 0 ? fabs(mem_gb - memgb) / memgb : 0;
            if (dist < 0.25 && dist < best) {
                jv_hw h;
                char bad[160];
                if (entry_to_hw(g, &h, bad, sizeof bad)) {
                    *out = h;
                    best = dist;
                    found = 1;
                }
            }
        }
        if (found)
            snprintf(why, whycap, "compute capability %s, %d SMs/CUs and %.0f GB match %s", cc, d->num_sms, mem_gb,
                     out->name);
    }
    cJSON_Delete(doc);
    if (!found)
        snprintf(why, whycap, "no built-in entry matches device \"%s\" (cc %d.%d, %d SMs/CUs, %.0f GB)", d->name,
                 d->cc_major, d->cc_minor, d->num_sms, d->total_mem_bytes / 1e9);
    return found;
}

static double lookup(const jv_hw_spec *s, int n, const char *spec) {
    for (int i = 0; i < n; i++)
        if (ieq(s[i].key, spec)) return s[i].tflops;
    return NAN;
}

double jv_hw_peak(const jv_hw *hw, const char *spec) {
    return lookup(hw->roof, hw->nroof, spec);
}

double jv_hw_datasheet_peak(const jv_hw *hw, const char *spec) {
    return lookup(hw->datasheet, hw->ndatasheet, spec);
}

jv_peak_policy jv_hw_policy(const jv_hw *target, const jv_hw *reference) {
    int t = target && target->max_achievable_given, r = !reference || reference->max_achievable_given;
    return t && r ? JV_PEAKS_MEASURED : JV_PEAKS_DATASHEET;
}

void jv_hw_apply_policy(jv_hw *hw, jv_peak_policy p) {
    if (p != JV_PEAKS_DATASHEET) return;
    hw->nroof = hw->ndatasheet;
    memcpy(hw->roof, hw->datasheet, sizeof hw->roof);
    hw->roof_is_max_achievable = 0;
}

int jv_hw_roofs_differ(const jv_hw *a, const jv_hw *b) {
    if (a->nroof != b->nroof || a->roof_is_max_achievable != b->roof_is_max_achievable) return 1;
    for (int i = 0; i < a->nroof; i++)
        if (strcmp(a->roof[i].key, b->roof[i].key) || a->roof[i].tflops != b->roof[i].tflops) return 1;
    return 0;
}

const char *jv_bound_name(jv_bound b) {
    switch (b) {
    case JV_BOUND_COMPUTE: return "COMPUTE_BOUND";
    case JV_BOUND_MEMORY: return "MEMORY_BOUND";
    default: return "";
    }
}
