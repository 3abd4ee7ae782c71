/* jv_json: a validating, allocation-free JSON cursor over a byte range that may
 * be only a prefix of the input. Every call either completes, reports that
 * more input is needed (JV_J_MORE: the caller refills and re-parses the
 * enclosing value from its start), or rejects the text with a message. */
#ifndef JV_JSON_H
#define JV_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    JV_J_OK = 0, /* a value or member was read */
    JV_J_END,    /* the object or array closed */
    JV_J_MORE,   /* the range ended inside the value and more input exists */
    JV_J_BAD     /* malformed (or, with final set, truncated) text; see err */
} jv_jres;

enum { JV_JSON_MAX_DEPTH = 512 };

typedef struct {
    const char *p;     /* next byte to read */
    const char *end;   /* end of the bytes available now */
    int final;         /* 1 when end is the end of the whole input */
    const char *err;   /* static message when JV_J_BAD was returned */
    const char *err_p; /* position of the problem */
} jv_jcur;

typedef struct {
    const char *s; /* raw bytes between the quotes */
    size_t n;
    int escaped; /* 1 when s holds backslash escapes (see jv_json_unescape) */
} jv_jstr;

/* Sets up a cursor over [p, end); final says whether more input can follow. */
void jv_json_init(jv_jcur *c, const char *p, const char *end, int final);

/* Skips whitespace and returns the next byte in *ch without consuming it. */
jv_jres jv_json_peek(jv_jcur *c, char *ch);

/* The first byte of [p, end) that is not JSON whitespace (space, \n, \r, \t); end when there is none. */
const char *jv_json_skip_ws(const char *p, const char *end);

/* Consumes whitespace then exactly the byte ch. */
jv_jres jv_json_expect(jv_jcur *c, char ch);

/* Reads a string (whitespace first); escapes are validated, not decoded. */
jv_jres jv_json_string(jv_jcur *c, jv_jstr *out);

/* Reads a number (whitespace first) and returns its validated text in *s, *n. */
jv_jres jv_json_number(jv_jcur *c, const char **s, size_t *n);

/* jv_json_number, and where the number is 1 to 18 plain digits without a leading zero (no sign, fraction or
 * exponent) also its value in *v with *plain = 1 (else *plain = 0), read in the same pass. */
jv_jres jv_json_number_u(jv_jcur *c, const char **s, size_t *n, uint64_t *v, int *plain);

/* Skips one complete value of any type (whitespace first), validating it fully.
 * Nesting deeper than JV_JSON_MAX_DEPTH is rejected. *s,*n (optional) get the
 * value's raw text. */
jv_jres jv_json_skip(jv_jcur *c, const char **s, size_t *n);

/* Object iteration: call with *first = 1 right after the '{' was consumed.
 * Returns JV_J_OK with the key read and the ':' consumed, JV_J_END after '}'. */
jv_jres jv_json_member(jv_jcur *c, int *first, jv_jstr *key);

/* jv_json_member, then the whitespace after the ':': *ch gets the value's first byte (not consumed), as
 * jv_json_peek would. An entry's members (the window holds the whole entry): the value's blanks must fit too. */
jv_jres jv_json_member_value(jv_jcur *c, int *first, jv_jstr *key, char *ch);

/* Array iteration: call with *first = 1 right after '['. Returns JV_J_OK when
 * a value follows (not consumed), JV_J_END after ']'. */
jv_jres jv_json_element(jv_jcur *c, int *first);

/* Decodes a validated escaped string into dst (capacity >= n bytes suffices),
 * writing UTF-8; returns the decoded length. Invalid surrogates become U+FFFD. */
size_t jv_json_unescape(const char *s, size_t n, char *dst);

/* Compares a string token with a NUL-terminated literal (raw bytes). */
int jv_jstr_eq(const jv_jstr *a, const char *lit);

/* Parses a JSON number's text as a decimal count of microseconds into integer
 * nanoseconds (exact for up to 3 decimals, rounded beyond). Returns 0 when the
 * value is out of range (|x| >= 9.2e12 s) or not finite. */
int jv_json_us_to_ns(const char *s, size_t n, int64_t *out);

/* Parses an integer-valued number (plain digits, or a float with a zero
 * fraction such as 7.0). Returns 0 when not an exact int64. */
int jv_json_int64(const char *s, size_t n, int64_t *out);

#endif
