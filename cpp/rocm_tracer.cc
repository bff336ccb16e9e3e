// XLA's RocmTracer as a thin shim over the Rust tracer (src/tracer/mod.rs, through src/ffi/bridge.rs).
//
// The Rust core owns everything rocprofiler-sdk: it exports `rocprofiler_configure`, creates
// the contexts and buffer, decodes the records and keeps the stream stacks. This file keeps
// the members XLA's header declares in step with it (context handles, agents, the collector,
// the annotation map), and is where the Rust core's C++ callbacks land:
//  * event batches reach `TracingCallback`, which holds `collector_mutex_` once per batch and
//    calls `collector_->AddEvent(std::move(event), false)` for any RocmTraceCollector;
//  * the HIP API ENTER callback records tsl's AnnotationStack into `annotation_map_`;
//  * Rust log lines go to absl LOG (cpp/log.h).
// HipApiEvent, KernelEvent and MemcpyEvent decode one SDK record through the Rust decoder
// (the tracer's own path never calls them: decoding happens once, in Rust); kernel_info_ and
// name_info_ stay empty, since the Rust core keeps the kernel and API names.
#include "xla/backends/profiler/gpu/rocm_tracer.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "xla-rocm-tracer/cpp/absl_compat.h"
#include "xla-rocm-tracer/cpp/bridge_callbacks.h"
#include "xla-rocm-tracer/cpp/drop_tally.h"
#include "xla-rocm-tracer/cpp/log.h"
#include "xla-rocm-tracer/src/ffi/bridge.rs.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/tsl/profiler/backends/cpu/annotation_stack.h"

namespace xla {
namespace profiler {
namespace {

namespace bridge = ::xla::profiler::rust_bridge;

// Header categories of the records the bridge hands to TracingCallback. rocprofiler-sdk's
// categories are small integers; these cannot collide with them.
constexpr uint32_t kBridgeEventBatchCategory = 0x78727401;  // payload: const BridgeEvent*
constexpr uint32_t kBridgeDropCategory = 0x78727402;        // payload: const BridgeDrop*

struct BridgeDrop {
  rust::Str reason;
  uint64_t count;
};

// Set once the singleton is built; the bridge callbacks ignore calls before that.
std::atomic<RocmTracer*> g_tracer{nullptr};

std::string ToStdString(rust::Str text) { return std::string(text.data(), text.size()); }

template <typename Enum>
Enum EnumOrDefault(uint32_t value, Enum last, Enum fallback) {
  return value <= static_cast<uint32_t>(last) ? static_cast<Enum>(value) : fallback;
}

// One Rust event as XLA's. The annotation and scope range id come from the C++ annotation
// map, where the HIP API ENTER callback recorded tsl's AnnotationStack under the correlation
// id; an annotation the Rust core already carries (its own source) is interned there first,
// because `annotation` must point into storage that outlives the collector's export.
RocmTracerEvent ToRocmTracerEvent(const bridge::BridgeEvent& from, AnnotationMap& annotations) {
  RocmTracerEvent event;
  event.type = EnumOrDefault(from.event_type, RocmTracerEventType::Generic,
                             RocmTracerEventType::Unsupported);
  event.source = EnumOrDefault(from.source, RocmTracerEventSource::Activity,
                               RocmTracerEventSource::Invalid);
  event.domain = EnumOrDefault(from.domain, RocmTracerEventDomain::HIP_OPS,
                               RocmTracerEventDomain::InvalidDomain);
  event.name = std::string(from.name);
  if (!from.annotation.empty()) {
    annotations.Add(from.correlation_id, std::string(from.annotation));
  }
  event.annotation = annotations.LookUp(from.correlation_id);
  event.scope_range_id = from.scope_range_id != 0
                             ? from.scope_range_id
                             : annotations.LookUpScopeRangeId(from.correlation_id);
  event.start_time_ns = from.start_time_ns;
  event.end_time_ns = from.end_time_ns;
  event.device_id = from.device_id;
  event.correlation_id = from.correlation_id;
  event.thread_id = from.thread_id;
  event.stream_id = from.stream_id;
  event.queue_id = from.queue_id;
  // The largest union member first, so every byte of the union is initialized.
  event.kernel_info = KernelDetails{};
  switch (from.detail_kind) {
    case bridge::DetailKind::Kernel:
      event.kernel_info.private_segment_size = from.kernel[0];
      event.kernel_info.group_segment_size = from.kernel[1];
      event.kernel_info.workgroup_x = from.kernel[2];
      event.kernel_info.workgroup_y = from.kernel[3];
      event.kernel_info.workgroup_z = from.kernel[4];
      event.kernel_info.grid_x = from.kernel[5];
      event.kernel_info.grid_y = from.kernel[6];
      event.kernel_info.grid_z = from.kernel[7];
      break;
    case bridge::DetailKind::Memcpy:
      event.memcpy_info = MemcpyDetails{from.num_bytes, from.destination, from.is_async};
      break;
    case bridge::DetailKind::Memset:
      event.memset_info = MemsetDetails{from.num_bytes, from.is_async};
      break;
    case bridge::DetailKind::MemAlloc:
      event.memalloc_info = MemAllocDetails{from.num_bytes};
      break;
    case bridge::DetailKind::None:
      break;
  }
  return event;
}

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
      *event = ToRocmTracerEvent(decoded.event, annotations);
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

// Serializes Enable and Disable of the singleton (XLA holds collector_mutex_ across
// start_context; here the Rust calls drain through TracingCallback, which takes
// collector_mutex_, so a separate lock no callback takes). Leaked: used until exit.
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
  size_t copied = bridge::tracer_copy_gpu_agents(reinterpret_cast<uint8_t*>(gpu_agents_.data()),
                                                 gpu_agents_.size(),
                                                 sizeof(rocprofiler_agent_v0_t));
  gpu_agents_.resize(std::min<size_t>(copied, gpu_agents_.size()));
  // Every agent, CPUs too, as XLA's InitProfiling fills agents_ (xla-rocm-tracer.md §5.2).
  std::vector<rocprofiler_agent_v0_t> all_agents(
      bridge::tracer_copy_all_agents(nullptr, 0, sizeof(rocprofiler_agent_v0_t)));
  copied = bridge::tracer_copy_all_agents(reinterpret_cast<uint8_t*>(all_agents.data()),
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

absl::Status RocmTracer::Enable(const RocmTracerOptions& options,
                                RocmTraceCollector* collector) {
  absl::MutexLock lifecycle(XRT_MUTEX_LOCK_ARG(LifecycleMutex()));
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
    if (collector_ != nullptr) {
      return absl::AlreadyExistsError("ROCM tracer is already running");
    }
    if (collector == nullptr) {
      return absl::InvalidArgumentError("RocmTracer::Enable needs a collector");
    }
  }
  // A session started through the C ABI belongs to someone else: refuse before touching the
  // annotation map, whose strings a previous collector's events may still point into.
  const bridge::TracerState state = bridge::tracer_state();
  if (!state.available) {
    if (!state.init_error.empty()) return absl::InternalError(std::string(state.init_error));
    return absl::AlreadyExistsError("ROCM tracer is already running");
  }
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
    options_ = options;
    collector_ = collector;
  }
  ForgetTracerDrops(collector);
  // Before the context starts, so the first calls' annotations are not wiped (XLA clears
  // after starting).
  annotation_map_.Clear();
  absl::Status status = ToAbslStatus(bridge::tracer_enable(options.max_annotation_strings));
  if (!status.ok()) {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
    options_.reset();
    collector_ = nullptr;
    return status;
  }
  api_tracing_enabled_ = true;
  activity_tracing_enabled_ = true;
  return absl::OkStatus();
}

void RocmTracer::Disable() {
  absl::MutexLock lifecycle(XRT_MUTEX_LOCK_ARG(LifecycleMutex()));
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
    // XLA dereferences collector_ unconditionally (rough edge §7.4); without a session of
    // this shim there is nothing to stop (and a C ABI session is not ours to end).
    if (collector_ == nullptr) return;
  }
  // Stops the context and drains the buffer: every event of the session has reached
  // TracingCallback when this returns, and none will after. Not under collector_mutex_:
  // draining delivers through TracingCallback, which takes it.
  bridge::tracer_disable();
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
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

// Receives the Rust core's decoded batches (see the categories above); SDK records never
// arrive here, since the Rust core owns the buffer.
void RocmTracer::TracingCallback(rocprofiler_context_id_t /*context*/,
                                 rocprofiler_buffer_id_t /*buffer_id*/,
                                 rocprofiler_record_header_t** headers, size_t num_headers,
                                 uint64_t /*drop_count*/) {
  if (headers == nullptr || num_headers == 0) return;
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(collector_mutex_));
  if (collector_ == nullptr) return;
  for (size_t i = 0; i < num_headers; ++i) {
    const rocprofiler_record_header_t* header = headers[i];
    if (header == nullptr || header->payload == nullptr) continue;
    if (header->category == kBridgeEventBatchCategory) {
      const auto* event = static_cast<const bridge::BridgeEvent*>(header->payload);
      collector_->AddEvent(ToRocmTracerEvent(*event, annotation_map_), /*is_auxiliary=*/false);
    } else if (header->category == kBridgeDropCategory) {
      const auto* drop = static_cast<const BridgeDrop*>(header->payload);
      const std::string reason = ToStdString(drop->reason);
      TallyTracerDrop(collector_, reason, drop->count);
      collector_->OnEventsDropped(reason, drop->count);
    }
  }
}

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

void deliver_events(rust::Slice<const BridgeEvent> events) {
  RocmTracer* tracer = g_tracer.load(std::memory_order_acquire);
  if (tracer == nullptr || events.empty()) return;
  WithoutEscapingExceptions("delivering events to the collector", [&] {
    std::vector<rocprofiler_record_header_t> records(events.size());
    std::vector<rocprofiler_record_header_t*> headers(events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      records[i].category = kBridgeEventBatchCategory;
      records[i].kind = 0;
      records[i].payload = const_cast<BridgeEvent*>(&events[i]);
      headers[i] = &records[i];
    }
    tracer->TracingCallback(tracer->context_, tracer->buffer_, headers.data(), headers.size(),
                            0);
  });
}

void deliver_dropped(rust::Str reason, uint64_t count) {
  RocmTracer* tracer = g_tracer.load(std::memory_order_acquire);
  if (tracer == nullptr) return;
  WithoutEscapingExceptions("reporting dropped events to the collector", [&] {
    BridgeDrop drop{reason, count};
    rocprofiler_record_header_t record{};
    record.category = kBridgeDropCategory;
    record.payload = &drop;
    rocprofiler_record_header_t* header = &record;
    tracer->TracingCallback(tracer->context_, tracer->buffer_, &header, 1, 0);
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
