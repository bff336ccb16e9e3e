// XLA's RocmTracer as a thin shim over the Rust tracer (src/tracer/, through src/ffi/tracer.rs);
// docs/ARCHITECTURE.md draws the flow.
//
// The Rust core owns everything rocprofiler-sdk: it exports `rocprofiler_configure`, creates
// the contexts and buffer, decodes the records and keeps the stream stacks. This file keeps
// the members XLA's header declares in step with it (context handles, agents, the collector,
// the annotation map) and picks where a session's events go:
//  * a collector from CreateRocmCollector is backed by the Rust collector: the session
//    delivers straight into it, and no event crosses into C++ (XLA's path);
//  * any other RocmTraceCollector gets each buffer callback's events in one crossing
//    (`deliver_events`), which calls its AddEvent; annotations are then recorded at HIP API
//    ENTER into `annotation_map_`, as XLA does.
// HipApiEvent, KernelEvent and MemcpyEvent decode one SDK record with the tracer's own decoder;
// kernel_info_ and name_info_ stay empty, since the Rust core keeps the kernel and API names.
#include "xla/backends/profiler/gpu/rocm_tracer.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "xla-rocm-tracer/cpp/absl_compat.h"
#include "xla-rocm-tracer/cpp/bridge_callbacks.h"
#include "xla-rocm-tracer/cpp/event_bridge.h"
#include "xla-rocm-tracer/cpp/log.h"
#include "xla-rocm-tracer/cpp/session_collector.h"
#include "xla-rocm-tracer/src/ffi/collector.rs.h"
#include "xla-rocm-tracer/src/ffi/host.rs.h"
#include "xla-rocm-tracer/src/ffi/tracer.rs.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/tsl/profiler/backends/cpu/annotation_stack.h"

namespace xla {
namespace profiler {
namespace {

namespace bridge = ::xla::profiler::rust_bridge;

// Set once the singleton is built; the bridge callbacks ignore calls before that.
std::atomic<RocmTracer*> g_tracer{nullptr};

std::string ToStdString(rust::Str text) { return std::string(text.data(), text.size()); }

// XLA's *Event functions: `event` becomes the record's event if the record is a buffer
// tracing record of `expected_kind`; otherwise it is marked invalid (source Invalid), which
// every collector drops.
void DecodeRecord(const rocprofiler_record_header_t* header, uint32_t expected_kind,
                  AnnotationMap& annotations, RocmTracerEvent* event) {
  if (event == nullptr) return;
  const char* error = nullptr;
  if (header == nullptr) {
    error = "null record header";
  } else if (header->category != ROCPROFILER_BUFFER_CATEGORY_TRACING ||
             header->kind != expected_kind) {
    error = "record of another kind";
  }
  if (error == nullptr) {
    // SAFETY of the bridge call: `header` is a live record header (this function's caller's
    // contract, as for XLA's own decoders).
    bridge::DecodedRecord decoded =
        bridge::tracer_decode_record(reinterpret_cast<const uint8_t*>(header));
    if (decoded.status.code == bridge::StatusCode::Ok) {
      *event = FromXrtEvent(decoded.event, annotations);
      return;
    }
    ROCM_SHIM_VLOG(2) << "rocprofiler record not decoded: " << ToStdString(decoded.status.message);
  } else {
    ROCM_SHIM_VLOG(2) << "rocprofiler record not decoded: " << error;
  }
  event->type = RocmTracerEventType::Unsupported;
  event->source = RocmTracerEventSource::Invalid;
  event->domain = RocmTracerEventDomain::InvalidDomain;
}

// Serializes Enable and Disable of the singleton. XLA holds collector_mutex_ across
// start_context; here Disable drains the session into the collector while it runs, so the
// lifecycle takes a lock of its own that no delivery takes. Leaked: used until exit.
absl::Mutex& LifecycleMutex() {
  static absl::Mutex* const mutex = new absl::Mutex();
  return *mutex;
}

absl::Status ToAbslStatus(const bridge::BridgeStatus& status) {
  std::string message = std::string(status.message);
  switch (status.code) {
    case bridge::StatusCode::Ok:
      return absl::OkStatus();
    case bridge::StatusCode::AlreadyExists:
      return absl::AlreadyExistsError(message);
    case bridge::StatusCode::Internal:
      break;
  }
  // XLA's Enable only ever returns AlreadyExists or Internal.
  return absl::InternalError(message);
}

}  // namespace

RocmTracer& RocmTracer::GetRocmTracerSingleton() {
  // Never destroyed: the Rust core's SDK threads may still deliver while statics are torn
  // down at exit.
  static RocmTracer* const tracer = [] {
    RocmTracer* created = new RocmTracer();
    absl::Status status = created->InitProfiling(nullptr);
    if (!status.ok()) {
      ROCM_SHIM_LOG(WARNING) << "ROCm tracer unavailable: " << status.message();
    }
    g_tracer.store(created, std::memory_order_release);
    return created;
  }();
  return *tracer;
}

// Registers the Rust core with rocprofiler-sdk (if its load-time constructor did not) and
// mirrors what it set up into XLA's members.
absl::Status RocmTracer::InitProfiling(void* /*tool_data*/) {
  bridge::ensure_registered();
  const bridge::TracerState state = bridge::tracer_state();
  utility_context_.handle = state.utility_context;
  context_.handle = state.context;
  buffer_.handle = state.buffer;
  hip_stream_ctx_.handle = state.hip_stream_context;
  gpu_agents_.resize(state.num_gpus);
  // SAFETY of the bridge call: the vector holds num_gpus agents of the size passed.
  size_t copied = bridge::tracer_copy_agents(/*gpus_only=*/true,
                                             reinterpret_cast<uint8_t*>(gpu_agents_.data()),
                                             gpu_agents_.size(), sizeof(rocprofiler_agent_v0_t));
  gpu_agents_.resize(std::min<size_t>(copied, gpu_agents_.size()));
  // Every agent, CPUs too, as XLA's InitProfiling fills agents_ (docs/xla-interface.md#initialization-order).
  std::vector<rocprofiler_agent_v0_t> all_agents(
      bridge::tracer_copy_agents(false, nullptr, 0, sizeof(rocprofiler_agent_v0_t)));
  copied = bridge::tracer_copy_agents(false, reinterpret_cast<uint8_t*>(all_agents.data()),
                                      all_agents.size(), sizeof(rocprofiler_agent_v0_t));
  all_agents.resize(std::min<size_t>(copied, all_agents.size()));
  for (const rocprofiler_agent_v0_t& agent : all_agents) agents_[agent.id.handle] = agent;
  num_gpus_ = static_cast<uint32_t>(gpu_agents_.size());
  if (!state.init_error.empty()) return absl::InternalError(std::string(state.init_error));
  return absl::OkStatus();
}

bool RocmTracer::IsAvailable() const {
  return !activity_tracing_enabled_ && !api_tracing_enabled_;
}

// Whether a session may start is the Rust tracer's decision alone (shared with the C ABI): a
// refused Enable leaves every member as it was.
absl::Status RocmTracer::Enable(const RocmTracerOptions& options,
                                RocmTraceCollector* collector) {
  if (collector == nullptr) {
    return absl::InvalidArgumentError("RocmTracer::Enable needs a collector");
  }
  absl::MutexLock lifecycle(XRT_MUTEX_LOCK_ARG(LifecycleMutex()));
  // The Rust tracer clears annotation_map_ (clear_hip_api_annotations) once it has accepted
  // the session and before its context starts, so the first calls' annotations are kept.
  bridge::SessionCollector* rust_collector = RustSessionOf(collector);
  absl::Status status = ToAbslStatus(
      rust_collector != nullptr
          ? bridge::tracer_enable_into(options.max_annotation_strings, *rust_collector)
          : bridge::tracer_enable_for_cpp_collector(options.max_annotation_strings,
                                                    reinterpret_cast<size_t>(collector)));
  if (!status.ok()) return status;
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
  roctx_generation_.fetch_add(1, std::memory_order_relaxed);
  options_ = options;
  collector_ = collector;
  api_tracing_enabled_ = true;
  activity_tracing_enabled_ = true;
  return absl::OkStatus();
}

void RocmTracer::Disable() {
  absl::MutexLock lifecycle(XRT_MUTEX_LOCK_ARG(LifecycleMutex()));
  // Stops the context and drains the buffer of the session Enable started (not a C ABI one):
  // every event of the session has reached the collector when this returns, and none will
  // after.
  bridge::tracer_disable();
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
  // XLA dereferences collector_ unconditionally (docs/xla-interface.md#xla-edge-4).
  if (collector_ == nullptr) return;
  collector_->Flush();
  collector_ = nullptr;
  options_.reset();
  api_tracing_enabled_ = false;
  activity_tracing_enabled_ = false;
}

uint64_t RocmTracer::GetTimestamp() { return bridge::tracer_timestamp(); }

// The Rust core is the rocprofiler-sdk tool: its own initialize already ran.
int RocmTracer::toolInit(rocprofiler_client_finalize_t /*finalize_func*/, void* tool_data) {
  return InitProfiling(tool_data).ok() ? 0 : -1;
}

// The Rust core's finalize (registered with the SDK) stops the contexts.
void RocmTracer::toolFinalize(void* /*tool_data*/) {}

// The Rust core owns the SDK buffer and delivers its events itself (straight into a Rust-backed
// collector, or through `deliver_events`), so the SDK never calls this.
void RocmTracer::TracingCallback(rocprofiler_context_id_t /*context*/,
                                 rocprofiler_buffer_id_t /*buffer_id*/,
                                 rocprofiler_record_header_t** /*headers*/,
                                 size_t /*num_headers*/, uint64_t /*drop_count*/) {}

void RocmTracer::HipApiEvent(const rocprofiler_record_header_t* hdr, RocmTracerEvent* ev) {
  DecodeRecord(hdr, ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, annotation_map_, ev);
}

void RocmTracer::KernelEvent(const rocprofiler_record_header_t* hdr, RocmTracerEvent* ev) {
  DecodeRecord(hdr, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, annotation_map_, ev);
}

void RocmTracer::MemcpyEvent(const rocprofiler_record_header_t* hdr, RocmTracerEvent* ev) {
  DecodeRecord(hdr, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, annotation_map_, ev);
}

// Kernel names are kept by the Rust core.
void RocmTracer::CodeObjectCallback(rocprofiler_callback_tracing_record_t /*record*/,
                                    void* /*callback_data*/) {}

// XLA's phases: push and mark at ENTER, pop at EXIT. The range stacks, the session generation
// and the delivery are the Rust tracer's (src/tracer/roctx.rs), shared with its own
// MARKER_CORE_API callback.
void RocmTracer::MarkerCallback(const rocprofiler_callback_tracing_record_t& record) {
  if (record.kind != ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API) return;
  const bool enter = record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
  const bool exit = record.phase == ROCPROFILER_CALLBACK_PHASE_EXIT;
  switch (record.operation) {
    case ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA:
    case ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA: {
      if (!enter) return;
      const char* message = nullptr;
      if (record.payload != nullptr) {
        const auto* data =
            static_cast<const rocprofiler_callback_tracing_marker_api_data_t*>(record.payload);
        message = data->args.roctxMarkA.message;
      }
      rust::Slice<const uint8_t> bytes;
      if (message != nullptr) {
        bytes = rust::Slice<const uint8_t>(reinterpret_cast<const uint8_t*>(message),
                                           std::strlen(message));
      }
      bridge::tracer_roctx_call(static_cast<int32_t>(record.operation), message != nullptr,
                                bytes, record.thread_id);
      return;
    }
    case ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop:
      if (exit) {
        bridge::tracer_roctx_call(static_cast<int32_t>(record.operation), false,
                                  rust::Slice<const uint8_t>(), record.thread_id);
      }
      return;
    default:
      return;
  }
}

absl::string_view RocmTracer::GetCurrentRoctxLabel() {
  // Valid until this thread's next call, as XLA's view into its frame is.
  thread_local std::string label;
  label = std::string(bridge::tracer_roctx_current_label());
  return label;
}

void RocmTracer::EmitMarkerEvent(std::string label, uint64_t start_ns, uint64_t end_ns,
                                 uint64_t tid) {
  bridge::tracer_roctx_emit(
      rust::Slice<const uint8_t>(reinterpret_cast<const uint8_t*>(label.data()), label.size()),
      start_ns, end_ns, tid);
}

// ---------------------------------------------------------------------------------------
// The bridge's C++ callbacks (declared in cpp/bridge_callbacks.h).
// ---------------------------------------------------------------------------------------

namespace rust_bridge {
namespace {

// Runs `body`, which may reach user code (a collector's AddEvent) or allocate. The bridge's
// C++ callbacks are noexcept to Rust, so an escaping exception would terminate the profiled
// program: it is logged instead. Builds without exceptions (XLA may use -fno-exceptions) run
// `body` as is.
template <typename Body>
void WithoutEscapingExceptions(const char* what, Body&& body) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  try {
    body();
  } catch (const std::exception& e) {
    ROCM_SHIM_LOG(ERROR) << what << " threw: " << e.what();
  } catch (...) {
    ROCM_SHIM_LOG(ERROR) << what << " threw a non-standard exception";
  }
#else
  body();
#endif
}

}  // namespace

void record_hip_api_annotation(uint64_t correlation_id) {
  RocmTracer* tracer = g_tracer.load(std::memory_order_acquire);
  if (tracer == nullptr) return;
  WithoutEscapingExceptions("recording the HIP API annotation", [&] {
    const std::string& annotation = tsl::profiler::AnnotationStack::Get();
    if (annotation.empty()) return;
    tracer->annotation_map()->Add(correlation_id, annotation,
                                  tsl::profiler::AnnotationStack::GetScopeRangeIds());
  });
}

void clear_hip_api_annotations() {
  RocmTracer* tracer = g_tracer.load(std::memory_order_acquire);
  if (tracer != nullptr) tracer->annotation_map()->Clear();
}

// Reached only in a session with a C++ collector, which Enable passed to the Rust tracer and
// which stays valid until Disable has drained the session.
void deliver_events(size_t collector, rust::Slice<const ::XrtEvent> events) {
  RocmTracer* tracer = g_tracer.load(std::memory_order_acquire);
  if (tracer == nullptr || collector == 0 || events.empty()) return;
  WithoutEscapingExceptions("delivering events to the collector", [&] {
    for (const ::XrtEvent& event : events) {
      reinterpret_cast<RocmTraceCollector*>(collector)->AddEvent(
          FromXrtEvent(event, *tracer->annotation_map()), /*is_auxiliary=*/false);
    }
  });
}

void deliver_dropped(size_t collector, rust::Str reason, uint64_t count) {
  if (collector == 0) return;
  WithoutEscapingExceptions("reporting dropped events to the collector", [&] {
    reinterpret_cast<RocmTraceCollector*>(collector)->OnEventsDropped(ToStdString(reason), count);
  });
}

int32_t shim_vlog_level() {
  if (VLOG_IS_ON(2)) return 2;
  if (VLOG_IS_ON(1)) return 1;
  return 0;
}

void log_from_rust(LogLevel level, rust::Str message) {
  switch (level) {
    case LogLevel::Error:
      ROCM_SHIM_LOG(ERROR) << ToStdString(message);
      break;
    case LogLevel::Warn:
      ROCM_SHIM_LOG(WARNING) << ToStdString(message);
      break;
    case LogLevel::Info:
      ROCM_SHIM_LOG(INFO) << ToStdString(message);
      break;
    case LogLevel::Debug:
      ROCM_SHIM_VLOG(1) << ToStdString(message);
      break;
    case LogLevel::Trace:
      ROCM_SHIM_VLOG(2) << ToStdString(message);
      break;
  }
}

}  // namespace rust_bridge
}  // namespace profiler
}  // namespace xla

// tsl keeps a thread's annotation text in one thread-local object for the thread's life
// (AnnotationStack::Get() returns a reference to it), so once found its address is kept in the
// thread's slot, which answers the common question (is there an annotation?) without tsl's
// thread-local look-ups. tsl resets that object, in Get(), Push or Pop, when its generation
// changed since the thread last touched it, so a non-empty text is always read through tsl
// (StackOf). The first call of a session (a new `generation`), and every call while the stack
// is disabled, find the object through Get() again.
namespace {

// Out of line, like everything off the fast path below, so that the fast path sets up no frame.
__attribute__((noinline)) const std::string* FindTslText(XrtSourceStackSlot* slot,
                                                         uint64_t generation) noexcept {
  const std::string* text = &tsl::profiler::AnnotationStack::Get();
  slot->stack = text;
  slot->generation = generation;
  return text;
}

// The stack as tsl has it now, scope-range ids first: either read lets tsl apply a pending
// reset before the text's bytes and length are taken. The kept address only ever answers "is
// the text empty?", which a reset cannot make wrong (a reset only empties the text), so a
// generation change during the session (anything else toggling tsl's stack) can never hand
// over bytes that tsl has since cleared or freed.
XrtAnnotationStack CurrentStack() noexcept {
  XrtAnnotationStack stack{};
  const absl::Span<const int64_t> ids = tsl::profiler::AnnotationStack::GetScopeRangeIds();
  const std::string& text = tsl::profiler::AnnotationStack::Get();
  if (text.empty()) return stack;
  stack.text = reinterpret_cast<const uint8_t*>(text.data());
  stack.text_len = text.size();
  stack.scope_range_ids = ids.data();
  stack.num_scope_range_ids = ids.size();
  return stack;
}

// The parameters of xrt_bridge_record_annotation, in its order, so that the jump here moves
// no argument.
__attribute__((noinline)) void RecordStack(XrtSourceStackSlot*, uint64_t, uint64_t,
                                           const void* thread, const void* map,
                                           uint64_t correlation_id) noexcept {
  const XrtAnnotationStack stack = CurrentStack();
  xrt_bridge_record_annotation_stack(thread, map, correlation_id, &stack);
}

inline void RecordIfAny(const std::string* kept, XrtSourceStackSlot* slot, uint64_t generation,
                        uint64_t label_frame, const void* thread, const void* map,
                        uint64_t correlation_id) noexcept {
  if (kept->empty() && label_frame == 0) return;
  RecordStack(slot, generation, label_frame, thread, map, correlation_id);
}

// The first call of a session on this thread, or any while tsl's stack is disabled.
__attribute__((noinline)) void FindAndRecord(XrtSourceStackSlot* slot, uint64_t generation,
                                             uint64_t label_frame, const void* thread,
                                             const void* map, uint64_t correlation_id) noexcept {
  RecordIfAny(FindTslText(slot, generation), slot, generation, label_frame, thread, map,
              correlation_id);
}

}  // namespace

// Every path ends in a jump, so the common one (no annotation) sets up no frame.
extern "C" void xrt_bridge_record_annotation(XrtSourceStackSlot* slot, uint64_t generation,
                                             uint64_t label_frame, const void* thread,
                                             const void* map, uint64_t correlation_id) noexcept {
  const std::string* text = static_cast<const std::string*>(slot->stack);
  if (__builtin_expect(text == nullptr || slot->generation != generation ||
                           !tsl::profiler::AnnotationStack::IsEnabled(),
                       0)) {
    return FindAndRecord(slot, generation, label_frame, thread, map, correlation_id);
  }
  RecordIfAny(text, slot, generation, label_frame, thread, map, correlation_id);
}

extern "C" XrtAnnotationStack xrt_bridge_read_annotation_stack(XrtSourceStackSlot* slot,
                                                               uint64_t generation) noexcept {
  const std::string* text = static_cast<const std::string*>(slot->stack);
  if (text == nullptr || slot->generation != generation ||
      !tsl::profiler::AnnotationStack::IsEnabled()) {
    text = FindTslText(slot, generation);
  }
  if (text->empty()) return XrtAnnotationStack{};
  return CurrentStack();
}
