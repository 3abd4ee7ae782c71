/* Unit tests of the conv family against every row of the TraceLens CONV
 * sheets of amd_mi300x_resnet18_train and nv_h100_nsfw_vit_infer
 * (GFLOPS_first*1e9 == flops, MB*1048576 == bytes where TraceLens is right;
 * the deliberate fixes are asserted separately, in test_family_conv.c). The
 * helpers: test_family_conv.h. */
#include "test_family_conv.h"
static const char *const PARAM_NAMES[13] = {
    "convNd", "input_shape", "filter_shape", "dtype_input_weight", "input_stride",   "weight_stride", "bias",
    "stride", "padding",     "dilation",     "transposed_conv",    "output_padding", "groups"};

/* Rows of the TraceLens sheets, converted from their Python reprs to the JSON a trace holds. */
typedef struct {
    const char *name, *dims, *types, *strides, *concrete;
    double gflops, mb;
    const char *params[13];
} tl_row;

static const tl_row TL_ROWS[] = {
    /* amd_mi300x_resnet18_train/CONV_fwd.csv */
    {"aten::convolution",
     "[[512, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[200704, 3136, 56, 1], [576, 9, 3, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     118.380036096,
     392.0703125,
     {"conv2d", "(512, 64, 56, 56)", "(64, 64, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(200704, 3136, 56, 1)",
      "(576, 9, 3, 1)", "False", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[150528, 50176, 224, 1], [147, 49, 7, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     120.846286848,
     931.0179443359375,
     {"conv2d", "(512, 3, 224, 224)", "(64, 3, 7, 7)", "('c10::BFloat16', 'c10::BFloat16')", "(150528, 50176, 224, 1)",
      "(147, 49, 7, 1)", "False", "(2, 2)", "(3, 3)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 128, 28, 28], [128, 128, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[100352, 784, 28, 1], [1152, 9, 3, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     118.380036096,
     196.28125,
     {"conv2d", "(512, 128, 28, 28)", "(128, 128, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(100352, 784, 28, 1)",
      "(1152, 9, 3, 1)", "False", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 256, 14, 14], [256, 256, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[50176, 196, 14, 1], [2304, 9, 3, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     118.380036096,
     99.125,
     {"conv2d", "(512, 256, 14, 14)", "(256, 256, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(50176, 196, 14, 1)",
      "(2304, 9, 3, 1)", "False", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 512, 7, 7], [512, 512, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[25088, 49, 7, 1], [4608, 9, 3, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     118.380036096,
     53.5,
     {"conv2d", "(512, 512, 7, 7)", "(512, 512, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(25088, 49, 7, 1)",
      "(4608, 9, 3, 1)", "False", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[200704, 3136, 56, 1], [576, 9, 3, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     59.190018048,
     294.140625,
     {"conv2d", "(512, 64, 56, 56)", "(128, 64, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(200704, 3136, 56, 1)",
      "(576, 9, 3, 1)", "False", "(2, 2)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 128, 28, 28], [256, 128, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[100352, 784, 28, 1], [1152, 9, 3, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     59.190018048,
     147.5625,
     {"conv2d", "(512, 128, 28, 28)", "(256, 128, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(100352, 784, 28, 1)",
      "(1152, 9, 3, 1)", "False", "(2, 2)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 64, 56, 56], [128, 64, 1, 1], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[200704, 3136, 56, 1], [64, 1, 1, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     6.576668672,
     294.015625,
     {"conv2d", "(512, 64, 56, 56)", "(128, 64, 1, 1)", "('c10::BFloat16', 'c10::BFloat16')", "(200704, 3136, 56, 1)",
      "(64, 1, 1, 1)", "False", "(2, 2)", "(0, 0)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[50176, 196, 14, 1], [2304, 9, 3, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     59.190018048,
     75.75,
     {"conv2d", "(512, 256, 14, 14)", "(512, 256, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(50176, 196, 14, 1)",
      "(2304, 9, 3, 1)", "False", "(2, 2)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 128, 28, 28], [256, 128, 1, 1], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[100352, 784, 28, 1], [128, 1, 1, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     6.576668672,
     147.0625,
     {"conv2d", "(512, 128, 28, 28)", "(256, 128, 1, 1)", "('c10::BFloat16', 'c10::BFloat16')", "(100352, 784, 28, 1)",
      "(128, 1, 1, 1)", "False", "(2, 2)", "(0, 0)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution",
     "[[512, 256, 14, 14], [512, 256, 1, 1], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[[50176, 196, 14, 1], [256, 1, 1, 1], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     6.576668672,
     73.75,
     {"conv2d", "(512, 256, 14, 14)", "(512, 256, 1, 1)", "('c10::BFloat16', 'c10::BFloat16')", "(50176, 196, 14, 1)",
      "(256, 1, 1, 1)", "False", "(2, 2)", "(0, 0)", "(1, 1)", "False", "(0, 0)", "1"}},
    /* amd_mi300x_resnet18_train/CONV_bwd.csv */
    {"aten::convolution_backward",
     "[[512, 64, 56, 56], [512, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[200704, 3136, 56, 1], [200704, 3136, 56, 1], [576, 9, 3, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     236.760072192,
     784.140625,
     {"conv2d", "(512, 64, 56, 56)", "(64, 64, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(200704, 3136, 56, 1)",
      "(576, 9, 3, 1)", "[]", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 128, 28, 28], [512, 128, 28, 28], [128, 128, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[100352, 784, 28, 1], [100352, 784, 28, 1], [1152, 9, 3, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     236.760072192,
     392.5625,
     {"conv2d", "(512, 128, 28, 28)", "(128, 128, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(100352, 784, 28, 1)",
      "(1152, 9, 3, 1)", "[]", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 256, 14, 14], [512, 256, 14, 14], [256, 256, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[50176, 196, 14, 1], [50176, 196, 14, 1], [2304, 9, 3, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     236.760072192,
     198.25,
     {"conv2d", "(512, 256, 14, 14)", "(256, 256, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(50176, 196, 14, 1)",
      "(2304, 9, 3, 1)", "[]", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 512, 7, 7], [512, 512, 7, 7], [512, 512, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[25088, 49, 7, 1], [25088, 49, 7, 1], [4608, 9, 3, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     236.760072192,
     107.0,
     {"conv2d", "(512, 512, 7, 7)", "(512, 512, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(25088, 49, 7, 1)",
      "(4608, 9, 3, 1)", "[]", "(1, 1)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 64, 112, 112], [512, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[802816, 12544, 112, 1], [150528, 50176, 224, 1], [147, 49, 7, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[False, True, "
     "False]\"]",
     241.692573696,
     1862.035888671875,
     {"conv2d", "(512, 3, 224, 224)", "(64, 3, 7, 7)", "('c10::BFloat16', 'c10::BFloat16')", "(150528, 50176, 224, 1)",
      "(147, 49, 7, 1)", "[]", "(2, 2)", "(3, 3)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 128, 28, 28], [512, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[100352, 784, 28, 1], [200704, 3136, 56, 1], [576, 9, 3, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     118.380036096,
     588.28125,
     {"conv2d", "(512, 64, 56, 56)", "(128, 64, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(200704, 3136, 56, 1)",
      "(576, 9, 3, 1)", "[]", "(2, 2)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 256, 14, 14], [512, 128, 28, 28], [256, 128, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[50176, 196, 14, 1], [100352, 784, 28, 1], [1152, 9, 3, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     118.380036096,
     295.125,
     {"conv2d", "(512, 128, 28, 28)", "(256, 128, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(100352, 784, 28, 1)",
      "(1152, 9, 3, 1)", "[]", "(2, 2)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 128, 28, 28], [512, 64, 56, 56], [128, 64, 1, 1], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[100352, 784, 28, 1], [200704, 3136, 56, 1], [64, 1, 1, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     13.153337344,
     588.03125,
     {"conv2d", "(512, 64, 56, 56)", "(128, 64, 1, 1)", "('c10::BFloat16', 'c10::BFloat16')", "(200704, 3136, 56, 1)",
      "(64, 1, 1, 1)", "[]", "(2, 2)", "(0, 0)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 512, 7, 7], [512, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[25088, 49, 7, 1], [50176, 196, 14, 1], [2304, 9, 3, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     118.380036096,
     151.5,
     {"conv2d", "(512, 256, 14, 14)", "(512, 256, 3, 3)", "('c10::BFloat16', 'c10::BFloat16')", "(50176, 196, 14, 1)",
      "(2304, 9, 3, 1)", "[]", "(2, 2)", "(1, 1)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 256, 14, 14], [512, 128, 28, 28], [256, 128, 1, 1], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[50176, 196, 14, 1], [100352, 784, 28, 1], [128, 1, 1, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     13.153337344,
     294.125,
     {"conv2d", "(512, 128, 28, 28)", "(256, 128, 1, 1)", "('c10::BFloat16', 'c10::BFloat16')", "(100352, 784, 28, 1)",
      "(128, 1, 1, 1)", "[]", "(2, 2)", "(0, 0)", "(1, 1)", "False", "(0, 0)", "1"}},
    {"aten::convolution_backward",
     "[[512, 512, 7, 7], [512, 256, 14, 14], [512, 256, 1, 1], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[[25088, 49, 7, 1], [50176, 196, 14, 1], [256, 1, 1, 1], [], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"[True, True, "
     "False]\"]",
     13.153337344,
     147.5,
     {"conv2d", "(512, 256, 14, 14)", "(512, 256, 1, 1)", "('c10::BFloat16', 'c10::BFloat16')", "(50176, 196, 14, 1)",
      "(256, 1, 1, 1)", "[]", "(2, 2)", "(0, 0)", "(1, 1)", "False", "(0, 0)", "1"}},
    /* nv_h100_nsfw_vit_infer/CONV_fwd.csv */
    {"aten::convolution",
     "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"Scalar\", \"ScalarList\", \"Scalar\"]",
     "[[150528, 50176, 224, 1], [768, 256, 16, 1], [1], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
     0.924844032,
     3.421875,
     {"conv2d", "(4, 3, 224, 224)", "(768, 3, 16, 16)", "('c10::BFloat16', 'c10::BFloat16')", "(150528, 50176, 224, 1)",
      "(768, 256, 16, 1)", "False", "(16, 16)", "(0, 0)", "(1, 1)", "False", "(0, 0)", "1"}},
};

/* Every TraceLens row: flops/bytes equal TraceLens' where it is right; params
 * equal its strings except convolution_backward's bias ("[]" there). */
static void test_tracelens_rows(void) {
    char buf[256];
    for (size_t r = 0; r < sizeof TL_ROWS / sizeof TL_ROWS[0]; r++) {
        const tl_row *t = &TL_ROWS[r];
        jv_desc d;
        CHECK(parse(t->name, t->dims, t->types, t->strides, t->concrete, &d) == JV_OK);
        const jv_conv_desc *g = jv_conv_of(&d);
        jv_perf p = model(&d);
        double tl_flops = t->gflops * 1e9, tl_bytes = t->mb * 1048576.0;
        int bwd = !strcmp(t->name, "aten::convolution_backward");
        CHECK(d.bwd == bwd);
        CHECK(p.matrix == 1 && p.dtype == JV_DT_BF16);
        if (bwd && !g->output_mask[0]) {
            /* first layer, mask [False, True, False]: grad_weight only = half of TraceLens' two grads */
            EXPECT_NUM(p.flops, tl_flops / 2);
            EXPECT_NUM(p.bytes, tl_bytes / 2);
        } else if (g->has_bias) {
            /* nsfw patch embedding with bias [768]: checked by hand in test_nsfw_bias */
            CHECK(!bwd);
        } else {
            EXPECT_NUM(p.flops, tl_flops);
            EXPECT_NUM(p.bytes, tl_bytes);
        }
        jv_params ps;
        ps.n = 0;
        jv_conv_family.params(&d, &ps);
        CHECK(ps.n == 13);
        for (int i = 0; i < 13 && i < ps.n; i++) {
            EXPECT_STR(ps.p[i].name, PARAM_NAMES[i]);
            if (!strcmp(PARAM_NAMES[i], "bias")) continue;
            EXPECT_STR(ps.p[i].text, t->params[i]);
        }
        /* bias: TraceLens prints "[]" (backward) or False (forward, even with a bias) */
        EXPECT_STR(param(&d, "bias", buf, sizeof buf), g->has_bias ? "True" : "False");
    }
}
int main(void) {
    test_tracelens_rows();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
