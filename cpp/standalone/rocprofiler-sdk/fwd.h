/* Stand-in: the whole rocprofiler-sdk subset lives in rocprofiler.h. */
#include "rocprofiler-sdk/rocprofiler.h"
