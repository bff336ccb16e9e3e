//! Buffer records, copied out of the headers a buffer callback receives.

use rocprofiler_sdk_sys as sys;

/// A HIP API, kernel dispatch or memory copy buffer-tracing record, copied out (the SDK reuses
/// a record's memory once its buffer callback returns).
#[derive(Clone, Copy)]
pub enum Record {
    Api(sys::rocprofiler_buffer_tracing_hip_api_record_t),
    Kernel(sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t),
    Copy(sys::rocprofiler_buffer_tracing_memory_copy_record_t),
}

// SAFETY: plain data; the address unions hold device addresses that are never dereferenced.
unsafe impl Send for Record {}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self {
            Record::Api(_) => "Api",
            Record::Kernel(_) => "Kernel",
            Record::Copy(_) => "Copy",
        };
        write!(
            f,
            "{kind}(internal={}, external={})",
            self.internal(),
            self.external()
        )
    }
}

impl Record {
    /// The record `header` carries, if it is a tracing record of one of the three kinds.
    ///
    /// # Safety
    /// `header` is a record header the SDK delivered to a buffer callback, read during it.
    pub unsafe fn copy_out(header: &sys::rocprofiler_record_header_t) -> Option<Record> {
        if header.category() != sys::ROCPROFILER_BUFFER_CATEGORY_TRACING {
            return None;
        }
        let payload = header.payload;
        // SAFETY: caller contract: the header's kind names its payload's record type, live for
        // the callback; the records are plain data, copied out.
        unsafe {
            Some(match header.kind() {
                sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => {
                    Record::Api(*payload.cast::<sys::rocprofiler_buffer_tracing_hip_api_record_t>())
                }
                sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => Record::Kernel(
                    *payload.cast::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>(),
                ),
                sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => Record::Copy(
                    *payload.cast::<sys::rocprofiler_buffer_tracing_memory_copy_record_t>(),
                ),
                _ => return None,
            })
        }
    }

    /// The buffer-tracing kind (`ROCPROFILER_BUFFER_TRACING_*`).
    pub fn kind(&self) -> sys::rocprofiler_buffer_tracing_kind_t {
        match self {
            Record::Api(r) => r.kind,
            Record::Kernel(r) => r.kind,
            Record::Copy(r) => r.kind,
        }
    }

    pub fn operation(&self) -> sys::rocprofiler_tracing_operation_t {
        match self {
            Record::Api(r) => r.operation,
            Record::Kernel(r) => r.operation,
            Record::Copy(r) => r.operation,
        }
    }

    pub fn internal(&self) -> u64 {
        match self {
            Record::Api(r) => r.correlation_id.internal,
            Record::Kernel(r) => r.correlation_id.internal,
            Record::Copy(r) => r.correlation_id.internal,
        }
    }

    /// The external correlation id, read as an integer (what the recording tools push and
    /// answer requests with).
    pub fn external(&self) -> u64 {
        // SAFETY: every member of the user-data union is a plain 64-bit value.
        unsafe {
            match self {
                Record::Api(r) => r.correlation_id.external.value,
                Record::Kernel(r) => r.correlation_id.external.value,
                Record::Copy(r) => r.correlation_id.external.value,
            }
        }
    }

    /// (source agent, destination agent, bytes): a copy's, or a kernel's agent twice with 0
    /// bytes; `None` for a HIP API record.
    pub fn agents(&self) -> Option<(u64, u64, u64)> {
        match self {
            Record::Api(_) => None,
            Record::Kernel(r) => {
                let agent = r.dispatch_info.agent_id.handle;
                Some((agent, agent, 0))
            }
            Record::Copy(r) => Some((r.src_agent_id.handle, r.dst_agent_id.handle, r.bytes)),
        }
    }
}

/// The records of one buffer delivery, in order; headers of other categories or kinds are
/// left out (compare the length with `num_headers` to notice them).
///
/// # Safety
/// `headers` and `num_headers` are what the SDK passed to a buffer callback, read during it.
pub unsafe fn records(
    headers: *mut *mut sys::rocprofiler_record_header_t,
    num_headers: usize,
) -> Vec<Record> {
    (0..num_headers)
        // SAFETY: caller contract: `num_headers` valid header pointers, live for the callback.
        .filter_map(|i| unsafe { Record::copy_out(&**headers.add(i)) })
        .collect()
}
