//! What every cxx bridge of this room shares: the status a fallible call returns (the other
//! bridges name it with `type BridgeStatus = crate::ffi::status::BridgeStatus`, cxx's way to
//! share a type between bridges) and the guard that keeps a panic from unwinding into C++.
//!
//! Only cxx types cross: no absl, no C++ exceptions (fallible calls return [`BridgeStatus`]),
//! and no panic escapes: every bridge function catches unwinding and reports it as an error.
use std::panic::{catch_unwind, AssertUnwindSafe};

#[cxx::bridge(namespace = "xla::profiler::rust_bridge")]
mod bridge {
    /// The absl status code a shim returns.
    #[derive(Debug)]
    enum StatusCode {
        Ok,
        AlreadyExists,
        Internal,
    }

    #[derive(Debug)]
    struct BridgeStatus {
        code: StatusCode,
        message: String,
    }
}

pub(super) use bridge::{BridgeStatus, StatusCode};

/// Runs `body`, turning a panic into `fallback` so that it never unwinds into C++.
pub(super) fn guarded<T>(what: &str, fallback: impl FnOnce() -> T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(_) => {
            log::error!("xla-rocm-tracer: panic in {what}; returned an error instead");
            fallback()
        }
    }
}

pub(super) fn status(code: StatusCode, message: impl Into<String>) -> BridgeStatus {
    BridgeStatus {
        code,
        message: message.into(),
    }
}

pub(super) fn ok() -> BridgeStatus {
    status(StatusCode::Ok, "")
}

/// Whether C++'s `rocprofiler_agent_v0_t` (of `agent_size` bytes) is this library's; logs
/// why agents are not read if not.
pub(super) fn agent_size_matches(agent_size: usize) -> bool {
    let rust_size = std::mem::size_of::<rocprofiler_sdk_sys::rocprofiler_agent_v0_t>();
    if agent_size != rust_size {
        log::error!(
            "xla-rocm-tracer: rocprofiler_agent_v0_t is {agent_size} bytes in C++ but \
             {rust_size} in Rust; agents not read"
        );
    }
    agent_size == rust_size
}
