/* jv_publish: stage, lock, swap, remove (the sequence is in jv_publish.h). */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE (glibc 2.28) */
#include "jv_publish.h"

#include "jv_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEW_TAG ".jv-new-"
#define OLD_TAG ".jv-old-"

static char *str_cat3(const char *a, const char *b, const char *c) {
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *s = malloc(na + nb + nc + 1);
    if (!s) return NULL;
    memcpy(s, a, na);
    memcpy(s + na, b, nb);
    memcpy(s + na + nb, c, nc + 1);
    return s;
}

/* PARENT/.BASE<tag>XXXXXX, a mkdtemp template */
static char *temp_name(const jv_publish *p, const char *tag) {
    size_t n = strlen(p->parent) + strlen(p->base) + strlen(tag) + 16;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/.%s%sXXXXXX", p->parent, p->base, tag);
    return s;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* removes the tree at path without following links; 0 on success */
static int remove_tree(const char *path) {
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 || errno == ENOENT ? 0 : -1;
}

/* 1 when name is "." BASE tag + 6 characters (a stage or an old run of BASE) */
static int leftover_name(const char *name, const char *base, const char *tag) {
    size_t nb = strlen(base), nt = strlen(tag);
    return name[0] == '.' && !strncmp(name + 1, base, nb) && !strncmp(name + 1 + nb, tag, nt) &&
           strlen(name + 1 + nb + nt) == 6;
}

/* step 2: what killed runs into this target left */
static void clean_leftovers(const jv_publish *p) {
    DIR *d = opendir(p->parent);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!leftover_name(e->d_name, p->base, NEW_TAG) && !leftover_name(e->d_name, p->base, OLD_TAG)) continue;
        char *path = str_cat3(p->parent, "/", e->d_name);
        if (path) remove_tree(path);
        free(path);
    }
    closedir(d);
}

/* 1 when dir is empty or holds an earlier output (report.html and perf_report_csvs/) */
static int replaceable(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int any = 0, html = 0, csvs = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        any = 1;
        html |= !strcmp(e->d_name, "report.html");
        csvs |= !strcmp(e->d_name, "perf_report_csvs");
    }
    closedir(d);
    return !any || (html && csvs);
}

static void release(jv_publish *p) {
    if (p->lock_fd >= 0) {
        unlink(p->lock); /* while held: a run that opened it before sees a stale inode and retries */
        close(p->lock_fd);
    }
    free(p->target);
    free(p->parent);
    free(p->base);
    free(p->lock);
    free(p->stage);
    memset(p, 0, sizeof *p);
    p->lock_fd = -1;
}

/* step 1: flock on OUT.lock; retried when the file was replaced between open and flock */
static jv_status take_lock(jv_publish *p, jv_err *err) {
    for (int tries = 0; tries < 8; tries++) {
        int fd = open(p->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0)
            JV_FAIL(err, JV_ERR_IO, "%s: cannot open the lock file %s: %s", p->target, p->lock, strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK)
                JV_FAIL(err, JV_ERR_IO,
                        "%s: another run is writing it (%s is locked); wait for it or choose another -o", p->target,
                        p->lock);
            JV_FAIL(err, JV_ERR_IO, "%s: cannot lock %s: %s", p->target, p->lock, strerror(e));
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && lstat(p->lock, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            p->lock_fd = fd;
            return JV_OK;
        }
        close(fd); /* unlinked by the run that held it: lock the new file */
    }
    JV_FAIL(err, JV_ERR_IO, "%s: cannot lock %s: it keeps being replaced", p->target, p->lock);
}

static jv_status check_target(const char *target, jv_err *err) {
    struct stat st;
    if (lstat(target, &st) != 0) {
        if (errno == ENOENT) return JV_OK;
        JV_FAIL(err, JV_ERR_IO, "%s: cannot inspect the output folder: %s", target, strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        JV_FAIL(err, JV_ERR_USAGE, "%s: the output folder is a symbolic link; name the folder itself", target);
    if (!S_ISDIR(st.st_mode)) JV_FAIL(err, JV_ERR_USAGE, "%s: exists and is not a folder", target);
    if (!replaceable(target))
        JV_FAIL(err, JV_ERR_USAGE,
                "%s: a folder of other files (not an earlier jarvis-analyze output): refusing to replace it; "
                "choose a new or empty folder",
                target);
    return JV_OK;
}

jv_status jv_publish_begin(jv_publish *p, const char *target, jv_err *err) {
    memset(p, 0, sizeof *p);
    p->lock_fd = -1;
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/')
        n--;
    if (n == 0) JV_FAIL(err, JV_ERR_USAGE, "-o \"\": the output folder needs a name");
    p->target = malloc(n + 1);
    if (!p->target) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", target);
    memcpy(p->target, target, n);
    p->target[n] = '\0';
    char *slash = strrchr(p->target, '/');
    const char *base = slash ? slash + 1 : p->target;
    if (!base[0] || !strcmp(base, ".") || !strcmp(base, "..")) {
        jv_status s =
            jv_err_set(err, JV_ERR_USAGE, __FILE__, __LINE__,
                       "%s: cannot be the output folder (the root, '.' or '..': name a folder of its own)", target);
        release(p);
        return s;
    }
    p->base = str_cat3(base, "", "");
    if (!slash)
        p->parent = str_cat3(".", "", "");
    else if (slash == p->target)
        p->parent = str_cat3("/", "", "");
    else {
        *slash = '\0';
        p->parent = str_cat3(p->target, "", "");
        *slash = '/';
    }
    p->lock = str_cat3(p->target, ".lock", "");
    if (!p->base || !p->parent || !p->lock) {
        release(p);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", target);
    }
    jv_status s = jv_mkdir_p(p->parent, err);
    if (s == JV_OK) s = take_lock(p, err);
    if (s == JV_OK) s = check_target(p->target, err);
    if (s == JV_OK) {
        clean_leftovers(p);
        p->stage = temp_name(p, NEW_TAG);
        if (!p->stage)
            s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", target);
        else if (!mkdtemp(p->stage)) {
            s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot create a private folder beside it: %s",
                           p->target, strerror(errno));
            free(p->stage);
            p->stage = NULL;
        }
    }
    if (s != JV_OK) release(p);
    return s;
}

/* step 4 when OUT exists and the filesystem cannot exchange: OUT aside, the stage in, or OUT back */
static int swap_by_two_renames(jv_publish *p, char **old, int *e) {
    *old = temp_name(p, OLD_TAG);
    if (!*old || !mkdtemp(*old)) {
        *e = *old ? errno : ENOMEM;
        return -1;
    }
    if (rename(p->target, *old) != 0) { /* onto the empty folder mkdtemp made */
        *e = errno;
        rmdir(*old);
        return -1;
    }
    if (rename(p->stage, p->target) != 0) {
        *e = errno;
        if (rename(*old, p->target) != 0) return -2; /* OUT is now under *old: said in the message */
        return -1;
    }
    return 0;
}

/* fsyncs every regular file and folder under the open folder dfd (links not followed), then dfd itself: 0, or
 * the errno of the first failure */
static int sync_tree(int dfd) {
    int d2 = dup(dfd);
    DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;
    if (!d) {
        int e = errno;
        if (d2 >= 0) close(d2);
        return e;
    }
    int e = 0;
    struct dirent *ent;
    while (!e && (ent = readdir(d)) != NULL) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dfd, ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            e = errno;
            break;
        }
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
        int fd = openat(dfd, ent->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
        if (fd < 0) {
            e = errno;
            break;
        }
        if (S_ISDIR(st.st_mode))
            e = sync_tree(fd);
        else if (fsync(fd) != 0)
            e = errno;
        close(fd);
    }
    closedir(d);
    if (!e && fsync(dfd) != 0 && errno != EINVAL) e = errno; /* EINVAL: a filesystem without fsync on folders */
    return e;
}

/* the stage's files and folders on disk before it replaces anything: a crash after the swap cannot leave OUT
 * with files the disk never got (a rename is durable before the data it names) */
static jv_status sync_stage(const jv_publish *p, jv_err *err) {
    int fd = open(p->stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = fd < 0 ? errno : sync_tree(fd);
    if (fd >= 0) close(fd);
    if (e) JV_FAIL(err, JV_ERR_IO, "%s: cannot write the new output to disk: %s", p->target, strerror(e));
    return JV_OK;
}

/* the parent folder on disk, so that the swap itself survives a crash (best effort: the output is complete
 * either way) */
static void sync_parent(const jv_publish *p) {
    int fd = open(p->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

jv_status jv_publish_commit(jv_publish *p, jv_err *err) {
    if (!p->stage) {
        release(p);
        JV_FAIL(err, JV_ERR_INTERNAL, "publish without a stage");
    }
    mode_t mask = umask(0);
    umask(mask);
    jv_status s = JV_OK;
    char *old = NULL; /* the earlier run, once aside */
    if (chmod(p->stage, 0777 & ~mask) != 0) {
        s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot set the folder's mode: %s", p->target,
                       strerror(errno));
    } else if ((s = sync_stage(p, err)) != JV_OK) {
    } else if (rename(p->stage, p->target) == 0) { /* no OUT, or an empty one */
    } else if (errno != EEXIST && errno != ENOTEMPTY) {
        s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot move the new output into place: %s", p->target,
                       strerror(errno));
    } else if (!p->no_exchange && renameat2(AT_FDCWD, p->stage, AT_FDCWD, p->target, RENAME_EXCHANGE) == 0) {
        old = p->stage; /* the earlier run, under the stage's name */
        p->stage = NULL;
    } else if (!p->no_exchange && errno != EINVAL && errno != ENOSYS) {
        s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot swap the new output into place: %s", p->target,
                       strerror(errno));
    } else {
        int e = 0, r = swap_by_two_renames(p, &old, &e);
        if (r == -2)
            s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__,
                           "%s: cannot move the new output into place (%s) nor the earlier one back: it is in %s",
                           p->target, strerror(e), old);
        else if (r != 0)
            s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot move the new output into place: %s",
                           p->target, strerror(e));
        if (r == -2) { /* keep the earlier run where the message says */
            free(old);
            old = NULL;
        }
    }
    if (s == JV_OK) {
        free(p->stage);
        p->stage = NULL;
        sync_parent(p);
    }
    if (old) remove_tree(old);
    free(old);
    jv_publish_abort(p, NULL);
    return s;
}

/* err's message with the stage's name replaced by the target's */
static void rename_in_message(const jv_publish *p, jv_err *err) {
    if (!err || !p->stage || !p->target) return;
    char *at = strstr(err->msg, p->stage);
    if (!at) return;
    char tail[sizeof err->msg];
    snprintf(tail, sizeof tail, "%s", at + strlen(p->stage));
    size_t head = (size_t)(at - err->msg);
    snprintf(at, sizeof err->msg - head, "%s%s", p->target, tail);
}

void jv_publish_abort(jv_publish *p, jv_err *err) {
    if (!p->target && p->lock_fd <= 0) return; /* zeroed or released */
    rename_in_message(p, err);
    if (p->stage) remove_tree(p->stage);
    release(p);
}
