//! `RocmTraceCollectorOptions` (docs/xla-interface.md#utilities-header) plus the capture's start clocks.

/// Caps and machine size for one capture. The caps keep the collector's memory bounded; when
/// one is reached, further events are dropped, counted and reported once as a warning that
/// names `--xla_gpu_rocm_max_trace_events`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectorOptions {
    /// HIP API (callback) events kept, auxiliary ones aside.
    pub max_callback_api_events: u64,
    /// GPU activities (kernel dispatches, copies) kept. Unlike XLA, which counts only HIP_API
    /// activities and so never reaches its cap (docs/xla-interface.md#xla-edge-12), every activity counts.
    pub max_activity_api_events: u64,
    /// Distinct annotation strings kept; events beyond it lose their annotation, not themselves.
    pub max_annotation_strings: u64,
    /// Number of `/device:GPU:<i>` planes exported.
    pub num_gpus: u32,
}

impl Default for CollectorOptions {
    /// The values `device_tracer_rocm.cc` uses with default XLA flags.
    fn default() -> Self {
        CollectorOptions {
            max_callback_api_events: 4 * 1024 * 1024,
            max_activity_api_events: 4 * 1024 * 1024,
            max_annotation_strings: 1024 * 1024,
            num_gpus: 1,
        }
    }
}

/// The two readings `GpuTracer` takes at start: the SDK clock (rocprofiler ns,
/// `CLOCK_BOOTTIME`, the clock of every record) and the wall clock. Export moves event times
/// from the first to the second.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureStart {
    pub walltime_ns: u64,
    pub gputime_ns: u64,
}
