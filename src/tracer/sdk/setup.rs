//! The tracer's set-up: the three contexts and the buffer, created once inside the SDK's tool
//! `initialize`, and stopped at its `finalize` (docs/xla-interface.md#initialization-order).
use std::ffi::c_void;
use std::sync::atomic::Ordering;

use rocprofiler_sdk_sys as sys;

use crate::tracer::decode::buffer_callback::buffer_callback;
use crate::tracer::decode::kernel_names::code_object_callback;
use crate::tracer::hip_api::enter_callback::hip_api_callback;
use crate::tracer::hip_api::memory_kinds;
use crate::tracer::hip_api::names::HipApiNames;
use crate::tracer::sdk::agents::Agents;
use crate::tracer::sdk::calls::{self as sdk, SdkError};
use crate::tracer::sdk::hip_runtime_reach;
use crate::tracer::sdk::version::SdkVersion;
use crate::tracer::streams::correlation::{self, stream_external_correlation_callback};
use crate::tracer::streams::graph_nodes;
use crate::tracer::streams::names as stream_names;
use crate::tracer::streams::stack::hip_stream_callback;
use crate::tracer::{roctx, SdkSetup, Tracer, TracerError};

/// XLA's buffer geometry (docs/xla-interface.md#initialization-order): 100 pages, flushed at 40.
pub const BUFFER_SIZE_BYTES: usize = 100 * 4096;
pub const BUFFER_WATERMARK_BYTES: usize = 40 * 4096;

/// The buffer's size, watermark and policy: XLA's, LOSSLESS, so the SDK never drops.
#[cfg(not(test))]
fn buffer_geometry() -> (usize, usize, sys::rocprofiler_buffer_policy_t) {
    (
        BUFFER_SIZE_BYTES,
        BUFFER_WATERMARK_BYTES,
        sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS,
    )
}

/// The unit tests' seam: with [`DISCARD_BUFFER_TEST_ENV`] set, one page, DISCARD, delivered
/// only by explicit flushes, so that the SDK drops records and the tracer's reading of its
/// cumulative `drop_count` runs end to end (`decode/buffer_callback.rs` tests). Only the library's own unit
/// tests compile this; the product always uses XLA's lossless buffer.
#[cfg(test)]
fn buffer_geometry() -> (usize, usize, sys::rocprofiler_buffer_policy_t) {
    if std::env::var_os(DISCARD_BUFFER_TEST_ENV).is_some() {
        (4096, 4096, sys::ROCPROFILER_BUFFER_POLICY_DISCARD)
    } else {
        (
            BUFFER_SIZE_BYTES,
            BUFFER_WATERMARK_BYTES,
            sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS,
        )
    }
}

#[cfg(test)]
pub(super) const DISCARD_BUFFER_TEST_ENV: &str = "XLA_ROCM_TRACER_UNIT_TEST_DISCARD_BUFFER";

/// How the reason of a failed `initialize` begins. The SDK ignores the tool's return value
/// (rocm-systems #11189, ledger row "A tool's nonzero `initialize` return"): the tracer stops
/// what it started itself (`StartedContexts`) and keeps this reason, which `record` says.
pub const INITIALIZATION_FAILED: &str = "rocprofiler-sdk initialization failed";

fn unavailable(error: SdkError) -> TracerError {
    TracerError::Unavailable(format!("{INITIALIZATION_FAILED}: {error}"))
}

/// A `'static` part of the tracer as the callback data the SDK hands back to its callback.
fn data_of<T>(part: &'static T) -> *mut c_void {
    std::ptr::from_ref(part).cast_mut().cast()
}

/// Contexts started during initialization, stopped again if a later step fails.
#[derive(Default)]
struct StartedContexts(Vec<sys::rocprofiler_context_id_t>);

impl Drop for StartedContexts {
    fn drop(&mut self) {
        for context in self.0.drain(..) {
            let _ = sdk::stop_context(context);
        }
    }
}

impl Tracer {
    /// Keeps `error` as the reason the tracer is unavailable, unless initialization already
    /// produced a result.
    pub(crate) fn set_unavailable(&self, error: TracerError) {
        let _ = self.setup.set(Err(error));
    }

    pub(crate) fn is_initialized(&self) -> bool {
        self.setup.get().is_some()
    }

    /// The tool's `initialize`: returns XLA's 0 / -1.
    pub(crate) fn initialize_from_tool(&'static self) -> i32 {
        if self.setup.get().is_some() {
            return -1;
        }
        let result = self.initialize_sdk();
        let code = match &result {
            Ok(_) => 0,
            Err(error) => {
                log::error!("{error}");
                -1
            }
        };
        if self.setup.set(result).is_err() {
            return -1;
        }
        code
    }

    fn initialize_sdk(&'static self) -> Result<SdkSetup, TracerError> {
        let (major, minor, patch) = sdk::get_version().map_err(unavailable)?;
        let version = SdkVersion {
            major,
            minor,
            patch,
        };
        version
            .require_supported()
            .map_err(TracerError::Unavailable)?;
        // Agents first, as XLA's `InitProfiling` does, so that they stay known if a later
        // step fails.
        let agents = Agents::query().map_err(unavailable)?;
        let _ = self.queried_agents.set(agents.clone());
        let hip_names = HipApiNames::query().map_err(unavailable)?;
        let mut started = StartedContexts::default();
        // No callback reaches for the process-wide tracer: the buffer and code-object callbacks
        // are handed the part of this `'static` tracer they work on as their callback data; the
        // HIP API ENTER and the request, on the application thread's hot path, are given theirs
        // here (`serve`), read with one load.
        let tracer = data_of(self);

        let utility_context = self.start_utility_context(&mut started)?;

        let (main_context, buffer) = self.main_context_and_buffer(tracer)?;

        let stream_context = start_stream_context(&mut started)?;

        self.serve_enter();
        sdk::configure_callback_tracing(
            main_context,
            sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
            &[],
            Some(hip_api_callback),
            std::ptr::null_mut(),
        )
        .map_err(unavailable)?;
        subscribe_graph_launches(main_context);
        let callback_thread = sdk::create_callback_thread().map_err(unavailable)?;
        sdk::assign_callback_thread(buffer, callback_thread).map_err(unavailable)?;
        if !sdk::context_is_valid(main_context).map_err(unavailable)? {
            return Err(TracerError::Unavailable(
                "rocprofiler-sdk reports the tracer's main context as invalid".to_owned(),
            ));
        }
        started.0.clear();
        Ok(SdkSetup {
            version,
            utility_context,
            main_context,
            stream_context,
            buffer,
            agents,
            hip_names,
        })
    }

    /// The context of what is traced whether or not a session runs: kernel names (CODE_OBJECT)
    /// and HIP's initialization. Started at once.
    fn start_utility_context(
        &'static self,
        started: &mut StartedContexts,
    ) -> Result<sys::rocprofiler_context_id_t, TracerError> {
        let utility_context = sdk::create_context().map_err(unavailable)?;
        sdk::configure_callback_tracing(
            utility_context,
            sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
            &[sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER],
            Some(code_object_callback),
            data_of(&self.kernel_names),
        )
        .map_err(unavailable)?;
        // The signal for the "no GPU events" diagnosis; an SDK without the service traces
        // the same, without the diagnosis.
        match sdk::configure_callback_tracing(
            utility_context,
            sys::ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
            &[sys::ROCPROFILER_RUNTIME_INITIALIZATION_HIP],
            Some(hip_runtime_reach::runtime_initialization_callback),
            std::ptr::null_mut(),
        ) {
            Ok(()) => hip_runtime_reach::watch(),
            Err(error) => log::debug!("HIP's initialization will not be reported: {error}"),
        }
        sdk::start_context(utility_context).map_err(unavailable)?;
        started.0.push(utility_context);
        Ok(utility_context)
    }

    /// The context a session starts and stops: the buffer and its records, the external
    /// correlation request. Not started here (a session starts it).
    fn main_context_and_buffer(
        &'static self,
        tracer: *mut c_void,
    ) -> Result<(sys::rocprofiler_context_id_t, sys::rocprofiler_buffer_id_t), TracerError> {
        let main_context = sdk::create_context().map_err(unavailable)?;
        let (size, watermark, policy) = buffer_geometry();
        let buffer = sdk::create_buffer(
            main_context,
            size,
            watermark,
            policy,
            Some(buffer_callback),
            tracer,
        )
        .map_err(unavailable)?;
        for kind in [
            sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
            sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
            sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
        ] {
            sdk::configure_buffer_tracing(main_context, kind, buffer).map_err(unavailable)?;
        }
        configure_barrier_times(main_context, buffer);
        correlation::serve(self.ledger());
        sdk::configure_external_correlation_request(
            main_context,
            &[
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
            ],
            Some(stream_external_correlation_callback),
            std::ptr::null_mut(),
        )
        .map_err(unavailable)?;
        Ok((main_context, buffer))
    }

    /// The tool's `finalize`: delivers what the buffer still holds, then stops all three
    /// contexts (the SDK is shutting down).
    ///
    /// The SDK flushes no buffer at finalization: records below the watermark would be lost,
    /// so a session still running at process exit delivers its tail to its sink here. By the
    /// time this runs the SDK has already stopped the contexts itself, so `stop_context`
    /// answering CONTEXT_NOT_FOUND is expected and not logged as a problem.
    pub(crate) fn finalize(&self) {
        self.finalized.store(true, Ordering::Release);
        if let Some(Ok(setup)) = self.setup.get() {
            if let Err(error) = sdk::flush_buffer(setup.buffer) {
                log::warn!("at finalization: {error}");
            }
            for context in [
                setup.utility_context,
                setup.stream_context,
                setup.main_context,
            ] {
                match sdk::stop_context(context) {
                    Ok(()) => {}
                    Err(error)
                        if error.status == sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND =>
                    {
                        log::debug!("at finalization: {error}")
                    }
                    Err(error) => log::warn!("at finalization: {error}"),
                }
            }
        }
    }
}

/// HIP_EVENT, where the SDK offers it (it names buffer kind 38 "HIP_EVENT": rocprofiler-sdk
/// 1.4, ROCm 10.1): the GPU times of the barriers that `hipEventRecord` and
/// `hipStreamWaitEvent` enqueue, which give each stream wait its span on the waiting lane
/// (docs/xla-interface.md#stream-waits). Without it the waits' ends stay zero-length.
fn configure_barrier_times(
    main_context: sys::rocprofiler_context_id_t,
    buffer: sys::rocprofiler_buffer_id_t,
) {
    let kind = sys::ROCPROFILER_BUFFER_TRACING_HIP_EVENT;
    if sdk::buffer_kind_name(kind).as_deref() != Some("HIP_EVENT") {
        log::debug!("rocprofiler-sdk has no HIP_EVENT tracing: stream waits have no GPU span");
        return;
    }
    if let Err(error) = sdk::configure_buffer_tracing(main_context, kind, buffer) {
        log::warn!("stream waits will have no GPU span: {error}");
    }
}

/// The process-lifetime context of the stream stack (HIP_STREAM SET) and of stream names and
/// ROCTx ranges, which an SDK may lack without the rest failing. Started at once.
fn start_stream_context(
    started: &mut StartedContexts,
) -> Result<sys::rocprofiler_context_id_t, TracerError> {
    let stream_context = sdk::create_context().map_err(unavailable)?;
    sdk::configure_callback_tracing(
        stream_context,
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
        &[],
        Some(hip_stream_callback),
        std::ptr::null_mut(),
    )
    .map_err(unavailable)?;
    // Stream names are a nicety: an SDK that cannot trace ROCTx's name API still traces.
    if let Err(error) = sdk::configure_callback_tracing(
        stream_context,
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
        &[sys::ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream],
        Some(stream_names::marker_name_callback),
        std::ptr::null_mut(),
    ) {
        log::warn!("stream names (roctxNameHipStream) will not be shown: {error}");
    }
    // So are ROCTx ranges: an SDK that cannot trace them still traces the rest.
    if let Err(error) = sdk::configure_callback_tracing(
        stream_context,
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        &[
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA,
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop,
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA,
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop,
        ],
        Some(roctx::marker_core_callback),
        std::ptr::null_mut(),
    ) {
        log::warn!("ROCTx ranges and marks will not be shown: {error}");
    }
    // Some releases tell of ROCTx ranges in this domain instead, or as well (roctx.rs).
    if let Err(error) = sdk::configure_callback_tracing(
        stream_context,
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
        &[
            sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA,
            sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA,
            sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA,
        ],
        Some(roctx::marker_range_callback),
        std::ptr::null_mut(),
    ) {
        log::warn!("ROCTx ranges of the MARKER_CORE_RANGE_API domain will not be shown: {error}");
    }
    // Which memory each allocation is in, for the copies' memory kinds, whether or not a
    // session runs (`hip_api/memory_kinds.rs`): the allocation functions only, so that no
    // other HIP call pays for it. Copies without it still show, their memory kinds guessed
    // from their direction.
    if let Err(error) = sdk::configure_callback_tracing(
        stream_context,
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        &memory_kinds::ALLOCATION_OPERATIONS,
        Some(memory_kinds::allocation_callback),
        std::ptr::null_mut(),
    ) {
        log::warn!("copies will not know pinned and managed memory: {error}");
    }
    sdk::start_context(stream_context).map_err(unavailable)?;
    started.0.push(stream_context);
    Ok(stream_context)
}

/// HIP_GRAPH EXEC_LAUNCH, where the SDK offers it (it names callback kind 22 "HIP_GRAPH": SDK
/// 1.3.2, ROCm 7.14, on): each launch's dispatches then carry their node ordinal
/// (`streams/graph_nodes.rs`). In the session's main context, with the request it serves, and
/// configured after every call the tracer needs (a failure here costs the ordinals only). A
/// launch whose ENTER came before the session started gets its ordinals from the collector,
/// which numbers a launch's dispatches in the order they ran, as without HIP_GRAPH
/// (docs/xla-interface.md#graph-nodes).
fn subscribe_graph_launches(main_context: sys::rocprofiler_context_id_t) {
    let kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH;
    if sdk::callback_kind_name(kind).as_deref() != Some("HIP_GRAPH") {
        log::debug!(
            "rocprofiler-sdk has no HIP_GRAPH tracing: graph nodes are numbered by dispatch order"
        );
        return;
    }
    if let Err(error) = sdk::configure_callback_tracing(
        main_context,
        kind,
        &[sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH],
        Some(graph_nodes::hip_graph_callback),
        std::ptr::null_mut(),
    ) {
        log::warn!("graph nodes will be numbered by dispatch order: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::DISCARD_BUFFER_TEST_ENV;

    /// End to end: the simulated SDK's DISCARD buffer drops records and passes its running
    /// total with every callback; over three sessions the sinks are told each drop once, and
    /// a kernel record the SDK dropped is not counted again as in flight at disable.
    #[test]
    fn records_the_sdk_drops_are_reported_once_across_sessions() {
        use crate::drop_reason::DropReason;
        use crate::event::EventSource;
        use crate::sink::{EventSink, SessionEnd};
        use crate::tracer::{Tracer, TracerOptions};
        use parking_lot::Mutex;
        use rocprofiler_sdk_sim::driver::{self, KernelLaunch};
        use std::collections::BTreeMap;
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::sync::Arc;
        use std::time::Duration;

        /// Kernel records delivered, and what the tracer counted lost, by reason.
        #[derive(Default)]
        struct Tally {
            events: AtomicU64,
            activities: AtomicU64,
            drops: Mutex<BTreeMap<DropReason, u64>>,
        }
        impl Tally {
            fn count(&self, reason: DropReason) -> u64 {
                self.drops.lock().get(&reason).copied().unwrap_or(0)
            }
        }
        impl EventSink for Tally {
            fn add_events(&self, batch: &mut Vec<crate::event::RocmTracerEvent>) {
                self.events.fetch_add(batch.len() as u64, Ordering::Relaxed);
                let activities = batch
                    .drain(..)
                    .filter(|event| event.source == EventSource::Activity)
                    .count();
                self.activities
                    .fetch_add(activities as u64, Ordering::Relaxed);
            }
            fn on_events_dropped(&self, reason: DropReason, count: u64) {
                *self.drops.lock().entry(reason).or_insert(0) += count;
            }
            fn end_session(&self, end: SessionEnd) {
                self.on_events_dropped(DropReason::InFlightAtDisable, end.in_flight);
            }
        }

        const NAME: &str =
            "tracer::sdk::setup::tests::records_the_sdk_drops_are_reported_once_across_sessions";
        // The buffer is made once per process, at the tool's initialize: in a child process.
        if std::env::var_os(DISCARD_BUFFER_TEST_ENV).is_none() {
            let output = std::process::Command::new(std::env::current_exe().unwrap())
                .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
                .env(DISCARD_BUFFER_TEST_ENV, "1")
                .env("ROCSIM_MACHINE", "clock = \"virtual\"")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success() && stdout.contains("1 passed"),
                "{stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            return;
        }
        let tracer = Tracer::get();
        let buffer = tracer.buffer().expect("the tracer is set up");
        let (_, kernels) = driver::load_code_object(0, &["_Z4stepv"]).unwrap();
        let stream = driver::stream_create().unwrap();
        let launch = KernelLaunch {
            kernel: kernels[0],
            grid: [64, 1, 1],
            block: [64, 1, 1],
            private_segment_size: 0,
            group_segment_size: 0,
            duration_ns: 1_000,
        };
        let discarded = || {
            rocprofiler_sdk_sim::record_counts(buffer.handle)
                .expect("the tracer's buffer")
                .total_discarded()
        };
        let mut reported = Vec::new();
        let mut discarded_before = 0;
        // The first session fills the page (drops counted); the later ones' records the SDK
        // loses uncounted or delivers, and their sinks must not be told the first one's drops
        // again, though every callback passes the SDK's running total.
        for session in 0..3 {
            let sink = Arc::new(Tally::default());
            let options = TracerOptions {
                disable_wait: Duration::ZERO,
                ..TracerOptions::default()
            };
            tracer.enable(options, sink.clone()).unwrap();
            for _ in 0..100 {
                driver::launch_kernel(stream, &launch).unwrap();
            }
            driver::stream_synchronize(stream).unwrap();
            tracer.disable();
            let now = discarded();
            let drops = &sink;
            assert_eq!(
                drops.count(DropReason::SdkDropped),
                now - discarded_before,
                "session {session}: each record the SDK dropped, once: {:?}",
                drops.drops.lock()
            );
            reported.push(drops.count(DropReason::SdkDropped));
            let arrived = sink.activities.load(Ordering::Relaxed);
            // The SDK's count does not say which records it dropped (HIP API records too): the
            // tracer counts in flight only the missing kernels that count cannot explain. How
            // many kernel records reach the page before Disable depends on when the signal
            // thread pushes them, so the split is checked, not its numbers.
            assert_eq!(
                drops.count(DropReason::InFlightAtDisable),
                (100 - arrived).saturating_sub(drops.count(DropReason::SdkDropped)),
                "session {session}: {:?}",
                drops.drops.lock()
            );
            if session == 0 {
                // The one page fills: the SDK drops (and counts) the rest of the session's
                // records, kernels among them, which are also missing at disable.
                assert!(now > 0, "the one-page buffer dropped records");
                assert!(arrived < 100, "kernel records were dropped or in flight");
            }
            if session == 2 {
                // This session had a callback, which carried the first session's total.
                assert!(sink.events.load(Ordering::Relaxed) > 0);
            }
            discarded_before = now;
        }
        assert_eq!(reported.iter().sum::<u64>(), discarded());
    }
}
