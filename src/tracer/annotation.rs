//! Annotations: what the profiled program was doing when it issued a HIP call.
//!
//! The HIP API ENTER callback runs on the launching thread, asks the [`AnnotationSource`] for
//! that thread's current annotation and scope-range ids, and records them in the
//! [`AnnotationMap`] under the call's internal correlation id; the buffer records of the call
//! and of the work it enqueued look them up again by that id (docs/xla-interface.md#utilities-header, #initialization-order
//! step 8). Inside XLA the source is tsl's `AnnotationStack` (installed by the C++ shim);
//! standalone it is [`ThreadAnnotationStack`], driven by [`push_annotation`] / [`pop_annotation`].
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use rustc_hash::{FxHashMap, FxHashSet};

/// XLA's `ScopeRangeIdTree`: child scope-range id -> parent id.
pub type ScopeRangeIdTree = HashMap<i64, i64>;

/// The capacity XLA's `device_tracer_rocm.cc` asks for (`kDefaultMaxAnnotationStrings`).
pub const DEFAULT_MAX_ANNOTATION_STRINGS: u64 = 4 * 1024 * 1024;

#[derive(Default)]
struct AnnotationMapInner {
    // Fx hashing: these maps are written on every annotated HIP call of the profiled program,
    // and neither the strings nor the ids are chosen by an adversary.
    strings: FxHashSet<Arc<str>>,
    by_correlation: FxHashMap<u64, Arc<str>>,
    scope_range_by_correlation: FxHashMap<u64, i64>,
    scope_range_tree: ScopeRangeIdTree,
    /// Calls whose annotation the full map refused: their events are counted as kept without
    /// their annotation when they are delivered (`DropReason::AnnotationCapReached`).
    refused: FxHashSet<u64>,
}

/// XLA's `AnnotationMap`: interned annotation strings by correlation id, scope-range ids by
/// correlation id, and the child -> parent scope-range tree.
///
/// Unlike XLA, whose map is fixed at 1,048,576 strings whatever the options say (rough edge
/// docs/xla-interface.md#xla-edge-1), the capacity is set from `TracerOptions::max_annotation_strings` at every `enable()`.
/// The capacity bounds the distinct strings: once that many are stored, a call with a new
/// string is refused (counted in [`AnnotationMap::dropped`] and remembered, so that its events
/// are counted when delivered), while a call with a stored string still gets it. XLA refuses
/// every call once full, and nothing counted what was lost (issue 26).
pub struct AnnotationMap {
    max_strings: AtomicU64,
    dropped: AtomicU64,
    inner: Mutex<AnnotationMapInner>,
}

impl AnnotationMap {
    pub fn new(max_strings: u64) -> AnnotationMap {
        AnnotationMap {
            max_strings: AtomicU64::new(max_strings),
            dropped: AtomicU64::new(0),
            inner: Mutex::new(AnnotationMapInner::default()),
        }
    }

    pub fn set_max_strings(&self, max_strings: u64) {
        self.max_strings.store(max_strings, Ordering::Relaxed);
    }

    pub fn max_strings(&self) -> u64 {
        self.max_strings.load(Ordering::Relaxed)
    }

    /// Records `annotation` (ignored if empty) and the innermost of `scope_range_ids` for
    /// `correlation_id`, and adds the ids' child -> parent edges to the tree, walking from the
    /// innermost id outwards and stopping at the first id the tree already has.
    pub fn add(&self, correlation_id: u64, annotation: &str, scope_range_ids: &[i64]) {
        if annotation.is_empty() {
            return;
        }
        let max = self.max_strings();
        let mut inner = self.inner.lock();
        let interned = match inner.strings.get(annotation) {
            Some(existing) => existing.clone(),
            None if inner.strings.len() as u64 >= max => {
                inner.refused.insert(correlation_id);
                drop(inner);
                self.dropped.fetch_add(1, Ordering::Relaxed);
                return;
            }
            None => {
                let fresh: Arc<str> = Arc::from(annotation);
                inner.strings.insert(fresh.clone());
                fresh
            }
        };
        inner.by_correlation.insert(correlation_id, interned);
        if let Some(&innermost) = scope_range_ids.last() {
            inner
                .scope_range_by_correlation
                .insert(correlation_id, innermost);
            for pair in scope_range_ids.windows(2).rev() {
                let (parent, child) = (pair[0], pair[1]);
                if inner.scope_range_tree.contains_key(&child) {
                    break;
                }
                inner.scope_range_tree.insert(child, parent);
            }
        }
    }

    pub fn look_up(&self, correlation_id: u64) -> Option<Arc<str>> {
        self.inner
            .lock()
            .by_correlation
            .get(&correlation_id)
            .cloned()
    }

    /// Whether the full map refused the annotation of the call `correlation_id`.
    pub fn was_refused(&self, correlation_id: u64) -> bool {
        // Most sessions refuse nothing: no lock then.
        self.dropped() > 0 && self.inner.lock().refused.contains(&correlation_id)
    }

    /// 0 when the call had no scope-range id, as in XLA.
    pub fn look_up_scope_range_id(&self, correlation_id: u64) -> i64 {
        Self::scope_range_id_in(&self.inner.lock(), correlation_id)
    }

    /// [`AnnotationMap::look_up`] and [`AnnotationMap::look_up_scope_range_id`] under one
    /// lock: the buffer thread decodes every record with it while app threads add.
    pub fn look_up_with_scope_range_id(&self, correlation_id: u64) -> (Option<Arc<str>>, i64) {
        let inner = self.inner.lock();
        (
            inner.by_correlation.get(&correlation_id).cloned(),
            Self::scope_range_id_in(&inner, correlation_id),
        )
    }

    fn scope_range_id_in(inner: &AnnotationMapInner, correlation_id: u64) -> i64 {
        inner
            .scope_range_by_correlation
            .get(&correlation_id)
            .copied()
            .unwrap_or(0)
    }

    pub fn take_scope_range_id_tree(&self) -> ScopeRangeIdTree {
        std::mem::take(&mut self.inner.lock().scope_range_tree)
    }

    pub fn clear(&self) {
        *self.inner.lock() = AnnotationMapInner::default();
        self.dropped.store(0, Ordering::Relaxed);
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

/// Where the current annotation of a thread comes from. Called on the launching thread inside
/// the HIP API ENTER callback, so it must be cheap and must not call HIP.
pub trait AnnotationSource: Send + Sync {
    /// Calls `f` once with the calling thread's current annotation ("" if none) and its
    /// scope-range ids, outermost first.
    fn with_current(&self, f: &mut dyn FnMut(&str, &[i64]));

    /// Records the calling thread's annotation under `correlation_id`: by default into the
    /// tracer's `map`; a source with its own store (the C++ shim's, whose XLA callers read
    /// `RocmTracer::annotation_map()`) overrides it.
    fn record(&self, correlation_id: u64, map: &AnnotationMap) {
        self.with_current(&mut |annotation, scope_range_ids| {
            map.add(correlation_id, annotation, scope_range_ids)
        });
    }

    /// A session starts (the tracer decided it may): forget what the last one recorded.
    fn session_starts(&self, map: &AnnotationMap) {
        map.clear();
    }
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
