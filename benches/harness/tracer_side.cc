#include "tracer_side.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "sdk_capture.h"

namespace {

void* handle_symbol(void* handle, const char* name) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "tracer library has no %s\n", name);
    std::exit(2);
  }
  return symbol;
}

// The Rust C ABI takes options and returns XrtStatus; adapt it to int().
using XrtEnable = int (*)(const void*);
using XrtNoArgs = int (*)();
using XrtWrite = int (*)(const char*);
XrtEnable g_xrt_enable;
XrtNoArgs g_xrt_disable;
XrtWrite g_xrt_write;

int rust_enable() { return g_xrt_enable(nullptr); }
int rust_disable() { return g_xrt_disable(); }
int rust_write(const char* path) { return g_xrt_write(path); }

// XLA builds its pinned Abseil optimised (NDEBUG), where absl::Mutex skips deadlock detection;
// Debian's Abseil runs it on every lock (about 350 instructions per lock/unlock pair). run.sh
// finds the library (the side's own, or one of its dependencies) that defines
// absl::SetMutexDeadlockDetectionMode and names it and the symbol in BENCH_ABSL_DEADLOCK_LIB
// and BENCH_ABSL_DEADLOCK_SYMBOL; the mode is set to kIgnore (0) before the side's first lock
// when that library is a dependency, or right after loading when it is the side itself.
using SetDeadlockMode = void (*)(int);

bool absl_deadlock_detection_off(void* handle) {
  const char* symbol = std::getenv("BENCH_ABSL_DEADLOCK_SYMBOL");
  if (symbol == nullptr || *symbol == '\0' || handle == nullptr) return false;
  auto set_mode = reinterpret_cast<SetDeadlockMode>(dlsym(handle, symbol));
  if (set_mode == nullptr) {
    std::fprintf(stderr, "%s not found; Abseil deadlock detection stays as built\n", symbol);
    std::exit(2);
  }
  set_mode(0);  // absl::OnDeadlockCycle::kIgnore
  return true;
}

}  // namespace

TracerSide load_tracer_side(const std::string& side, const std::string& library) {
  sdk_symbol("rocprofiler_get_timestamp");  // loads the SDK first, globally
  const char* absl_lib = std::getenv("BENCH_ABSL_DEADLOCK_LIB");
  bool detection_off = false;
  if (absl_lib != nullptr && *absl_lib != '\0' && library != absl_lib) {
    // A dependency: loaded first, so the side binds to this same instance.
    detection_off = absl_deadlock_detection_off(dlopen(absl_lib, RTLD_NOW | RTLD_LOCAL));
  }
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", library.c_str(), dlerror());
    std::exit(2);
  }
  if (absl_lib != nullptr && library == absl_lib) {
    detection_off = absl_deadlock_detection_off(handle);
  }
  std::fprintf(stderr, "abseil deadlock detection: %s\n",
               detection_off ? "off (kIgnore)" : "as built");
  TracerSide tracer;
  tracer.name = side;
  if (side == "rust") {
    g_xrt_enable = reinterpret_cast<XrtEnable>(handle_symbol(handle, "xrt_enable"));
    g_xrt_disable = reinterpret_cast<XrtNoArgs>(handle_symbol(handle, "xrt_disable"));
    g_xrt_write = reinterpret_cast<XrtWrite>(handle_symbol(handle, "xrt_write_xspace"));
    // Registers with the SDK if the load-time constructor did not.
    reinterpret_cast<unsigned (*)()>(handle_symbol(handle, "xrt_num_gpus"))();
    tracer.enable = rust_enable;
    tracer.disable = rust_disable;
    tracer.write_xspace = rust_write;
    // benches/rust-tracer-so exports the standalone annotation stack the tracer reads.
    tracer.push_annotation = reinterpret_cast<void (*)(const char*)>(
        handle_symbol(handle, "bench_push_annotation"));
    tracer.pop_annotation =
        reinterpret_cast<void (*)()>(handle_symbol(handle, "bench_pop_annotation"));
  } else if (side == "cpp" || side == "xla" || side == "orig" || side == "floor" ||
             side == "export_floor") {
    // The same five functions under the library's prefix.
    const std::string prefix = side == "cpp" ? "baseline" : side == "xla" ? "xla_path" : side;
    auto fn = [&](const char* suffix) { return handle_symbol(handle, (prefix + suffix).c_str()); };
    tracer.enable = reinterpret_cast<int (*)()>(fn("_enable"));
    tracer.disable = reinterpret_cast<int (*)()>(fn("_disable"));
    tracer.write_xspace = reinterpret_cast<int (*)(const char*)>(fn("_write_xspace"));
    tracer.push_annotation =
        reinterpret_cast<void (*)(const char*)>(fn("_push_annotation"));
    tracer.pop_annotation = reinterpret_cast<void (*)()>(fn("_pop_annotation"));
  } else {
    std::fprintf(stderr, "unknown side %s (rust, xla, cpp, orig, floor or export_floor)\n", side.c_str());
    std::exit(2);
  }
  const CapturedCallbacks& cb = captured();
  if (cb.hip_stream == nullptr || cb.request == nullptr || cb.buffer == nullptr ||
      cb.hip_api == nullptr) {
    std::fprintf(stderr, "%s did not register its stream, HIP API, request and buffer callbacks\n",
                 side.c_str());
    std::exit(2);
  }
  return tracer;
}
