//! The annotation map: XLA's `AnnotationMap`, read by the buffer thread (a call's annotation,
//! scope-range id and ROCTx label by correlation id) and started and ended with each session.
//! What the application thread writes into it is in `record.rs`.
use std::collections::HashMap;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::strings::{
    generation_of, index_of, next_generation, SessionStrings, NO_ANNOTATION, REFUSED,
};
use super::taken_runs::TakenRuns;
use super::thread_log::{Run, ThreadAnnotationLog};

/// XLA's `ScopeRangeIdTree`: child scope-range id -> parent id.
pub type ScopeRangeIdTree = HashMap<i64, i64>;

/// The capacity XLA's `device_tracer_rocm.cc` asks for (`kDefaultMaxAnnotationStrings`).
pub const DEFAULT_MAX_ANNOTATION_STRINGS: u64 = 4 * 1024 * 1024;

/// What the map keeps under its lock.
#[derive(Default)]
pub(super) struct AnnotationMapInner {
    /// Session generation: a run written under another one is ignored.
    pub(super) generation: u64,
    /// The session's annotation texts and ROCTx labels, each held once.
    pub(super) strings: SessionStrings,
    /// Closed runs taken from the threads' logs, by first correlation id. Runs never overlap:
    /// each holds consecutive ids of one thread.
    pub(super) runs: TakenRuns,
    /// Every thread's log (a thread's own is registered at its first annotated call).
    pub(super) logs: Vec<Arc<ThreadAnnotationLog>>,
    pub(super) scope_range_tree: ScopeRangeIdTree,
}

impl AnnotationMapInner {
    fn run_in_taken(&self, correlation_id: u64) -> Option<Run> {
        self.runs.covering(correlation_id)
    }

    /// Takes the closed runs of every log; the log of a thread that has exited gives its
    /// newest run too and is dropped.
    pub(super) fn take_runs(&mut self) {
        let generation = self.generation;
        let runs = &mut self.runs;
        let mut keep = |run: Run| {
            if generation_of(run.string) == generation {
                runs.insert(run);
            }
        };
        self.logs.retain(|log| {
            log.take_closed(&mut keep);
            if Arc::strong_count(log) > 1 {
                return true;
            }
            // Its thread dropped its handle: the writes before that are visible after this.
            fence(Ordering::Acquire);
            if let Some(run) = log.newest() {
                keep(run);
            }
            false
        });
    }

    pub(super) fn find_run(&mut self, correlation_id: u64) -> Option<Run> {
        if self.logs.is_empty() && self.runs.is_empty() {
            // No thread recorded an annotation (most records of most sessions): no walk.
            return None;
        }
        if let Some(run) = self.run_in_taken(correlation_id) {
            return Some(run);
        }
        // A thread whose annotation has not changed keeps extending one open run: most
        // records of a steady workload are found there, without taking the closed runs.
        if let Some(run) = self.open_run(correlation_id) {
            return Some(run);
        }
        self.take_runs();
        self.run_in_taken(correlation_id)
            .or_else(|| self.open_run(correlation_id))
    }

    /// The open (newest) run of a thread's log that holds `correlation_id`: runs of one log
    /// never overlap, and an open run only grows, so one that holds the id is its run.
    fn open_run(&self, correlation_id: u64) -> Option<Run> {
        let generation = self.generation;
        self.logs.iter().filter_map(|log| log.newest()).find(|run| {
            generation_of(run.string) == generation
                && run.first <= correlation_id
                && correlation_id <= run.last
        })
    }

    fn string_of(&self, run: &Run) -> Option<Arc<str>> {
        let index = index_of(run.string);
        if generation_of(run.string) != self.generation
            || index == REFUSED
            || index == NO_ANNOTATION
        {
            return None;
        }
        self.strings.get(index)
    }

    /// The annotation and scope-range id of `correlation_id` (0 if none, as in XLA).
    fn look_up(&mut self, correlation_id: u64) -> (Option<Arc<str>>, i64) {
        let call = self.look_up_call(correlation_id);
        (call.annotation, call.scope_range_id)
    }

    fn look_up_call(&mut self, correlation_id: u64) -> CallAnnotation {
        let Some(run) = self.find_run(correlation_id) else {
            return CallAnnotation::default();
        };
        let annotation = self.string_of(&run);
        let in_session = generation_of(run.string) == self.generation;
        CallAnnotation {
            scope_range_id: if annotation.is_some() {
                run.scope_range_id
            } else {
                0
            },
            annotation,
            roctx_label: in_session.then(|| self.strings.label(run.label)).flatten(),
        }
    }
}

/// What a HIP call ran under, as the buffer thread reads it back for its records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallAnnotation {
    pub annotation: Option<Arc<str>>,
    /// 0 when the call had no scope-range id, as in XLA.
    pub scope_range_id: i64,
    /// The thread's innermost ROCTx range of the session at the call (XLA's `nvtx_range`).
    pub roctx_label: Option<Arc<str>>,
}

static NEXT_MAP_ID: AtomicU64 = AtomicU64::new(1);

/// XLA's `AnnotationMap`: interned annotation strings by correlation id, scope-range ids by
/// correlation id, and the child -> parent scope-range tree.
///
/// The application thread's side is lock-free once its annotation is known: a thread caches
/// what its current annotation stack resolved to (interned once per session) and writes runs
/// of correlation ids into its own [`ThreadAnnotationLog`] (`record.rs`, the one entry point
/// [`AnnotationMap::add_on_thread`]); look-ups (on the buffer thread) read the logs
/// (docs/ARCHITECTURE.md, "A kernel", step 1).
///
/// Unlike XLA, whose map is fixed at 1,048,576 strings whatever the options say (rough edge
/// docs/xla-interface.md#xla-edge-1), the capacity is set from `TracerOptions::max_annotation_strings` at every `enable()`.
/// The capacity bounds the distinct strings: once that many are stored, a call with a new
/// string is refused (counted in [`AnnotationMap::dropped`] and remembered, so that its events
/// are counted when delivered), while a call with a stored string still gets it. XLA refuses
/// every call once full, and nothing counted what was lost (issue 26).
pub struct AnnotationMap {
    pub(super) id: u64,
    /// Bumped by `clear` and `take_scope_range_id_tree`: every thread resolves its annotation
    /// again (re-adding its scope-range edges).
    pub(super) cache_epoch: AtomicU64,
    max_strings: AtomicU64,
    pub(super) dropped: AtomicU64,
    /// False until a thread first records an annotation here: until then a record's look-up
    /// answers "none" without the lock (a program that never annotates, traced through the
    /// tool library, pays no lock per record). Set under the lock before the run or log it
    /// announces; the call's records are delivered after its ENTER, so the buffer thread sees it.
    pub(super) annotated: AtomicBool,
    pub(super) inner: Mutex<AnnotationMapInner>,
}

impl AnnotationMap {
    pub fn new(max_strings: u64) -> AnnotationMap {
        AnnotationMap {
            id: NEXT_MAP_ID.fetch_add(1, Ordering::Relaxed),
            cache_epoch: AtomicU64::new(0),
            max_strings: AtomicU64::new(max_strings),
            dropped: AtomicU64::new(0),
            annotated: AtomicBool::new(false),
            inner: Mutex::new(AnnotationMapInner::default()),
        }
    }

    pub fn set_max_strings(&self, max_strings: u64) {
        self.max_strings.store(max_strings, Ordering::Relaxed);
    }

    pub fn max_strings(&self) -> u64 {
        self.max_strings.load(Ordering::Relaxed)
    }

    pub fn look_up(&self, correlation_id: u64) -> Option<Arc<str>> {
        self.inner.lock().look_up(correlation_id).0
    }

    /// Whether the full map refused the annotation of the call `correlation_id`.
    pub fn was_refused(&self, correlation_id: u64) -> bool {
        // Most sessions refuse nothing: no lock then.
        self.dropped() > 0
            && self
                .inner
                .lock()
                .find_run(correlation_id)
                .is_some_and(|run| index_of(run.string) == REFUSED)
    }

    /// 0 when the call had no scope-range id, as in XLA.
    pub fn look_up_scope_range_id(&self, correlation_id: u64) -> i64 {
        self.inner.lock().look_up(correlation_id).1
    }

    /// [`AnnotationMap::look_up`] and [`AnnotationMap::look_up_scope_range_id`] under one
    /// lock: the buffer thread decodes every record with it while app threads add.
    pub fn look_up_with_scope_range_id(&self, correlation_id: u64) -> (Option<Arc<str>>, i64) {
        self.inner.lock().look_up(correlation_id)
    }

    /// The annotation, scope-range id and ROCTx label of a call, under one lock: the buffer
    /// thread decodes every record with it while app threads add.
    pub fn look_up_call(&self, correlation_id: u64) -> CallAnnotation {
        if !self.annotated.load(Ordering::Acquire) {
            return CallAnnotation::default();
        }
        self.inner.lock().look_up_call(correlation_id)
    }

    pub fn take_scope_range_id_tree(&self) -> ScopeRangeIdTree {
        let mut inner = self.inner.lock();
        self.cache_epoch.fetch_add(1, Ordering::AcqRel);
        std::mem::take(&mut inner.scope_range_tree)
    }

    pub fn clear(&self) {
        let mut inner = self.inner.lock();
        self.cache_epoch.fetch_add(1, Ordering::AcqRel);
        for log in &inner.logs {
            log.discard();
        }
        let generation = next_generation(inner.generation);
        let logs = std::mem::take(&mut inner.logs);
        *inner = AnnotationMapInner {
            generation,
            logs,
            ..AnnotationMapInner::default()
        };
        self.dropped.store(0, Ordering::Relaxed);
    }

    /// The session's records were all delivered: drops what decoding them needed (runs,
    /// strings, labels: tens of MB for a long capture with many distinct annotations), and
    /// keeps the scope-range-id tree, which XLA takes after `Disable`, and the count of
    /// refused strings, which describes the session.
    pub fn end_session(&self) {
        let tree = std::mem::take(&mut self.inner.lock().scope_range_tree);
        let dropped = self.dropped();
        self.clear();
        self.inner.lock().scope_range_tree = tree;
        self.dropped.store(dropped, Ordering::Relaxed);
    }

    /// Distinct strings stored.
    pub fn len(&self) -> usize {
        self.inner.lock().strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `add`s refused since the last `clear()` because the map was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_looks_up_and_ignores_empty() {
        let map = AnnotationMap::new(10);
        map.add(1, "step", &[]);
        map.add(2, "step", &[]);
        map.add(3, "", &[7]);
        let a = map.look_up(1).unwrap();
        let b = map.look_up(2).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(map.look_up(3).is_none());
        assert_eq!(map.look_up_scope_range_id(3), 0);
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn capacity_refuses_new_strings_counts_and_remembers_them() {
        let map = AnnotationMap::new(2);
        map.add(1, "a", &[1]);
        map.add(2, "b", &[2]);
        map.add(3, "c", &[3]);
        map.add(4, "a", &[1]);
        assert!(map.look_up(3).is_none());
        assert_eq!(map.look_up_scope_range_id(3), 0);
        assert!(map.was_refused(3));
        // A stored string is still given to later calls.
        assert_eq!(map.look_up(4).as_deref(), Some("a"));
        assert!(!map.was_refused(4));
        assert_eq!(map.dropped(), 1);
        map.clear();
        map.set_max_strings(3);
        map.add(5, "c", &[]);
        assert_eq!(map.look_up(5).as_deref(), Some("c"));
        assert_eq!(map.dropped(), 0);
        assert!(!map.was_refused(3));
    }

    #[test]
    fn the_end_of_a_session_drops_its_strings_but_keeps_the_tree_and_the_refusals() {
        let map = AnnotationMap::new(1);
        map.add(1, "a", &[10, 20]);
        map.add(2, "b", &[]);
        assert_eq!((map.len(), map.dropped()), (1, 1));
        map.end_session();
        assert_eq!(map.len(), 0, "the strings are gone");
        assert!(map.look_up(1).is_none());
        assert_eq!(map.dropped(), 1);
        assert_eq!(map.take_scope_range_id_tree().get(&20), Some(&10));
    }

    #[test]
    fn scope_range_tree_walks_inner_to_outer_and_stops_at_known_child() {
        let map = AnnotationMap::new(100);
        map.add(1, "x", &[10, 20, 30]);
        assert_eq!(map.look_up_scope_range_id(1), 30);
        assert_eq!(
            map.look_up_with_scope_range_id(1),
            (Some(Arc::from("x")), 30)
        );
        assert_eq!(map.look_up_with_scope_range_id(7), (None, 0));
        map.add(2, "x", &[10, 20, 40]);
        map.add(3, "x", &[99, 20, 30]);
        let tree = map.take_scope_range_id_tree();
        assert_eq!(tree.get(&30), Some(&20));
        assert_eq!(tree.get(&20), Some(&10));
        assert_eq!(tree.get(&40), Some(&20));
        // 30 was already known, so the walk for [99, 20, 30] stopped at once.
        assert!(!tree.contains_key(&99));
        assert_eq!(tree.len(), 3);
        assert!(map.take_scope_range_id_tree().is_empty());
    }

    #[test]
    fn runs_of_interleaved_threads_keep_each_call_its_own_annotation() {
        let map = Arc::new(AnnotationMap::new(100));
        // Thread A makes the even ids, thread B the odd ones, one after the other; each
        // thread's stack is unchanged, so each writes one cached run per call, none joined.
        let (to_b, from_a) = std::sync::mpsc::channel::<u64>();
        let (to_a, from_b) = std::sync::mpsc::channel::<u64>();
        let b = {
            let map = map.clone();
            std::thread::spawn(move || {
                while let Ok(id) = from_a.recv() {
                    map.add(id + 1, "b", &[2]);
                    if to_a.send(id + 2).is_err() {
                        break;
                    }
                }
            })
        };
        let mut id = 0;
        for _ in 0..600 {
            map.add(id, "a", &[1]);
            to_b.send(id).unwrap();
            id = from_b.recv().unwrap();
        }
        drop(to_b);
        b.join().unwrap();
        for id in 0..1200u64 {
            let expected = if id % 2 == 0 { ("a", 1) } else { ("b", 2) };
            let (text, scope) = map.look_up_with_scope_range_id(id);
            assert_eq!(
                (text.as_deref(), scope),
                (Some(expected.0), expected.1),
                "id {id}"
            );
        }
        // Thread-local runs of consecutive ids: one run each, read in place.
        map.add(5000, "a", &[1]);
        map.add(5001, "a", &[1]);
        map.add(5002, "a", &[1]);
        assert_eq!(map.look_up(5001).as_deref(), Some("a"));
        assert_eq!(map.look_up(5003), None);
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn a_changed_stack_is_resolved_again() {
        let map = AnnotationMap::new(100);
        let mut text = String::from("x");
        map.add(1, &text, &[]);
        // The same buffer rewritten in place, no scope-range ids: compared by its text.
        text.replace_range(.., "y");
        map.add(2, &text, &[]);
        map.add(3, "y", &[4]);
        map.add(4, "y", &[5]);
        assert_eq!(map.look_up(1).as_deref(), Some("x"));
        assert_eq!(map.look_up(2).as_deref(), Some("y"));
        assert_eq!(map.look_up_scope_range_id(3), 4);
        assert_eq!(map.look_up_scope_range_id(4), 5);
        // A new session forgets what the thread had cached and recorded.
        map.clear();
        assert_eq!(map.look_up(4), None);
        map.add(5, "y", &[5]);
        assert_eq!(map.look_up(5).as_deref(), Some("y"));
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn a_thread_alternating_between_maps_keeps_each_run_in_its_own_map() {
        std::thread::spawn(|| {
            let (first, second) = (AnnotationMap::new(10), AnnotationMap::new(10));
            // The thread's fast copy follows one map at a time; its open run goes back to
            // that map's entry when the other map is written.
            for id in 1..=6u64 {
                first.add(id * 10, "one", &[1]);
                first.add(id * 10 + 1, "one", &[1]);
                second.add(id * 10 + 2, "two", &[2]);
            }
            for id in 1..=6u64 {
                assert_eq!(first.look_up(id * 10).as_deref(), Some("one"));
                assert_eq!(first.look_up(id * 10 + 1).as_deref(), Some("one"));
                assert_eq!(first.look_up(id * 10 + 2), None);
                assert_eq!(second.look_up(id * 10 + 2).as_deref(), Some("two"));
                assert_eq!(second.look_up(id * 10), None);
            }
            // A stack without scope-range ids is compared by its text, never from the copy.
            let mut text = String::from("x");
            first.add(100, &text, &[]);
            text.replace_range(.., "y");
            first.add(101, &text, &[]);
            assert_eq!(first.look_up(100).as_deref(), Some("x"));
            assert_eq!(first.look_up(101).as_deref(), Some("y"));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn the_open_run_of_an_exited_thread_is_kept() {
        let map = Arc::new(AnnotationMap::new(100));
        let writer = map.clone();
        std::thread::spawn(move || {
            for id in 10..20 {
                writer.add(id, "gone", &[3]);
            }
        })
        .join()
        .unwrap();
        assert_eq!(map.look_up(19).as_deref(), Some("gone"));
        assert_eq!(map.look_up(10).as_deref(), Some("gone"));
        assert_eq!(map.look_up(20), None);
    }
}
