/* jv_publish: an output folder published atomically per run.
 *
 * A run writes every file into a fresh private folder beside the target
 * (PARENT/.BASE.jv-new-XXXXXX, mkdtemp, mode 0700) and publishes it by
 * renaming: a reader of OUT sees the whole earlier run or the whole new one,
 * never a mix, and nothing of the earlier run survives. rename(2) replaces a
 * directory only when the one it replaces is empty (ENOTEMPTY otherwise), so
 * an existing OUT is swapped, not overwritten:
 *
 *   1. lock:    OUT.lock beside OUT (open O_CREAT | O_NOFOLLOW, flock
 *               LOCK_EX | LOCK_NB); held by another run: refused at once;
 *   2. clean:   PARENT/.BASE.jv-new-XXXXXX and .BASE.jv-old-XXXXXX that a
 *               killed run left are removed (under the lock, so none is live);
 *   3. stage:   mkdtemp PARENT/.BASE.jv-new-XXXXXX; the run writes into it
 *               (every file through jv_out: private temporary names, O_EXCL);
 *   4. publish: chmod the stage to 0777 & ~umask, then
 *               - no OUT:   rename(stage, OUT);
 *               - OUT dir:  renameat2(stage, OUT, RENAME_EXCHANGE): one atomic
 *                 swap, the earlier run now under the stage's name;
 *                 where the filesystem has no exchange (EINVAL, ENOSYS):
 *                 rename(OUT, PARENT/.BASE.jv-old-XXXXXX), rename(stage, OUT)
 *                 (between the two OUT is missing: a reader sees no folder,
 *                 never a mix; a failed second rename puts the old one back);
 *   5. remove:  the earlier run's tree (nftw, FTW_PHYS: links are removed,
 *               never followed); a kill here leaves it under a .jv- name
 *               that step 2 of the next run removes;
 *   6. unlock:  OUT.lock is unlinked while held, then closed.
 *
 * A failed run (any error before step 4, a full disk included) removes its
 * stage and leaves OUT exactly as it was. Not a guarantee against power loss
 * (files are not fsync'ed). OUT must not be "", "/", "." or "..", nor a
 * symbolic link, nor an existing non-directory; an existing directory is
 * replaced only when it is empty or is an earlier output (it holds
 * report.html and perf_report_csvs/), so that a mistyped -o never deletes a
 * folder of other files. */
#ifndef JV_PUBLISH_H
#define JV_PUBLISH_H

#include "jv_status.h"

typedef struct {
    char *target;    /* OUT, trailing slashes dropped */
    char *parent;    /* its folder ("." for a bare name) */
    char *base;      /* its last component */
    char *lock;      /* OUT.lock */
    char *stage;     /* the private folder this run writes into; NULL once published */
    int lock_fd;     /* -1 when not held */
    int no_exchange; /* tests: 1 takes the path of a filesystem without RENAME_EXCHANGE (set after begin) */
} jv_publish;

/* Steps 1-3: checks target, creates its missing parent folders, takes the
 * lock, removes what killed runs left and creates the stage (p->stage: the
 * folder to write into). JV_ERR_USAGE naming target for a target that cannot
 * be published (see above) or a folder that is not an earlier output;
 * JV_ERR_IO naming target when another run holds the lock ("another run is
 * writing it") or a folder cannot be created. On failure nothing is held. */
jv_status jv_publish_begin(jv_publish *p, const char *target, jv_err *err);

/* Steps 4-6: publishes the stage as the target and removes the earlier run.
 * JV_ERR_IO naming target when the renames fail (the target is then as it
 * was and the stage is removed). Releases everything either way. */
jv_status jv_publish_commit(jv_publish *p, jv_err *err);

/* After a failed run: removes the stage, releases the lock; the target is
 * untouched. When err holds a message naming a file in the stage, the stage's
 * name in it is replaced by the target's (the user never saw the stage).
 * Safe on a zeroed or already released jv_publish. */
void jv_publish_abort(jv_publish *p, jv_err *err);

#endif
