//! The application thread's side of the annotation map: at the HIP API ENTER of each call,
//! the thread's annotation (and innermost ROCTx range label) is noted under the call's
//! correlation id through the one entry point, [`AnnotationMap::add_on_thread`].
//!
//! Lock-free once the thread's annotation is known: the thread keeps, per map, what its stack
//! last resolved to (a [`ThreadEntry`], copied into its `ThreadState` for the fast path) and
//! extends a run of its own correlation ids in its log (`thread_log.rs`). Only a changed stack,
//! a new session or a full log takes the map's lock.
use std::cell::RefCell;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::map::{AnnotationMap, AnnotationMapInner};
use super::strings::{index_of, packed_string, NO_ANNOTATION, NO_LABEL, REFUSED};
use super::thread_log::{Run, ThreadAnnotationLog};
use crate::tracer::roctx;
use crate::tracer::thread_state::{self, StackIdentity, ThreadAnnotationCache, ThreadState};

/// One thread's state for one map: its log, and the annotation its last call resolved to.
struct ThreadEntry {
    map_id: u64,
    log: Arc<ThreadAnnotationLog>,
    /// The map's `cache_epoch` when `string` was resolved (u64::MAX: never).
    epoch: u64,
    identity: StackIdentity,
    /// The text, kept only for a stack without scope-range ids.
    text: Vec<u8>,
    string: u64,
    scope_range_id: i64,
    /// The push id of the ROCTx frame `label` was read from (0: no label).
    label_frame: u64,
    label: u64,
    /// The last id of the open run in `log`, if it belongs to `string` of `epoch`.
    open_last: Option<u64>,
}

impl ThreadEntry {
    #[inline]
    fn matches(&self, epoch: u64, text: &[u8], scope_range_ids: &[i64], label_frame: u64) -> bool {
        self.epoch == epoch
            && self.label_frame == label_frame
            && self.identity == identity_of(text, scope_range_ids)
            && (!scope_range_ids.is_empty() || self.text == text)
    }
}

fn identity_of(text: &[u8], scope_range_ids: &[i64]) -> StackIdentity {
    StackIdentity {
        innermost_scope_range_id: scope_range_ids.last().copied().unwrap_or(0),
        depth: scope_range_ids.len(),
        // An empty text's pointer says nothing (it may dangle anywhere).
        text_ptr: if text.is_empty() {
            0
        } else {
            text.as_ptr() as usize
        },
        text_len: text.len(),
    }
}

/// A thread keeps entries for this many maps (one in a process with one tracer; tests make
/// more).
const THREAD_ENTRIES: usize = 4;

/// This thread's entries, one per map it recorded into; they own the thread's logs.
struct ThreadEntries(RefCell<Vec<ThreadEntry>>);

impl Drop for ThreadEntries {
    fn drop(&mut self) {
        // The logs may go with the entries: the fast copy must not point at one any more.
        thread_state::with(|thread| thread.annotation.forget());
    }
}

thread_local! {
    static THREAD_ENTRIES_OF_MAPS: ThreadEntries = const { ThreadEntries(RefCell::new(Vec::new())) };
}

/// The thread's copy of its most recently used [`ThreadEntry`] (layout in `thread_state`).
/// Cached only for a stack identified without its text (it has scope-range ids, or no text)
/// whose annotation was stored. The copy's `open_last` is the newer one: the slow path writes
/// it back to the entry before anything else. Its `log` points into an entry of this thread's
/// [`ThreadEntries`], forgotten before an entry can leave them.
impl ThreadAnnotationCache {
    fn forget(&self) {
        self.map_id.set(0);
        self.log.set(std::ptr::null());
    }

    /// The cached entry's open run, newer than the entry's own, back into it.
    fn write_back(&self, entries: &mut [ThreadEntry]) {
        let map_id = self.map_id.get();
        if map_id == 0 {
            return;
        }
        if let Some(entry) = entries.iter_mut().find(|entry| entry.map_id == map_id) {
            entry.open_last = Some(self.open_last.get());
        }
    }

    /// Copies `entry` if a call can extend its open run from the copy alone.
    fn copy(&self, entry: &ThreadEntry) {
        let identified = entry.identity.depth > 0 || entry.identity.text_len == 0;
        match entry.open_last {
            Some(open_last) if identified && index_of(entry.string) != REFUSED => {
                self.map_id.set(entry.map_id);
                self.log.set(Arc::as_ptr(&entry.log));
                self.epoch.set(entry.epoch);
                self.identity.set(entry.identity);
                self.label_frame.set(entry.label_frame);
                self.open_last.set(open_last);
            }
            _ => self.forget(),
        }
    }
}

impl AnnotationMap {
    /// [`AnnotationMap::add_on_thread`] for a test that does not hold the thread's state.
    #[cfg(test)]
    pub(crate) fn add(&self, correlation_id: u64, annotation: &str, scope_range_ids: &[i64]) {
        thread_state::with(|thread| {
            self.add_on_thread(
                thread,
                correlation_id,
                annotation.as_bytes(),
                scope_range_ids,
            )
        });
    }

    /// The one entry point: records the annotation text `text` (tsl's, not yet checked to be
    /// UTF-8; an empty one records no annotation) and the innermost of `scope_range_ids` of the
    /// calling thread, whose state the caller holds, under `correlation_id`, with the thread's
    /// innermost ROCTx range label of the session, and adds the ids' child -> parent edges to
    /// the tree (walking from the innermost id outwards, stopping at the first id the tree
    /// already has). The text is converted (lossily, if it is not UTF-8) and interned only when
    /// the thread's stack changed. Correlation ids of one thread increase, as the SDK's do.
    ///
    /// The HIP API ENTER callback's one thread-local access serves this too. Always inlined:
    /// the fast path is a few compares and two stores, smaller than a call (measured with
    /// callgrind).
    #[inline(always)]
    pub fn add_on_thread(
        &self,
        thread: &ThreadState,
        correlation_id: u64,
        text: &[u8],
        scope_range_ids: &[i64],
    ) {
        let label_frame = thread.roctx.labelled_frame();
        if text.is_empty() && label_frame == 0 {
            return;
        }
        // The common case, kept small: this thread's stack, range and session are unchanged
        // and the call follows the thread's last one, so it only extends the open run.
        let cache = &thread.annotation;
        if cache.map_id.get() == self.id
            && cache.open_last.get().checked_add(1) == Some(correlation_id)
            && cache.epoch.get() == self.cache_epoch.load(Ordering::Acquire)
            && cache.label_frame.get() == label_frame
            && cache.identity.get() == identity_of(text, scope_range_ids)
        {
            // SAFETY: a non-zero `map_id` means `log` points at the log of an entry still in
            // this thread's `ThreadEntries` (see `ThreadAnnotationCache::log`), alive.
            unsafe { &*cache.log.get() }.extend_newest(correlation_id);
            cache.open_last.set(correlation_id);
            return;
        }
        self.add_on_thread_changed(thread, correlation_id, text, scope_range_ids);
    }

    /// [`AnnotationMap::add_on_thread`] when the cached copy does not cover the call.
    #[cold]
    #[inline(never)]
    fn add_on_thread_changed(
        &self,
        thread: &ThreadState,
        correlation_id: u64,
        text: &[u8],
        scope_range_ids: &[i64],
    ) {
        roctx::with_current_label(|label| {
            if text.is_empty() && label.is_none() {
                // The range's stack is gone (thread teardown) though the copy of its top is not.
                return;
            }
            let written = THREAD_ENTRIES_OF_MAPS.try_with(|entries| {
                let Ok(mut entries) = entries.0.try_borrow_mut() else {
                    return false;
                };
                let cache = &thread.annotation;
                cache.write_back(&mut entries);
                // `add_changed` may drop an entry (and its log).
                cache.forget();
                let epoch = self.cache_epoch.load(Ordering::Acquire);
                let entry = self.add_changed(
                    &mut entries,
                    epoch,
                    correlation_id,
                    (text, scope_range_ids),
                    label,
                );
                cache.copy(entry);
                true
            });
            if written != Ok(true) {
                self.add_without_thread_entry(correlation_id, text, scope_range_ids, label);
            }
        })
    }

    /// A call of this thread whose stack, range, session or run changed: found or made its
    /// entry, resolved it again if needed, written the call.
    #[cold]
    #[inline(never)]
    fn add_changed<'e>(
        &self,
        entries: &'e mut Vec<ThreadEntry>,
        epoch: u64,
        correlation_id: u64,
        (text, scope_range_ids): (&[u8], &[i64]),
        label: Option<(u64, &Arc<str>)>,
    ) -> &'e ThreadEntry {
        let entry = match entries.iter().position(|e| e.map_id == self.id) {
            Some(position) => &mut entries[position],
            None => {
                if entries.len() >= THREAD_ENTRIES {
                    entries.remove(0);
                }
                entries.push(self.new_thread_entry());
                let last = entries.len() - 1;
                &mut entries[last]
            }
        };
        let label_frame = label.map_or(0, |(frame, _)| frame);
        if !entry.matches(epoch, text, scope_range_ids, label_frame) {
            self.resolve(entry, epoch, (text, scope_range_ids), label);
        }
        self.write(entry, correlation_id);
        entry
    }

    /// No thread-local (the thread is exiting) or a re-entrant call: a run of one call,
    /// straight into the taken runs.
    #[cold]
    #[inline(never)]
    fn add_without_thread_entry(
        &self,
        correlation_id: u64,
        text: &[u8],
        scope_range_ids: &[i64],
        label: Option<(u64, &Arc<str>)>,
    ) {
        let mut inner = self.inner.lock();
        let (string, scope_range_id) = self.resolve_locked(&mut inner, text, scope_range_ids);
        let label = label.map_or(NO_LABEL, |(_, label)| inner.strings.intern_label(label));
        self.count_refused(string);
        let run = Run {
            first: correlation_id,
            last: correlation_id,
            string,
            scope_range_id,
            label,
        };
        self.annotated.store(true, Ordering::Release);
        inner.runs.insert(run);
    }

    fn new_thread_entry(&self) -> ThreadEntry {
        let log = Arc::new(ThreadAnnotationLog::new());
        let mut inner = self.inner.lock();
        self.annotated.store(true, Ordering::Release);
        inner.logs.push(log.clone());
        drop(inner);
        ThreadEntry {
            map_id: self.id,
            log,
            epoch: u64::MAX,
            identity: identity_of(&[], &[]),
            text: Vec::new(),
            string: 0,
            scope_range_id: 0,
            label_frame: 0,
            label: NO_LABEL,
            open_last: None,
        }
    }

    /// A thread's stack or ROCTx range changed (or the session did): intern its text and label,
    /// add its scope-range edges, remember them.
    fn resolve(
        &self,
        entry: &mut ThreadEntry,
        epoch: u64,
        (text, ids): (&[u8], &[i64]),
        label: Option<(u64, &Arc<str>)>,
    ) {
        let mut inner = self.inner.lock();
        let (string, scope_range_id) = self.resolve_locked(&mut inner, text, ids);
        entry.label = label.map_or(NO_LABEL, |(_, label)| inner.strings.intern_label(label));
        entry.label_frame = label.map_or(0, |(frame, _)| frame);
        drop(inner);
        entry.epoch = epoch;
        entry.identity = identity_of(text, ids);
        entry.text.clear();
        if ids.is_empty() {
            entry.text.extend_from_slice(text);
        }
        entry.string = string;
        entry.scope_range_id = scope_range_id;
        entry.open_last = None;
    }

    /// (packed string, scope-range id) of a stack; a new string past the capacity is refused.
    fn resolve_locked(
        &self,
        inner: &mut AnnotationMapInner,
        text: &[u8],
        scope_range_ids: &[i64],
    ) -> (u64, i64) {
        if text.is_empty() {
            // Only a ROCTx label to record: no annotation, no scope range (as XLA ignores an
            // empty annotation).
            return (packed_string(inner.generation, NO_ANNOTATION), 0);
        }
        // tsl's annotations are UTF-8; the lossy copy is only for one that is not.
        let text = String::from_utf8_lossy(text);
        let max = self.max_strings().min(REFUSED);
        let Some(index) = inner.strings.intern(&text, max) else {
            return (packed_string(inner.generation, REFUSED), 0);
        };
        for pair in scope_range_ids.windows(2).rev() {
            let (parent, child) = (pair[0], pair[1]);
            if inner.scope_range_tree.contains_key(&child) {
                break;
            }
            inner.scope_range_tree.insert(child, parent);
        }
        let innermost = scope_range_ids.last().copied().unwrap_or(0);
        (packed_string(inner.generation, index), innermost)
    }

    fn count_refused(&self, string: u64) {
        if index_of(string) == REFUSED {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The call joins the thread's open run if it follows it, else starts a run.
    fn write(&self, entry: &mut ThreadEntry, correlation_id: u64) {
        self.count_refused(entry.string);
        if entry.open_last.and_then(|last| last.checked_add(1)) == Some(correlation_id) {
            entry.log.extend_newest(correlation_id);
        } else {
            let run = Run {
                first: correlation_id,
                last: correlation_id,
                string: entry.string,
                scope_range_id: entry.scope_range_id,
                label: entry.label,
            };
            if !entry.log.push(run) {
                // Nobody has read the log for a while: take its runs here.
                self.inner.lock().take_runs();
                if !entry.log.push(run) {
                    // Only if the log was discarded meanwhile: no room is impossible.
                    self.inner.lock().runs.insert(run);
                }
            }
        }
        entry.open_last = Some(correlation_id);
    }
}
