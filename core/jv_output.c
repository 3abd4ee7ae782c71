/* jv_output: atomic files, CSV cells, float formatting. */
#include "jv_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the directory of path ("." for a bare name) into buf, and its last component */
static const char *split_dir(const char *path, char *buf, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(buf, cap, ".");
        return path;
    }
    size_t n = (size_t)(slash - path);
    if (n == 0) n = 1; /* "/name" */
    if (n >= cap) n = cap - 1;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return slash + 1;
}

/* 1 when name is base + TMP_TAG + <pid> + '-' + 6 characters, with *pid set */
#define TMP_TAG ".jv-tmp-"
static int stale_name(const char *name, const char *base, long *pid) {
    size_t nb = strlen(base), nt = strlen(TMP_TAG);
    if (strncmp(name, base, nb) != 0 || strncmp(name + nb, TMP_TAG, nt) != 0) return 0;
    const char *p = name + nb + nt;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno || end == p || v <= 0 || *end != '-' || strlen(end + 1) != 6) return 0;
    *pid = v;
    return 1;
}

void jv_out_clean_stale(const char *path) {
    char dir[4096];
    const char *base = split_dir(path, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        if (!stale_name(e->d_name, base, &pid)) continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* a live writer */
        unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

jv_status jv_out_temp(const char *path, char **tmp, int *fd, jv_err *err) {
    *tmp = NULL;
    *fd = -1;
    size_t cap = strlen(path) + sizeof TMP_TAG + 32;
    char *t = malloc(cap);
    if (!t) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    snprintf(t, cap, "%s" TMP_TAG "%ld-XXXXXX", path, (long)getpid());
    int f = mkstemp(t); /* O_CREAT | O_EXCL: a planted name or link is never opened */
    if (f < 0) {
        int e = errno;
        free(t);
        JV_FAIL(err, JV_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    (void)fcntl(f, F_SETFD, FD_CLOEXEC);
    mode_t mask = umask(0); /* the final file gets the usual 0666 & ~umask, not mkstemp's 0600 */
    umask(mask);
    if (fchmod(f, 0666 & ~mask) != 0) {
        int e = errno;
        close(f);
        unlink(t);
        free(t);
        JV_FAIL(err, JV_ERR_IO, "%s: cannot set the mode: %s", path, strerror(e));
    }
    *tmp = t;
    *fd = f;
    return JV_OK;
}

jv_status jv_out_open(jv_out *o, const char *path, jv_err *err) {
    memset(o, 0, sizeof *o);
    size_t n = strlen(path);
    o->path = malloc(n + 1);
    if (!o->path) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    memcpy(o->path, path, n + 1);
    jv_out_clean_stale(path);
    int fd;
    jv_status s = jv_out_temp(path, &o->tmp, &fd, err);
    if (s != JV_OK) {
        jv_out_abort(o);
        return s;
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        jv_out_abort(o);
        JV_FAIL(err, JV_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    return JV_OK;
}

jv_status jv_out_commit(jv_out *o, jv_err *err) {
    int bad = ferror(o->f);
    /* on disk before it takes the final name: a crash after the rename cannot leave an empty file there */
    if (!bad && (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)) bad = 1;
    if (fclose(o->f) != 0) bad = 1;
    o->f = NULL;
    if (bad) {
        int e = errno;
        remove(o->tmp);
        jv_status s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: write failed: %s", o->path, strerror(e));
        jv_out_abort(o);
        return s;
    }
    if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        remove(o->tmp);
        jv_status s =
            jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot rename into place: %s", o->path, strerror(e));
        jv_out_abort(o);
        return s;
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return JV_OK;
}

void jv_out_abort(jv_out *o) {
    if (o->f) {
        fclose(o->f);
        if (o->tmp) remove(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

static void sep(jv_out *o) {
    if (o->row_open) fputc(',', o->f);
    o->row_open = 1;
}

void jv_csv_str(jv_out *o, const char *s) {
    sep(o);
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, o->f);
        return;
    }
    fputc('"', o->f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', o->f);
        fputc(*s, o->f);
    }
    fputc('"', o->f);
}

char *jv_fmt_pyfloat(char *buf, size_t cap, double v) {
    if (isnan(v)) {
        snprintf(buf, cap, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, cap, v < 0 ? "-inf" : "inf");
        return buf;
    }
    if (v == 0) {
        snprintf(buf, cap, signbit(v) ? "-0.0" : "0.0");
        return buf;
    }
    /* shortest digits that round-trip */
    char dig[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(dig, sizeof dig, "%.*e", prec - 1, v);
        if (strtod(dig, NULL) == v) break;
    }
    /* dig = [-]d.ddde[+-]XX */
    int neg = dig[0] == '-';
    const char *m = dig + neg;
    char digits[24];
    int nd = 0;
    const char *e = strchr(m, 'e');
    for (const char *q = m; q < e; q++)
        if (*q != '.') digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int exp10 = atoi(e + 1);
    char *o = buf;
    size_t left = cap;
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        int w_ = snprintf(o, left, __VA_ARGS__);                                                                       \
        if (w_ < 0 || (size_t)w_ >= left) return buf;                                                                  \
        o += w_;                                                                                                       \
        left -= (size_t)w_;                                                                                            \
    } while (0)
    if (neg) PUT("-");
    if (exp10 < -4 || exp10 >= 16) {
        PUT("%c", digits[0]);
        if (nd > 1) PUT(".%s", digits + 1);
        PUT("e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    } else if (exp10 < 0) {
        PUT("0.");
        for (int i = 0; i < -exp10 - 1; i++)
            PUT("0");
        PUT("%s", digits);
    } else {
        for (int i = 0; i <= exp10; i++)
            PUT("%c", i < nd ? digits[i] : '0');
        PUT(".");
        if (nd > exp10 + 1)
            PUT("%s", digits + exp10 + 1);
        else
            PUT("0");
    }
#undef PUT
    return buf;
}

void jv_csv_num(jv_out *o, double v) {
    sep(o);
    if (isnan(v)) return;
    char b[48];
    fputs(jv_fmt_pyfloat(b, sizeof b, v), o->f);
}

void jv_csv_int(jv_out *o, long long v) {
    sep(o);
    fprintf(o->f, "%lld", v);
}

void jv_csv_empty(jv_out *o) {
    sep(o);
}

void jv_csv_end(jv_out *o) {
    fputc('\n', o->f);
    o->row_open = 0;
}

void jv_csv_header(jv_out *o, const char *const *names) {
    for (; *names; names++)
        jv_csv_str(o, *names);
    jv_csv_end(o);
}

jv_status jv_mkdir_p(const char *path, jv_err *err) {
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) JV_FAIL(err, JV_ERR_USAGE, "%s: bad output directory name", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                JV_FAIL(err, JV_ERR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
            struct stat st;
            if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
                JV_FAIL(err, JV_ERR_IO, "%s: exists and is not a directory", buf);
            buf[i] = c;
        }
    }
    return JV_OK;
}
