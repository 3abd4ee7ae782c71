/* jv_package_write: the replay package zip, checked member names, written by
 * jv_zipw through a private temporary name (jv_out) and renamed into place.
 * No libzip here: jarvis-analyze, which only writes packages, links none. */
#include "jv_package.h"

#include "jv_output.h"
#include "jv_zipw.h"

#include <ctype.h>
#include <string.h>
#include <time.h>

const char *jv_package_name_problem(const char *s) {
    if (!s[0]) return "empty";
    if (s[0] == '/') return "an absolute path";
    if (isalpha((unsigned char)s[0]) && s[1] == ':') return "an absolute path (a drive letter)";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) return "a name with a control character";
        if (*p == '\\') return "a name with a backslash";
    }
    for (const char *c = s; *c;) { /* each '/'-separated component */
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.') return "a path that climbs out (\"..\")";
        if (!e) break;
        c = e + 1;
    }
    return NULL;
}

const char *jv_package_printable(char *buf, size_t cap, const char *s) {
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
    buf[i] = 0;
    return buf;
}

jv_status jv_package_write(const char *path, const jv_pkg_file *files, int n, jv_err *err) {
    if (n <= 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: a package needs at least one member", path);
    char pn[128];
    for (int i = 0; i < n; i++) {
        const char *nm = files[i].name ? files[i].name : "";
        const char *why = jv_package_name_problem(nm);
        if (!why && nm[strlen(nm) - 1] == '/') why = "a directory name";
        if (why)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: member name '%s' is %s", path, jv_package_printable(pn, sizeof pn, nm),
                    why);
        if (!files[i].data && files[i].len) JV_FAIL(err, JV_ERR_FORMAT, "%s: member '%s' has no data", path, nm);
        for (int j = 0; j < i; j++)
            if (!strcmp(files[j].name, nm)) JV_FAIL(err, JV_ERR_FORMAT, "%s: member '%s' given twice", path, nm);
    }
    /* streamed into the temporary file: no copy of the archive in memory */
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    jv_status st = jv_zipw_write(o.f, path, files, n, time(NULL), err);
    if (st != JV_OK) {
        jv_out_abort(&o);
        return st;
    }
    return jv_out_commit(&o, err);
}
