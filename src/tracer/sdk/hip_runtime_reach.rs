//! Whether the HIP runtime ever reached this tracer through rocprofiler-sdk, and the one-line
//! diagnosis when it did not (docs/xla-interface.md#no-gpu-events).
//!
//! HIP hands its API table to the SDK once, at its initialization. If no tool was there at that
//! moment (the tracer's library was loaded after `hipInit`, ROCm/rocm-jax#222 and #223), the
//! SDK before 1.3.0 (ROCm 7.0 to 7.2) never sees a HIP call: the tracer registers fine and records
//! nothing. The SDK tells a tool about a runtime's initialization with a RUNTIME_INITIALIZATION
//! callback (operation HIP), which comes after the tool's `initialize` when HIP initializes
//! later, and never when HIP went first; so "no such callback by the end of a session" is the
//! tracer's signal, taken only for a session that also saw no kernel or copy (so an SDK that
//! delivers the notice differently can never put the warning on a trace with GPU events). A
//! session of a program that made no HIP call at all gets the same warning, which is then true
//! too: the trace has no GPU events.
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use rocprofiler_sdk_sys as sys;

/// What to do, for the log, the XSpace warning and `record`'s user.
pub const HIP_NOT_REACHED: &str = "no GPU events: the HIP runtime never reached this tracer \
     (HIP was initialized before the tracer registered with rocprofiler-sdk, or the program \
     made no HIP call); load the tracer before the first HIP call (hipInit): \
     ROCP_TOOL_LIBRARIES=libxla_rocm_tracer_tool.so, or import the plugin that carries it first \
     (ROCm/rocm-jax#222, #223)";

/// The one line that explains a capture without GPU events, from its warnings: HIP never
/// reached the tracer, or the SDK was held by another tool (`record` and the Python module
/// print it).
pub fn diagnosis(warnings: &[String]) -> Option<&str> {
    warnings
        .iter()
        .find(|w| {
            w.as_str() == HIP_NOT_REACHED
                || w.contains(crate::tracer::sdk::registration::SDK_HELD_ELSEWHERE)
        })
        .map(String::as_str)
}

const UNKNOWN: u8 = 0;
const WATCHING: u8 = 1;
const REACHED: u8 = 2;

static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);
static LOGGED: AtomicBool = AtomicBool::new(false);

/// The SDK accepted the RUNTIME_INITIALIZATION service: its silence means something.
pub(crate) fn watch() {
    let _ = STATE.compare_exchange(UNKNOWN, WATCHING, Ordering::AcqRel, Ordering::Acquire);
}

/// The utility context's RUNTIME_INITIALIZATION callback.
pub(super) unsafe extern "C" fn runtime_initialization_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut c_void,
) {
    if record.kind == sys::ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION
        && record.operation == sys::ROCPROFILER_RUNTIME_INITIALIZATION_HIP
    {
        STATE.store(REACHED, Ordering::Release);
    }
}

/// The warning a session's trace carries when HIP never reached the tracer; logged once per
/// process. `None` when HIP did reach it, or when the SDK cannot say (no such service).
pub(crate) fn hip_not_reached_warning() -> Option<String> {
    if STATE.load(Ordering::Acquire) != WATCHING {
        return None;
    }
    if !LOGGED.swap(true, Ordering::AcqRel) {
        log::warn!("{HIP_NOT_REACHED}");
    }
    Some(HIP_NOT_REACHED.to_owned())
}
