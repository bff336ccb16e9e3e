/* The C ABI (include/xla_rocm_tracer.h) in one capture: start, run GPU work, stop, write the
 * session as an XSpace (`*.xplane.pb`, what xprof and TensorBoard read).
 *
 * Build (from the repository root, after `cargo build -p xla-rocm-tracer -p rocprofiler-sdk-sim`;
 * the simulated SDK stands in for ROCm's librocprofiler-sdk.so):
 *
 *   mkdir -p target/c-example
 *   cp target/debug/librocprofiler_sdk_sim.so target/c-example/librocprofiler-sdk.so
 *   ln -sf librocprofiler-sdk.so target/c-example/librocprofiler-sdk.so.1
 *   cc -std=c11 -Wall -Wextra -Iinclude examples/c/capture.c target/debug/libxla_rocm_tracer.a \
 *      -Ltarget/c-example -lrocprofiler-sdk -lstdc++ -lpthread -ldl -lm -o target/c-example/capture
 *   LD_LIBRARY_PATH=target/c-example target/c-example/capture /tmp/capture.xplane.pb \
 *      scenarios/jax_matmul.toml
 *
 * With ROCm, link ROCm's librocprofiler-sdk.so instead and profile the program's own HIP calls.
 */
#include <stdio.h>

#include "xla_rocm_tracer.h"

/* The GPU work to profile. On the simulator, a scenario played by the simulator's driver: its
 * replay function is declared weak, so the example also links against the real SDK, which
 * lacks it. A real program makes its HIP calls here instead. */
extern int rocsim_replay_scenario(const char* path, char* error, size_t error_len)
    __attribute__((weak));

static int run_workload(const char* scenario) {
  if (scenario == NULL) return 0;
  if (rocsim_replay_scenario == NULL) {
    fprintf(stderr, "capture: replaying %s needs the simulated SDK\n", scenario);
    return 1;
  }
  char error[512];
  if (rocsim_replay_scenario(scenario, error, sizeof error) != 0) {
    fprintf(stderr, "capture: %s: %s\n", scenario, error);
    return 1;
  }
  return 0;
}

static int failed(const char* what, enum XrtStatus status) {
  fprintf(stderr, "capture: %s failed with status %d\n", what, (int)status);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s OUTPUT.xplane.pb [SCENARIO.toml]\n", argv[0]);
    return 2;
  }
  uint32_t major = 0, minor = 0, patch = 0;
  enum XrtStatus status = xrt_sdk_version(&major, &minor, &patch);
  if (status != XRT_STATUS_OK) return failed("xrt_sdk_version", status);
  printf("xla-rocm-tracer %s on rocprofiler-sdk %u.%u.%u, %u GPU(s)\n", xrt_version(), major,
         minor, patch, xrt_num_gpus());

  /* Caps as XLA's flags set them; a zero keeps XLA's default (null options: all defaults). */
  XrtCaptureOptions options = {0};
  options.max_annotation_strings = 1024;
  status = xrt_enable(&options);
  if (status != XRT_STATUS_OK) return failed("xrt_enable", status);

  int workload_failed = run_workload(argc == 3 ? argv[2] : NULL);

  /* Stopping delivers what the SDK still buffers to the capture, also after a failed run. */
  status = xrt_disable();
  if (status != XRT_STATUS_OK) return failed("xrt_disable", status);
  if (workload_failed) return 1;

  status = xrt_write_xspace(argv[1]);
  if (status != XRT_STATUS_OK) return failed("xrt_write_xspace", status);
  printf("wrote %s\n", argv[1]);
  return 0;
}
