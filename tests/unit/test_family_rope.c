/* Unit tests of the rope family (kernels/rope): vLLM's rotary_embedding, hand-computed FLOPs/bytes,
 * params and hostile calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rope/rope.h"

#define JV_TEST_FAMILY jv_rope_family
#include "jv_test_family.h"

#define TYPES "[\"long int\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"c10::BFloat16\", \"Scalar\"]"

static void test_models(void) {
    jv_desc d;
    /* 8 tokens, 32 query heads and 8 key heads of 128, the whole head rotated (cache [4096, 128]):
     * FLOPs = 3 * 8 * (32 + 8) * 128 = 122880;
     * bytes = 2 * (8*4096 + 8*1024) * 2 + 8 * 8 (positions) + 8 * 128 * 2 (cos/sin rows) = 165952 */
    CHECK(parse("_C::rotary_embedding", "[[8], [8, 4096], [8, 1024], [], [4096, 128], []]", TYPES, NULL,
                "[\"\", \"\", \"\", \"128\", \"\", \"True\"]", &d) == JV_OK);
    const jv_rope_desc *g = jv_rope_of(&d);
    CHECK(g->tokens == 8 && g->heads_q == 32 && g->heads_k == 8 && g->rot == 128 && g->neox);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 122880.0);
    CHECK_NEAR(p.bytes, 165952.0);
    CHECK(!strcmp(param(&d, "rotary_dim"), "128"));
    /* no key (MLA-style), [T, H, D] query, half the head rotated (cache [4096, 64]), GPT-J style:
     * FLOPs = 3 * 8 * 32 * 64 = 49152; bytes = 2 * 32768 * 2 + 64 + 8 * 64 * 2 = 132160 */
    CHECK(parse("_C::rotary_embedding", "[[8], [8, 32, 128], [], [], [4096, 64], []]",
                "[\"long int\", \"c10::BFloat16\", \"\", \"Scalar\", \"c10::BFloat16\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"128\", \"\", \"False\"]", &d) == JV_OK);
    g = jv_rope_of(&d);
    CHECK(!g->has_key && g->heads_k == 0 && !g->neox);
    p = model(&d);
    CHECK_NEAR(p.flops, 49152.0);
    CHECK_NEAR(p.bytes, 132160.0);
    CHECK(jv_rope_family.match("_C::rotary_embedding") == JV_MATCH_STRONG);
    CHECK(jv_rope_family.match("aten::rotary") == JV_MATCH_NONE);
}

static void test_hostile(void) {
    jv_desc d;
    const char *dims = "[[8], [8, 4096], [8, 1024], [], [4096, 128], []]";
    /* head_size not recorded, not dividing the query, a rotary dim wider than the head or odd */
    CHECK(parse("_C::rotary_embedding", dims, TYPES, NULL, "[\"\", \"\", \"\", \"\", \"\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("_C::rotary_embedding", dims, TYPES, NULL, "[\"\", \"\", \"\", \"100\", \"\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("_C::rotary_embedding", "[[8], [8, 4096], [8, 1024], [], [4096, 256], []]", TYPES, NULL,
                "[\"\", \"\", \"\", \"128\", \"\", \"True\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("_C::rotary_embedding", "[[8], [8, 4096], [8, 1024], [], [4096, 63], []]", TYPES, NULL,
                "[\"\", \"\", \"\", \"128\", \"\", \"True\"]", &d) == JV_ERR_FORMAT);
    /* tokens disagree between positions and query; shapes missing */
    CHECK(parse("_C::rotary_embedding", "[[7], [8, 4096], [8, 1024], [], [4096, 128], []]", TYPES, NULL,
                "[\"\", \"\", \"\", \"128\", \"\", \"True\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("_C::rotary_embedding", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
}

int main(void) {
    test_models();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
