//! Where a thread's annotation comes from: the [`AnnotationSource`] the HIP API ENTER callback
//! asks on the application thread (tsl's `AnnotationStack` inside XLA, installed by the C++
//! shim), and the standalone source, [`ThreadAnnotationStack`], driven by [`push_annotation`] /
//! [`pop_annotation`].
use std::cell::RefCell;
use std::sync::atomic::{AtomicI64, Ordering};

use super::map::AnnotationMap;
use crate::tracer::thread_state::{self, ThreadState};

/// Where the current annotation of a thread comes from. Called on the launching thread inside
/// the HIP API ENTER callback, so it must be cheap and must not call HIP.
pub trait AnnotationSource: Send + Sync {
    /// Calls `f` once with the calling thread's current annotation ("" if none) and its
    /// scope-range ids, outermost first.
    fn with_current(&self, f: &mut dyn FnMut(&str, &[i64]));

    /// Records the calling thread's annotation under `correlation_id`: by default into the
    /// tracer's `map`; a source with its own store (the C++ shim's, whose XLA callers read
    /// `RocmTracer::annotation_map()`) overrides it. The one recording method: the HIP API
    /// callback and [`record_current_annotation`] both call it. `thread` is the calling
    /// thread's tracer state, which the HIP API callback already holds (one thread-local access
    /// per callback).
    fn record(&self, correlation_id: u64, map: &AnnotationMap, thread: &ThreadState) {
        self.with_current(&mut |annotation, scope_range_ids| {
            map.add_on_thread(
                thread,
                correlation_id,
                annotation.as_bytes(),
                scope_range_ids,
            )
        });
    }

    /// A session starts (the tracer decided it may): forget what the last one recorded.
    fn session_starts(&self, map: &AnnotationMap) {
        map.clear();
    }
}

/// What the HIP API ENTER callback does with `source`, for a caller that does not hold the
/// thread's tracer state: records the calling thread's annotation under `correlation_id`
/// through [`AnnotationSource::record`].
pub fn record_current_annotation(
    source: &(impl AnnotationSource + ?Sized),
    correlation_id: u64,
    map: &AnnotationMap,
) {
    thread_state::with(|thread| source.record(correlation_id, map, thread));
}

#[derive(Default)]
struct ThreadStack {
    /// The nested names joined with "::", like tsl's `AnnotationStack::Get()`.
    text: String,
    /// `text.len()` before each push, to undo it.
    text_lengths: Vec<usize>,
    scope_range_ids: Vec<i64>,
}

thread_local! {
    static THREAD_STACK: RefCell<ThreadStack> = RefCell::new(ThreadStack::default());
}

/// Scope-range ids are process-unique, positive and increasing, like tsl's.
static NEXT_SCOPE_RANGE_ID: AtomicI64 = AtomicI64::new(1);

/// Enters a named scope on the calling thread (for the standalone annotation source).
pub fn push_annotation(name: &str) {
    let id = NEXT_SCOPE_RANGE_ID.fetch_add(1, Ordering::Relaxed);
    let _ = THREAD_STACK.try_with(|stack| {
        if let Ok(mut stack) = stack.try_borrow_mut() {
            let previous = stack.text.len();
            stack.text_lengths.push(previous);
            if previous > 0 {
                stack.text.push_str("::");
            }
            stack.text.push_str(name);
            stack.scope_range_ids.push(id);
        }
    });
}

/// Leaves the innermost scope of the calling thread; a pop without a push does nothing.
pub fn pop_annotation() {
    let _ = THREAD_STACK.try_with(|stack| {
        if let Ok(mut stack) = stack.try_borrow_mut() {
            if let Some(length) = stack.text_lengths.pop() {
                stack.text.truncate(length);
                stack.scope_range_ids.pop();
            }
        }
    });
}

/// The standalone source: the per-thread stack of [`push_annotation`] / [`pop_annotation`].
#[derive(Copy, Clone, Debug, Default)]
pub struct ThreadAnnotationStack;

impl AnnotationSource for ThreadAnnotationStack {
    fn with_current(&self, f: &mut dyn FnMut(&str, &[i64])) {
        let _ = THREAD_STACK.try_with(|stack| {
            if let Ok(stack) = stack.try_borrow() {
                f(&stack.text, &stack.scope_range_ids);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn an_overridden_record_is_what_every_caller_reaches() {
        /// A source with its own store, as the C++ shim's is.
        struct OwnStore(AtomicU64);
        impl AnnotationSource for OwnStore {
            fn with_current(&self, f: &mut dyn FnMut(&str, &[i64])) {
                f("not for the tracer's map", &[1]);
            }
            fn record(&self, correlation_id: u64, _map: &AnnotationMap, _thread: &ThreadState) {
                self.0.store(correlation_id, Ordering::Relaxed);
            }
        }
        let source = OwnStore(AtomicU64::new(0));
        let map = AnnotationMap::new(4);
        record_current_annotation(&source, 42, &map);
        assert_eq!(source.0.load(Ordering::Relaxed), 42);
        // As the tracer holds it.
        let boxed: Box<dyn AnnotationSource> = Box::new(source);
        record_current_annotation(boxed.as_ref(), 43, &map);
        assert!(map.look_up(42).is_none() && map.look_up(43).is_none());
        assert!(
            map.is_empty(),
            "the override decides where the annotation goes"
        );
    }

    #[test]
    fn thread_stack_joins_names_and_tracks_ids() {
        std::thread::spawn(|| {
            let current = || {
                let mut out = (String::new(), Vec::new());
                ThreadAnnotationStack.with_current(&mut |text, ids| {
                    out = (text.to_owned(), ids.to_vec());
                });
                out
            };
            assert_eq!(current().0, "");
            push_annotation("outer");
            push_annotation("inner#k=v#");
            let (text, ids) = current();
            assert_eq!(text, "outer::inner#k=v#");
            assert_eq!(ids.len(), 2);
            assert!(ids[0] < ids[1]);
            pop_annotation();
            assert_eq!(current().0, "outer");
            pop_annotation();
            pop_annotation();
            assert_eq!(current(), (String::new(), vec![]));
        })
        .join()
        .unwrap();
    }
}
