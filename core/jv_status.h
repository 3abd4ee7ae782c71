/* jv_status: the project's error values and the CHECK idiom.
 * Every fallible function returns a jv_status; a jv_err carries the first
 * human-readable message (naming the file and the problem) up to main. */
#ifndef JV_STATUS_H
#define JV_STATUS_H

#include <stdarg.h>

typedef enum {
    JV_OK = 0,
    JV_ERR_USAGE,     /* bad command line */
    JV_ERR_IO,        /* open/read/write/rename failed */
    JV_ERR_NOMEM,     /* allocation failed or size overflow */
    JV_ERR_FORMAT,    /* input is not what it claims (bad gzip, bad JSON, bad trace) */
    JV_ERR_TRUNCATED, /* input ends early */
    JV_ERR_LIMIT,     /* input exceeds a documented limit (nesting, token size) */
    JV_ERR_NOTFOUND,  /* a requested item does not exist */
    JV_ERR_INTERNAL,  /* a broken invariant: a bug */
    JV_ERR_DEVICE     /* the device context is unusable (a sticky GPU error such as an illegal address):
                       * nothing more can run on it until it is reopened */
} jv_status;

/* The first error of an operation: its status, message and where it was raised. */
typedef struct {
    jv_status code;
    const char *file; /* source file that raised it */
    int line;
    char msg[512];
} jv_err;

/* Returns a short constant name for a status ("ok", "i/o error", ...). Never NULL. */
const char *jv_status_str(jv_status s);

/* Records an error in err (if err is non-NULL and holds no error yet) and returns code.
 * The message is printf-formatted; it should name the file and the problem. */
jv_status jv_err_set(jv_err *err, jv_status code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Clears err to "no error". */
void jv_err_clear(jv_err *err);

/* Raise: record a formatted error and return its status from the current function. */
#define JV_FAIL(err, code, ...) return jv_err_set((err), (code), __FILE__, __LINE__, __VA_ARGS__)

/* Propagate: evaluate a jv_status expression and return it early when it is not JV_OK. */
#define JV_CHECK(expr)                                                                                                 \
    do {                                                                                                               \
        jv_status jv_check_s_ = (expr);                                                                                \
        if (jv_check_s_ != JV_OK) return jv_check_s_;                                                                  \
    } while (0)

/* Like JV_CHECK, but jumps to a cleanup label with the status stored in var. */
#define JV_CHECK_GOTO(expr, var, label)                                                                                \
    do {                                                                                                               \
        (var) = (expr);                                                                                                \
        if ((var) != JV_OK) goto label;                                                                                \
    } while (0)

#endif
