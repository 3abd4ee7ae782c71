/* PLACEHOLDER: being written */
#include "jv_standalone.h"
typedef int jv_standalone_placeholder_;
