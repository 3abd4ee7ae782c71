/* test_publish: core/jv_publish (an output folder published atomically per
 * run) and the private temporaries of core/jv_output, in a scratch folder:
 * a fresh target, an earlier output replaced by the exchange and by the two
 * renames of a filesystem without it (nothing of it survives, nothing left
 * beside), the lock refusing a second run, a failed run leaving the target
 * as it was with the error naming the target's file, the leftovers of killed
 * runs removed (and only those), refused targets, and the temporaries of a
 * dead writer removed while a live writer's are kept. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jv_check.h"
#include "jv_output.h"
#include "jv_publish.h"

static char g_root[64];

static void path_of(char *buf, size_t cap, const char *rel) {
    snprintf(buf, cap, "%s/%s", g_root, rel);
}

static int exists(const char *rel) {
    char p[256];
    struct stat st;
    path_of(p, sizeof p, rel);
    return lstat(p, &st) == 0;
}

static void put(const char *rel, const char *text) {
    char p[256];
    path_of(p, sizeof p, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void mk(const char *rel) {
    char p[256];
    path_of(p, sizeof p, rel);
    mkdir(p, 0777);
}

/* entries of the scratch root whose name starts with prefix */
static int count_prefix(const char *prefix) {
    DIR *d = opendir(g_root);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d) closedir(d);
    return n;
}

/* a run: begin, one file (and the markers of an output) in the stage, commit */
static jv_status publish(const char *rel, const char *text, int no_exchange, jv_err *err) {
    char target[256], file[512];
    path_of(target, sizeof target, rel);
    jv_publish p;
    JV_CHECK(jv_publish_begin(&p, target, err));
    p.no_exchange = no_exchange;
    snprintf(file, sizeof file, "%s/report.html", p.stage);
    jv_out o;
    jv_status s = jv_out_open(&o, file, err);
    if (s == JV_OK) {
        fputs(text, o.f);
        s = jv_out_commit(&o, err);
    }
    snprintf(file, sizeof file, "%s/perf_report_csvs", p.stage);
    if (s == JV_OK) s = jv_mkdir_p(file, err);
    if (s != JV_OK) {
        jv_publish_abort(&p, err);
        return s;
    }
    return jv_publish_commit(&p, err);
}

static int read_is(const char *rel, const char *text) {
    char p[256], buf[128] = "";
    path_of(p, sizeof p, rel);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return !strcmp(buf, text);
}

static void test_runs(void) {
    jv_err err;
    jv_err_clear(&err);
    CHECK_MSG(publish("out", "one", 0, &err) == JV_OK, "%s", err.msg);
    CHECK(read_is("out/report.html", "one"));
    put("out/stray.txt", "x");
    jv_err_clear(&err);
    CHECK_MSG(publish("out", "two", 0, &err) == JV_OK, "%s", err.msg);
    CHECK(read_is("out/report.html", "two"));
    CHECK(!exists("out/stray.txt"));
    put("out/stray.txt", "x");
    jv_err_clear(&err);
    CHECK_MSG(publish("out", "three", 1, &err) == JV_OK, "%s", err.msg); /* the two-rename path */
    CHECK(read_is("out/report.html", "three"));
    CHECK(!exists("out/stray.txt"));
    CHECK(count_prefix(".out.jv-") == 0 && !exists("out.lock"));
    struct stat st;
    char p[256];
    path_of(p, sizeof p, "out");
    mode_t mask = umask(0);
    umask(mask);
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == (0777 & ~mask));
    path_of(p, sizeof p, "out/report.html");
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask));
    /* an empty folder is replaced too; a trailing slash names the same folder */
    mk("empty");
    jv_err_clear(&err);
    CHECK_MSG(publish("empty/", "e", 0, &err) == JV_OK, "%s", err.msg);
    CHECK(read_is("empty/report.html", "e"));
}

static void test_lock_and_failure(void) {
    char target[256];
    path_of(target, sizeof target, "out");
    jv_publish a, b;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_publish_begin(&a, target, &err) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_publish_begin(&b, target, &err) == JV_ERR_IO);
    CHECK_MSG(strstr(err.msg, "another run") && strstr(err.msg, "out.lock"), "%s", err.msg);
    /* a failed run: the error names the target's file, not the stage; the target is as it was */
    char file[512];
    snprintf(file, sizeof file, "%s/sub/x.csv", a.stage);
    jv_err_clear(&err);
    jv_out o;
    CHECK(jv_out_open(&o, file, &err) == JV_ERR_IO); /* sub/ is missing */
    jv_publish_abort(&a, &err);
    CHECK_MSG(strstr(err.msg, "/out/sub/x.csv: cannot create") && !strstr(err.msg, ".jv-new-"), "%s", err.msg);
    CHECK(read_is("out/report.html", "three"));
    CHECK(count_prefix(".out.jv-") == 0 && !exists("out.lock"));
    jv_err_clear(&err);
    CHECK(jv_publish_begin(&b, target, &err) == JV_OK); /* released: a new run may start */
    jv_publish_abort(&b, NULL);
    jv_publish_abort(&b, NULL); /* twice is safe */
}

static void test_leftovers(void) {
    mk(".out.jv-new-AbC123");
    put(".out.jv-new-AbC123/half.csv", "x");
    mk(".out.jv-old-XyZ789");
    mk(".out.jv-new-.jv-new-AbC123"); /* the stage of a target named "out.jv-new-": not ours */
    put("out.lock", "");
    jv_err err;
    jv_err_clear(&err);
    CHECK_MSG(publish("out", "four", 0, &err) == JV_OK, "%s", err.msg);
    CHECK(!exists(".out.jv-new-AbC123") && !exists(".out.jv-old-XyZ789") && !exists("out.lock"));
    CHECK(exists(".out.jv-new-.jv-new-AbC123"));
}

static void test_refused(void) {
    jv_publish p;
    jv_err err;
    const char *bad[] = {"", "/", ".", "..", "x/.", "x/..", "///"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jv_err_clear(&err);
        CHECK_MSG(jv_publish_begin(&p, bad[i], &err) == JV_ERR_USAGE, "'%s': %s", bad[i], err.msg);
    }
    char t[256];
    put("afile", "x");
    path_of(t, sizeof t, "afile");
    jv_err_clear(&err);
    CHECK(jv_publish_begin(&p, t, &err) == JV_ERR_USAGE && strstr(err.msg, "not a folder"));
    mk("theirs");
    put("theirs/thesis.tex", "x");
    path_of(t, sizeof t, "theirs");
    jv_err_clear(&err);
    CHECK(jv_publish_begin(&p, t, &err) == JV_ERR_USAGE && strstr(err.msg, "not an earlier"));
    CHECK(exists("theirs/thesis.tex") && count_prefix(".theirs.") == 0 && !exists("theirs.lock"));
    char link[256];
    path_of(link, sizeof link, "alink");
    path_of(t, sizeof t, "out");
    CHECK(symlink(t, link) == 0);
    jv_err_clear(&err);
    CHECK(jv_publish_begin(&p, link, &err) == JV_ERR_USAGE && strstr(err.msg, "symbolic link"));
}

static void test_stale_temporaries(void) {
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    char rel[128];
    snprintf(rel, sizeof rel, "r.md.jv-tmp-%ld-AbC123", (long)dead);
    put(rel, "dead");
    char live[128];
    snprintf(live, sizeof live, "r.md.jv-tmp-%ld-AbC123", (long)getppid());
    put(live, "live");
    put("r.md.jv-tmp-12x-AbC123", "not a temporary name");
    char path[256];
    path_of(path, sizeof path, "r.md");
    jv_out o;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_out_open(&o, path, &err) == JV_OK);
    CHECK(strstr(o.tmp, ".jv-tmp-") != NULL && access(o.tmp, F_OK) == 0);
    fputs("new", o.f);
    CHECK(jv_out_commit(&o, &err) == JV_OK);
    CHECK(!exists(rel) && exists(live) && exists("r.md.jv-tmp-12x-AbC123"));
    CHECK(read_is("r.md", "new"));
}

static int rm_rf(const char *path) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    return system(cmd);
}

int main(void) {
    snprintf(g_root, sizeof g_root, "/tmp/jv_test_publish.XXXXXX");
    if (!mkdtemp(g_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_runs();
    test_lock_and_failure();
    test_leftovers();
    test_refused();
    test_stale_temporaries();
    rm_rf(g_root);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
