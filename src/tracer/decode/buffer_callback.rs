//! The main buffer's callback, on the SDK's buffer thread: decodes the records, attributes
//! them to the running session and delivers them to its sink in one batch. It catches panics:
//! none may reach the SDK.
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys as sys;

use crate::drop_reason::DropReason;
use crate::event::EventSource;
use crate::tracer::decode::record_decoder::DropCounts;
use crate::tracer::session::ledger::Attribution;
use crate::tracer::{SdkSetup, Tracer, IN_BUFFER_CALLBACK};

impl Tracer {
    /// # Safety
    /// The arguments of a buffer callback (see [`crate::tracer::decode::record_decoder::RecordDecoder::decode_buffer`]).
    unsafe fn on_buffer(
        &self,
        headers: *const *const sys::rocprofiler_record_header_t,
        num_headers: usize,
        drop_count: u64,
    ) {
        let Some(Ok(setup)) = self.setup.get() else {
            return;
        };
        // The SDK passes its cumulative drop count with every callback (a DISCARD buffer's;
        // LOSSLESS never drops): only the increase since the last callback is new.
        let new_sdk_drops = new_drops_since_last(&self.sdk_drops_seen, drop_count);
        let mut guard = self.session.lock();
        let Some(session) = guard.as_mut() else {
            // SAFETY: this function's arguments, forwarded.
            unsafe { self.count_records_without_session(setup, headers, num_headers) };
            return;
        };
        let decoder = self.decoder(setup, session.start_ns);
        let mut drops = DropCounts::default();
        drops.add(DropReason::SdkDropped, new_sdk_drops);
        session.sdk_dropped = session.sdk_dropped.saturating_add(new_sdk_drops);
        let mut late = 0u64;
        let annotations = &self.annotations;
        let start_ns = session.start_ns;
        // SAFETY: forwarded from the buffer callback.
        unsafe {
            decoder.decode_into(headers, num_headers, &mut session.batch, |decoded| {
                let event = match decoded {
                    Err(reason) => {
                        drops.add(reason, 1);
                        return false;
                    }
                    Ok(event) => event,
                };
                let attribution = if event.source == EventSource::Activity {
                    self.ledger.on_record(event.correlation_id)
                } else {
                    Attribution::Unrequested
                };
                match attribution {
                    Attribution::EndedSession => {
                        late += 1;
                        return false;
                    }
                    // HIP API records (and any activity no request announced) are checked
                    // against the session start.
                    Attribution::Unrequested if event.start_time_ns < start_ns => {
                        drops.add(DropReason::PreviousSession, 1);
                        return false;
                    }
                    Attribution::Current | Attribution::Unrequested => {}
                }
                // The event is kept; only its annotation was lost, to the tracer's full map.
                if event.annotation.is_none() && annotations.was_refused(event.correlation_id) {
                    drops.add(DropReason::AnnotationCapReached, 1);
                }
                true
            })
        };
        self.late_records_of_ended_sessions
            .fetch_add(late, Ordering::Relaxed);
        if !session.batch.is_empty() {
            let batch_len = session.batch.len() as u64;
            let sink = &session.sink;
            let batch = &mut session.batch;
            // A panicking sink (a user collector) loses this batch, counted, and keeps the
            // session: the panic must not reach the SDK's callback thread.
            let delivered = catch_unwind(AssertUnwindSafe(|| sink.add_events(batch)));
            session.batch.clear();
            if delivered.is_err() {
                log::error!("the EventSink panicked in add_events; {batch_len} events lost");
                drops.add(DropReason::SinkPanicked, batch_len);
            }
        }
        for (reason, count) in drops.iter() {
            let sink = &session.sink;
            if catch_unwind(AssertUnwindSafe(|| sink.on_events_dropped(reason, count))).is_err() {
                log::error!("the EventSink panicked in on_events_dropped({reason:?}, {count})");
                self.drops_lost_to_sink_panics
                    .fetch_add(count, Ordering::Relaxed);
            }
        }
    }
}

impl Tracer {
    /// A buffer callback without a session: kernel and copy records of an ended session are
    /// counted as late, everything else as without a session.
    ///
    /// # Safety
    /// The arguments of a buffer callback.
    unsafe fn count_records_without_session(
        &self,
        setup: &SdkSetup,
        headers: *const *const sys::rocprofiler_record_header_t,
        num_headers: usize,
    ) {
        let decoder = self.decoder(setup, 0);
        let (mut late, mut without) = (0u64, 0u64);
        // SAFETY: forwarded from the buffer callback.
        unsafe {
            decoder.for_each_record(headers, num_headers, |decoded| match decoded {
                Ok(event)
                    if event.source == EventSource::Activity
                        && self.ledger.on_record(event.correlation_id)
                            == Attribution::EndedSession =>
                {
                    late += 1
                }
                _ => without += 1,
            })
        };
        self.late_records_of_ended_sessions
            .fetch_add(late, Ordering::Relaxed);
        self.records_without_session
            .fetch_add(without, Ordering::Relaxed);
    }
}

/// The part of the SDK's cumulative `drop_count` not seen before; `seen` keeps the largest
/// value passed so far (callbacks of one buffer run on one thread, but a reordered or repeated
/// value must never count twice).
fn new_drops_since_last(seen: &AtomicU64, cumulative: u64) -> u64 {
    cumulative.saturating_sub(seen.fetch_max(cumulative, Ordering::Relaxed))
}

/// The main buffer's callback, on its own SDK thread. `tracer` is the callback data the
/// tracer created the buffer with.
///
/// # Safety
/// `tracer` points to the `'static` tracer (`sdk/setup.rs` creates the buffer so).
pub(crate) unsafe extern "C" fn buffer_callback(
    _context: sys::rocprofiler_context_id_t,
    _buffer: sys::rocprofiler_buffer_id_t,
    headers: *mut *mut sys::rocprofiler_record_header_t,
    num_headers: usize,
    tracer: *mut c_void,
    drop_count: u64,
) {
    // SAFETY: the callback data set up by `sdk/setup.rs` (this function's contract).
    let Some(tracer) = (unsafe { (tracer as *const Tracer).as_ref() }) else {
        return;
    };
    let _ = IN_BUFFER_CALLBACK.try_with(|flag| flag.set(true));
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the SDK's buffer callback arguments, valid during this call.
        unsafe { tracer.on_buffer(headers as *const *const _, num_headers, drop_count) }
    }));
    let _ = IN_BUFFER_CALLBACK.try_with(|flag| flag.set(false));
    if result.is_err() {
        log::error!("panic while handling a rocprofiler buffer callback; its records are lost");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_drop_counts_are_cumulative_and_count_once() {
        let seen = AtomicU64::new(0);
        // A DISCARD buffer passes its running total with every callback.
        assert_eq!(new_drops_since_last(&seen, 0), 0);
        assert_eq!(new_drops_since_last(&seen, 5), 5);
        assert_eq!(new_drops_since_last(&seen, 5), 0, "same total, nothing new");
        assert_eq!(new_drops_since_last(&seen, 12), 7);
        assert_eq!(new_drops_since_last(&seen, 3), 0, "never counts backwards");
        assert_eq!(new_drops_since_last(&seen, 13), 1);
    }
}
