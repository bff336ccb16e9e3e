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
use std::hash::BuildHasher;
use std::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use hashbrown::HashTable;
use parking_lot::Mutex;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::tracer::annotation::taken_runs::TakenRuns;
use crate::tracer::annotation::thread_log::{Run, ThreadAnnotationLog};
use crate::tracer::roctx;
use crate::tracer::thread_state::{self, StackIdentity, ThreadAnnotationCache, ThreadState};

/// XLA's `ScopeRangeIdTree`: child scope-range id -> parent id.
pub type ScopeRangeIdTree = HashMap<i64, i64>;

/// The capacity XLA's `device_tracer_rocm.cc` asks for (`kDefaultMaxAnnotationStrings`).
pub const DEFAULT_MAX_ANNOTATION_STRINGS: u64 = 4 * 1024 * 1024;

/// The string index of a run whose annotation the full map refused.
const REFUSED: u64 = u32::MAX as u64;
/// The string index of a run of calls without annotation (made inside a ROCTx range).
const NO_ANNOTATION: u64 = REFUSED - 1;
/// A run's `label` when its calls were made outside any ROCTx range of the session.
const NO_LABEL: u64 = u64::MAX;

/// A run's `string`: the session generation above, the string's index below.
fn packed_string(generation: u64, index: u64) -> u64 {
    (generation << 32) | (index & 0xffff_ffff)
}

#[derive(Default)]
struct AnnotationMapInner {
    /// Session generation: a run written under another one is ignored.
    generation: u64,
    /// Indexes into `strings` by the string's hash (each string held once, in `strings`).
    // Fx hashing: interned once per distinct string and session, on a thread's cache miss;
    // neither the strings nor the ids are chosen by an adversary.
    index_of: HashTable<u32>,
    strings: Vec<Arc<str>>,
    /// The session's ROCTx labels, interned as the annotations are (not counted against the
    /// annotation capacity: a label is one per range the program pushed).
    label_index_of: FxHashMap<Arc<str>, u64>,
    labels: Vec<Arc<str>>,
    /// Closed runs taken from the threads' logs, by first correlation id. Runs never overlap:
    /// each holds consecutive ids of one thread.
    runs: TakenRuns,
    /// Every thread's log (a thread's own is registered at its first annotated call).
    logs: Vec<Arc<ThreadAnnotationLog>>,
    scope_range_tree: ScopeRangeIdTree,
}

impl AnnotationMapInner {
    fn run_in_taken(&self, correlation_id: u64) -> Option<Run> {
        self.runs.covering(correlation_id)
    }

    /// Takes the closed runs of every log; the log of a thread that has exited gives its
    /// newest run too and is dropped.
    fn take_runs(&mut self) {
        let generation = self.generation;
        let runs = &mut self.runs;
        let mut keep = |run: Run| {
            if run.string >> 32 == generation {
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

    fn find_run(&mut self, correlation_id: u64) -> Option<Run> {
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
            run.string >> 32 == generation
                && run.first <= correlation_id
                && correlation_id <= run.last
        })
    }

    fn string_of(&self, run: &Run) -> Option<Arc<str>> {
        let index = run.string & 0xffff_ffff;
        if run.string >> 32 != self.generation || index == REFUSED || index == NO_ANNOTATION {
            return None;
        }
        self.strings.get(index as usize).cloned()
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
        let in_session = run.string >> 32 == self.generation;
        CallAnnotation {
            scope_range_id: if annotation.is_some() {
                run.scope_range_id
            } else {
                0
            },
            annotation,
            roctx_label: usize::try_from(run.label)
                .ok()
                .filter(|_| in_session)
                .and_then(|index| self.labels.get(index).cloned()),
        }
    }

    /// The interned index of a ROCTx label in this session.
    fn intern_label(&mut self, label: &Arc<str>) -> u64 {
        if let Some(&index) = self.label_index_of.get(label) {
            return index;
        }
        let index = self.labels.len() as u64;
        self.labels.push(label.clone());
        self.label_index_of.insert(label.clone(), index);
        index
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
            Some(open_last) if identified && entry.string & 0xffff_ffff != REFUSED => {
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

static NEXT_MAP_ID: AtomicU64 = AtomicU64::new(1);

/// XLA's `AnnotationMap`: interned annotation strings by correlation id, scope-range ids by
/// correlation id, and the child -> parent scope-range tree.
///
/// The application thread's side is lock-free once its annotation is known: a thread caches
/// what its current annotation stack resolved to (interned once per session) and writes runs
/// of correlation ids into its own [`ThreadAnnotationLog`]; look-ups (on the buffer thread)
/// read the logs (docs/ARCHITECTURE.md, "A kernel", step 1).
///
/// Unlike XLA, whose map is fixed at 1,048,576 strings whatever the options say (rough edge
/// docs/xla-interface.md#xla-edge-1), the capacity is set from `TracerOptions::max_annotation_strings` at every `enable()`.
/// The capacity bounds the distinct strings: once that many are stored, a call with a new
/// string is refused (counted in [`AnnotationMap::dropped`] and remembered, so that its events
/// are counted when delivered), while a call with a stored string still gets it. XLA refuses
/// every call once full, and nothing counted what was lost (issue 26).
pub struct AnnotationMap {
    id: u64,
    /// Bumped by `clear` and `take_scope_range_id_tree`: every thread resolves its annotation
    /// again (re-adding its scope-range edges).
    cache_epoch: AtomicU64,
    max_strings: AtomicU64,
    dropped: AtomicU64,
    /// False until a thread first records an annotation here: until then a record's look-up
    /// answers "none" without the lock (a program that never annotates, traced through the
    /// tool library, pays no lock per record). Set under the lock before the run or log it
    /// announces; the call's records are delivered after its ENTER, so the buffer thread sees it.
    annotated: AtomicBool,
    inner: Mutex<AnnotationMapInner>,
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

    /// Records `annotation` (ignored if empty) and the innermost of `scope_range_ids` for
    /// `correlation_id`, and adds the ids' child -> parent edges to the tree, walking from the
    /// innermost id outwards and stopping at the first id the tree already has.
    pub fn add(&self, correlation_id: u64, annotation: &str, scope_range_ids: &[i64]) {
        self.add_bytes(correlation_id, annotation.as_bytes(), scope_range_ids)
    }

    /// [`AnnotationMap::add`] for a text not yet checked to be UTF-8 (tsl's): converted (lossily,
    /// if it is not UTF-8) only when the thread's stack changed. Correlation ids of one thread
    /// increase, as the SDK's do. The thread's innermost ROCTx range label of the session is
    /// recorded with the call too (an empty text with a label still records the label).
    pub fn add_bytes(&self, correlation_id: u64, text: &[u8], scope_range_ids: &[i64]) {
        let added = thread_state::with(|thread| {
            self.add_on_thread(thread, correlation_id, text, scope_range_ids)
        });
        if added.is_none() {
            roctx::with_current_label(|label| {
                self.add_without_thread_entry(correlation_id, text, scope_range_ids, label)
            });
        }
    }

    /// [`AnnotationMap::add_bytes`] on the calling thread, whose state the caller holds: the
    /// HIP API ENTER callback's one thread-local access serves this too. Always inlined: the
    /// fast path is a few compares and two stores, smaller than a call (measured with callgrind).
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
        let label = label.map_or(NO_LABEL, |(_, label)| inner.intern_label(label));
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
        entry.label = label.map_or(NO_LABEL, |(_, label)| inner.intern_label(label));
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
        let hash = FxBuildHasher.hash_one(text.as_ref());
        let strings = &inner.strings;
        let known = inner
            .index_of
            .find(hash, |&index| *strings[index as usize] == *text);
        let index = match known {
            Some(&index) => u64::from(index),
            None if inner.strings.len() as u64 >= self.max_strings().min(REFUSED) => {
                return (packed_string(inner.generation, REFUSED), 0);
            }
            None => {
                let fresh: Arc<str> = Arc::from(text.as_ref());
                let index = inner.strings.len() as u32;
                inner.strings.push(fresh);
                let strings = &inner.strings;
                inner.index_of.insert_unique(hash, index, |&index| {
                    FxBuildHasher.hash_one(&*strings[index as usize])
                });
                u64::from(index)
            }
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
        if string & 0xffff_ffff == REFUSED {
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
                .is_some_and(|run| run.string & 0xffff_ffff == REFUSED)
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
        let generation = (inner.generation + 1) & 0xffff_ffff;
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
    if thread_state::with(|thread| source.record(correlation_id, map, thread)).is_none() {
        source.with_current(&mut |annotation, scope_range_ids| {
            map.add(correlation_id, annotation, scope_range_ids)
        });
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
