/* Stand-in: the marker (ROCTx) tracing types live in rocprofiler.h. */
#include "rocprofiler-sdk/rocprofiler.h"
