/* test_json_stream: unit tests for the jv_json cursor (analysis/jv_json.h):
 * nesting, truncation (a streaming walker on every prefix) and iteration.
 * Values, strings and numbers: test_json.c; the helpers: test_json.h.
 * Plain C11, no framework. Every input is copied into a heap buffer of its
 * exact length, so a read past the end of the range is caught by ASan.
 * Prints "N passed, N failed" as the last line; exits 1 on any failure. */
#include "test_json.h"
/* ---------- nesting ---------- */

static char *nested(int depth, int obj, size_t *n) {
    /* obj: {"a":{"a":...1...}} else [[...1...]] */
    size_t cap = (size_t)depth * 6 + 8;
    char *s = malloc(cap);
    size_t o = 0;
    for (int i = 0; i < depth; i++) {
        if (obj) {
            memcpy(s + o, "{\"a\":", 5);
            o += 5;
        } else {
            s[o++] = '[';
        }
    }
    s[o++] = '1';
    for (int i = 0; i < depth; i++)
        s[o++] = obj ? '}' : ']';
    *n = o;
    return s;
}

static void test_nesting(void) {
    static const int depths[] = {1, 100, 500, 511, 512, 513, 600, 1000, 100000};
    for (int obj = 0; obj <= 1; obj++) {
        for (size_t i = 0; i < sizeof depths / sizeof *depths; i++) {
            int d = depths[i];
            size_t n;
            char *s = nested(d, obj, &n);
            const char *err = NULL;
            size_t used = 0;
            jv_jres r = skip_n(s, n, 1, &err, &used);
            if (d <= JV_JSON_MAX_DEPTH) {
                CHECK_MSG(r == JV_J_OK && used == n, "%s nesting %d -> %s (%s)", obj ? "object" : "array", d,
                          res_name(r), err ? err : "");
            } else {
                CHECK_MSG(r == JV_J_BAD, "%s nesting %d -> %s, want BAD", obj ? "object" : "array", d, res_name(r));
                CHECK_MSG(err && strstr(err, "nesting"), "nesting %d message '%s'", d, err ? err : "(null)");
            }
            /* only the opening part: deep input is rejected before its end */
            if (d > JV_JSON_MAX_DEPTH) {
                size_t open_n = obj ? (size_t)d * 5 : (size_t)d;
                r = skip_n(s, open_n, 0, &err, NULL);
                CHECK_MSG(r == JV_J_BAD && err && strstr(err, "nesting"), "open-only nesting %d final=0 -> %s", d,
                          res_name(r));
            }
            free(s);
        }
    }
    /* mixed: [{"a":[{"a":... 600 levels */
    {
        size_t cap = 600 * 6 + 8, o = 0;
        char *s = malloc(cap);
        for (int i = 0; i < 600; i++) {
            if (i % 2) {
                memcpy(s + o, "{\"a\":", 5);
                o += 5;
            } else {
                s[o++] = '[';
            }
        }
        s[o++] = '0';
        for (int i = 599; i >= 0; i--)
            s[o++] = i % 2 ? '}' : ']';
        const char *err = NULL;
        CHECK_MSG(skip_n(s, o, 1, &err, NULL) == JV_J_BAD && err && strstr(err, "nesting"), "mixed nesting 600 is BAD");
        free(s);
    }
    /* many siblings at shallow depth are fine */
    {
        size_t n = 3 * 100000 + 2, o = 0;
        char *s = malloc(n);
        s[o++] = '[';
        for (int i = 0; i < 100000; i++) {
            s[o++] = '[';
            s[o++] = ']';
            if (i + 1 < 100000) s[o++] = ',';
        }
        s[o++] = ']';
        CHECK_MSG(skip_n(s, o, 1, NULL, NULL) == JV_J_OK, "100000 empty arrays in an array are OK");
        free(s);
    }
}

/* ---------- truncation ---------- */

/* A walker built from the cursor primitives, as a streaming reader would use them. */
static jv_jres walk(jv_jcur *c, int depth) {
    char ch;
    jv_jres r = jv_json_peek(c, &ch);
    if (r != JV_J_OK) return r;
    if (depth > 64) return jv_json_skip(c, NULL, NULL);
    if (ch == '{') {
        r = jv_json_expect(c, '{');
        if (r != JV_J_OK) return r;
        int first = 1;
        jv_jstr k;
        while ((r = jv_json_member(c, &first, &k)) == JV_J_OK) {
            r = walk(c, depth + 1);
            if (r != JV_J_OK) return r;
        }
        return r == JV_J_END ? JV_J_OK : r;
    }
    if (ch == '[') {
        r = jv_json_expect(c, '[');
        if (r != JV_J_OK) return r;
        int first = 1;
        while ((r = jv_json_element(c, &first)) == JV_J_OK) {
            r = walk(c, depth + 1);
            if (r != JV_J_OK) return r;
        }
        return r == JV_J_END ? JV_J_OK : r;
    }
    if (ch == '"') {
        jv_jstr s;
        return jv_json_string(c, &s);
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        const char *s;
        size_t n;
        return jv_json_number(c, &s, &n);
    }
    return jv_json_skip(c, NULL, NULL);
}

static void test_truncation_doc(const char *doc, size_t len) {
    int bad_more = 0, bad_final = 0;
    for (size_t k = 0; k <= len; k++) {
        char *b = dup_n(doc, k);
        for (int use_walk = 0; use_walk <= 1; use_walk++) {
            for (int final = 0; final <= 1; final++) {
                jv_jcur c;
                jv_json_init(&c, b, b + k, final);
                jv_jres r = use_walk ? walk(&c, 0) : jv_json_skip(&c, NULL, NULL);
                if (k == len) {
                    CHECK_MSG(r == JV_J_OK && c.p == b + len, "%s of the whole document (final=%d) -> %s (%s)",
                              use_walk ? "walk" : "skip", final, res_name(r), c.err ? c.err : "");
                } else if (!final) {
                    if (r != JV_J_MORE && bad_more++ < 5)
                        fprintf(stderr, "  prefix %zu/%zu (%s) final=0 -> %s (%s)\n", k, len,
                                use_walk ? "walk" : "skip", res_name(r), c.err ? c.err : "");
                    CHECK_MSG(r == JV_J_MORE, "prefix %zu final=0 needs more", k);
                } else {
                    int ok = r == JV_J_BAD && c.err && strstr(c.err, "unexpected end") && c.err_p == b + k;
                    if (!ok && bad_final++ < 5)
                        fprintf(stderr, "  prefix %zu/%zu (%s) final=1 -> %s (%s)\n", k, len,
                                use_walk ? "walk" : "skip", res_name(r), c.err ? c.err : "");
                    CHECK_MSG(ok, "prefix %zu final=1 is BAD 'unexpected end' at the end", k);
                }
            }
        }
        free(b);
    }
}

static void test_truncation(void) {
    static const char *const docs[] = {
        "{\"traceEvents\": [\n"
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1234, \"tid\": 1234,\n"
        "   \"ts\": 1695835585762907, \"dur\": 50.5, \"args\": {\"Input Dims\": [[64, 128], [128, 256]],\n"
        "   \"Input type\": [\"float\", \"float\"], \"External id\": 10}},\n"
        "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\u00e9\\\"\\n\\uD83D\\uDE00\", \"pid\": 0,\n"
        "   \"tid\": \"stream 7\", \"ts\": 4458676522690.655, \"dur\": -1.5e-3, \"args\": {\"a\": true,\n"
        "   \"b\": false, \"c\": null, \"d\": [], \"e\": {}, \"f\": -0, \"g\": 1E+2}}\n"
        "], \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}], \"x\": \"\\\\\\/\"}",
        "[1,-2.5e-3,true,false,null,\"\",[],{},{\"a\":[\"\\u0041\"]}]",
        "{}",
        "[]",
        "\"abc\\u00e9\"",
        "[0]",
        "{\"a\":{\"b\":{\"c\":[[[1e5]]]}}}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++)
        test_truncation_doc(docs[i], strlen(docs[i]));
}

/* ---------- iteration ---------- */

static void test_iteration(void) {
    /* a full object walk */
    {
        const char *doc = " { \"a\" : 1 , \"b\" : [ 2 , \"x\" , [ ] ] , \"c\":{} } ";
        size_t n = strlen(doc);
        char *b = dup_n(doc, n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 1);
        CHECK_MSG(jv_json_expect(&c, '{') == JV_J_OK, "iter: open object");
        int first = 1;
        jv_jstr k;
        jv_jres r = jv_json_member(&c, &first, &k);
        CHECK_MSG(r == JV_J_OK && jv_jstr_eq(&k, "a") && !first, "iter: member a");
        const char *s;
        size_t sn;
        CHECK_MSG(jv_json_number(&c, &s, &sn) == JV_J_OK && sn == 1 && *s == '1', "iter: value of a");
        r = jv_json_member(&c, &first, &k);
        CHECK_MSG(r == JV_J_OK && jv_jstr_eq(&k, "b"), "iter: member b");
        CHECK_MSG(jv_json_expect(&c, '[') == JV_J_OK, "iter: open array");
        int af = 1, count = 0;
        while ((r = jv_json_element(&c, &af)) == JV_J_OK) {
            count++;
            CHECK_MSG(jv_json_skip(&c, NULL, NULL) == JV_J_OK, "iter: element %d", count);
        }
        CHECK_MSG(r == JV_J_END && count == 3, "iter: array has 3 elements (%d, %s)", count, res_name(r));
        r = jv_json_member(&c, &first, &k);
        CHECK_MSG(r == JV_J_OK && jv_jstr_eq(&k, "c"), "iter: member c");
        CHECK_MSG(jv_json_expect(&c, '{') == JV_J_OK, "iter: open c");
        int cf = 1;
        CHECK_MSG(jv_json_member(&c, &cf, &k) == JV_J_END && cf == 1, "iter: empty object ends at once");
        r = jv_json_member(&c, &first, &k);
        CHECK_MSG(r == JV_J_END, "iter: object ends (%s)", res_name(r));
        char ch;
        CHECK_MSG(jv_json_peek(&c, &ch) == JV_J_BAD, "iter: nothing after the object (final)");
        free(b);
    }
    /* empty containers */
    {
        char *b = dup_n("[ ]", 3);
        jv_jcur c;
        jv_json_init(&c, b, b + 3, 1);
        int f = 1;
        CHECK_MSG(jv_json_expect(&c, '[') == JV_J_OK && jv_json_element(&c, &f) == JV_J_END && c.p == b + 3,
                  "iter: empty array");
        free(b);
    }

    /* errors: each document is walked with member/element and must end BAD with a message */
    typedef struct {
        const char *doc;
        const char *msg; /* substring of the message, or NULL */
    } err_case;
    static const err_case errs[] = {
        {"{\"a\":1,}", "string"},                               /* trailing comma in an object */
        {"[1,]", "value"},                                      /* trailing comma in an array */
        {"[1,,2]", "value"},      {"{\"a\" 1}", "':'"},         /* missing colon */
        {"{\"a\"}", "':'"},       {"{\"a\":1 \"b\":2}", "','"}, /* missing comma */
        {"[1 2]", "','"},         {"{1:2}", "string"},          /* non-string key */
        {"{a:1}", "string"},      {"{,}", "string"},
        {"{,\"a\":1}", "string"}, {"[,1]", "value"},
        {"{\"a\":}", "value"},    {"{\"a\":1;\"b\":2}", "','"},
        {"[1;2]", "','"},         {"{\"a\":1]", "','"},
        {"[1}", "','"},           {"{\"a\"::1}", "value"},
    };
    for (size_t i = 0; i < sizeof errs / sizeof *errs; i++) {
        const char *doc = errs[i].doc;
        size_t n = strlen(doc);
        char *b = dup_n(doc, n);
        for (int final = 0; final <= 1; final++) {
            jv_jcur c;
            jv_json_init(&c, b, b + n, final);
            jv_jres r = walk(&c, 0);
            CHECK_MSG(r == JV_J_BAD && c.err, "walk(%s) final=%d -> %s, want BAD", doc, final, res_name(r));
            if (r == JV_J_BAD && c.err && errs[i].msg)
                CHECK_MSG(strstr(c.err, errs[i].msg) != NULL, "walk(%s) message '%s' should mention %s", doc, c.err,
                          errs[i].msg);
            if (r == JV_J_BAD) CHECK_MSG(c.err_p >= b && c.err_p <= b + n, "walk(%s) err_p inside the input", doc);
            const char *err = NULL;
            CHECK_MSG(skip_n(doc, n, final, &err, NULL) == JV_J_BAD && err, "skip(%s) final=%d is BAD", doc, final);
        }
        free(b);
    }
    /* element(): a trailing comma is only caught by the value read after it */
    {
        const char *doc = "[1,]";
        char *b = dup_n(doc, 4);
        jv_jcur c;
        jv_json_init(&c, b, b + 4, 1);
        int f = 1;
        jv_json_expect(&c, '[');
        CHECK_MSG(jv_json_element(&c, &f) == JV_J_OK, "element 1");
        jv_json_skip(&c, NULL, NULL);
        CHECK_MSG(jv_json_element(&c, &f) == JV_J_OK, "element after the trailing comma reports a value follows");
        CHECK_MSG(jv_json_skip(&c, NULL, NULL) == JV_J_BAD && c.err_p == b + 3, "the value after ',' is BAD at ']'");
        free(b);
    }
    /* member(): the error position of a missing colon */
    {
        const char *doc = "{\"key\" 1}";
        size_t n = strlen(doc);
        char *b = dup_n(doc, n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 1);
        int f = 1;
        jv_jstr k;
        jv_json_expect(&c, '{');
        CHECK_MSG(jv_json_member(&c, &f, &k) == JV_J_BAD && c.err_p == b + 7, "missing colon reported at the value");
        free(b);
    }
    /* member()/element() truncated right after the opener */
    {
        char *b = dup_n("{ ", 2);
        jv_jcur c;
        jv_json_init(&c, b, b + 2, 0);
        int f = 1;
        jv_jstr k;
        jv_json_expect(&c, '{');
        CHECK_MSG(jv_json_member(&c, &f, &k) == JV_J_MORE, "member at the end, final=0 needs more");
        jv_json_init(&c, b + 1, b + 2, 1);
        f = 1;
        CHECK_MSG(jv_json_member(&c, &f, &k) == JV_J_BAD, "member at the end, final=1 is BAD");
        free(b);
    }
}
int main(void) {
    test_nesting();
    test_truncation();
    test_iteration();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
