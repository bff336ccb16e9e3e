//! What each SDK stream id stands for: the `hipStream_t` behind it (so the null, legacy and
//! per-thread streams can be told apart) and the name the program gave it with ROCTx's
//! `roctxNameHipStream` (docs/xla-interface.md#stream-lanes).
//!
//! Fed by the process-lifetime stream context, so streams created and named before the first
//! `enable()` count: HIP_STREAM CREATE and DESTROY (phase NONE; queued without a lock by
//! `notes.rs`, applied by the registry's next holder), HIP_STREAM SET ENTER on
//! one of the reserved handles 0/1/2 (a thread-local cache keeps repeated SETs off the lock),
//! and MARKER_NAME_API `roctxNameHipStream` ENTER. `disable()` sends a snapshot to the sink.
//!
//! A name belongs to the SDK stream id the handle had when it was named: a destroyed stream's
//! address that HIP hands out again gets a new id at its CREATE, and no name until it is named.
use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::{Arc, LazyLock};

use parking_lot::{Mutex, MutexGuard};
use rocprofiler_sdk_sys as sys;

use crate::event::{StreamKind, StreamLabel};
use crate::tracer::streams::notes::{StreamNote, StreamNotes};
use crate::tracer::thread_state::{self, SeenReservedHandles, ThreadState, REMEMBERED_IDS};

/// Longest name kept, in bytes; longer ones are cut at a character boundary.
pub(crate) const MAX_NAME_BYTES: usize = 256;

#[derive(Default)]
struct Registry {
    /// Live handle -> its current SDK stream id.
    current: HashMap<u64, u64>,
    /// SDK stream id -> what is known about it.
    labels: HashMap<u64, StreamLabel>,
    /// SDK stream id -> length in bytes of the name it was given, when that was cut.
    cut: HashMap<u64, usize>,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(|| Mutex::new(Registry::default()));

/// CREATE and DESTROY not yet applied to the registry: whoever holds it next applies them
/// first (`locked_registry`), so the creating thread never waits for the lock.
static NOTES: LazyLock<StreamNotes> = LazyLock::new(StreamNotes::new);

fn apply(registry: &mut Registry, note: StreamNote) {
    match note {
        StreamNote::Created { stream_id, handle } => {
            registry.labels.remove(&stream_id);
            registry.see(stream_id, handle);
        }
        StreamNote::Destroyed { handle } => {
            registry.current.remove(&handle);
        }
    }
}

/// The registry, with every queued CREATE and DESTROY applied.
fn locked_registry() -> MutexGuard<'static, Registry> {
    let mut registry = REGISTRY.lock();
    NOTES.take(|note| apply(&mut registry, note));
    registry
}

/// [`locked_registry`], or None if another thread holds it.
fn try_locked_registry() -> Option<MutexGuard<'static, Registry>> {
    let mut registry = REGISTRY.try_lock()?;
    NOTES.take(|note| apply(&mut registry, note));
    Some(registry)
}

/// Queues a CREATE or DESTROY; when the queue is full, applies it under the lock.
fn note(note: StreamNote) {
    if !NOTES.push(note) {
        apply(&mut locked_registry(), note);
    }
}

// A reserved handle stands for one stream per device (the null stream of each GPU), so a
// thread alternating between GPUs sees several ids on one handle: with one remembered id it
// would take the lock on every call, hence `REMEMBERED_IDS` per handle. Row 2's first id is
// also this thread's own `hipStreamPerThread`: each thread has its own, so a name given to
// handle 2 on this thread belongs to the stream it used last.

/// Moves `stream_id` to the front of `row`; whether it was not there (then the oldest id is
/// forgotten).
fn remember(row: &mut [u64; REMEMBERED_IDS], stream_id: u64) -> bool {
    let position = row.iter().position(|&id| id == stream_id);
    let end = position.unwrap_or(REMEMBERED_IDS - 1);
    row[..=end].rotate_right(1);
    row[0] = stream_id;
    position.is_none()
}

/// `hipStreamPerThread`.
const PER_THREAD_HANDLE: u64 = 2;

impl Registry {
    fn see(&mut self, stream_id: u64, handle: u64) {
        self.current.insert(handle, stream_id);
        // Newer SDKs give `hipStreamLegacy` the null stream's id 0: that lane is the null
        // stream's, whichever of the two handles was seen first.
        let (handle, kind) = if stream_id == 0 && handle == 1 {
            (0, StreamKind::Null)
        } else {
            (handle, StreamKind::of_handle(handle))
        };
        let label = self.labels.entry(stream_id).or_insert(StreamLabel {
            stream_id,
            handle,
            kind,
            name: None,
        });
        if label.handle != handle {
            // The id now stands for another stream (the SDK 1.0.0 map moves the null stream
            // to a new id after a failed create): forget what the old one was called.
            *label = StreamLabel {
                stream_id,
                handle,
                kind,
                name: None,
            };
        }
    }
}

/// HIP_STREAM CREATE: `handle` now has SDK id `stream_id`, with no name yet.
pub(crate) fn note_created(stream_id: u64, handle: u64) {
    note(StreamNote::Created { stream_id, handle });
}

/// HIP_STREAM DESTROY: the handle is free for reuse; its id keeps its label for the lanes
/// that already show it.
pub(crate) fn note_destroyed(handle: u64) {
    note(StreamNote::Destroyed { handle });
}

/// HIP_STREAM SET ENTER on `thread`: records reserved handles (null, legacy, per-thread) by
/// their id. One compare when the handle is an ordinary stream (almost every call). This runs
/// on the application thread for every HIP call with a stream, so it never waits: when another
/// thread holds the registry, the id stays unremembered and the next SET retries.
#[inline]
pub(crate) fn note_set(thread: &ThreadState, stream_id: u64, handle: u64) {
    if handle <= PER_THREAD_HANDLE {
        note_reserved_set(&thread.reserved_handles, stream_id, handle);
    }
}

#[cold]
#[inline(never)]
fn note_reserved_set(seen: &SeenReservedHandles, stream_id: u64, handle: u64) {
    let row = handle as usize;
    let mut rows = seen.0.get();
    if rows[row].contains(&stream_id) {
        remember(&mut rows[row], stream_id);
        seen.0.set(rows);
        return;
    }
    if let Some(mut registry) = try_locked_registry() {
        registry.see(stream_id, handle);
        drop(registry);
        let mut rows = seen.0.get();
        remember(&mut rows[row], stream_id);
        seen.0.set(rows);
    }
}

/// `roctxNameHipStream(name, handle)` on the calling thread: names the stream the handle
/// currently stands for. `hipStreamPerThread` is the calling thread's own (known once a SET on
/// it was seen on this thread); the null stream and `hipStreamLegacy` are id 0 when no SET
/// showed otherwise; another unknown handle is ignored (its CREATE was not seen, so no id can
/// carry the name).
pub(crate) fn note_name(handle: u64, name: &str) {
    let given_len = name.len();
    let name = truncate(name);
    let per_thread = if handle == PER_THREAD_HANDLE {
        match thread_state::with(|thread| {
            thread.reserved_handles.0.get()[PER_THREAD_HANDLE as usize][0]
        }) {
            Some(id) if id != u64::MAX => Some(id),
            _ => return,
        }
    } else {
        None
    };
    let mut registry = locked_registry();
    let stream_id = match (per_thread, registry.current.get(&handle)) {
        (Some(id), _) => {
            registry.see(id, PER_THREAD_HANDLE);
            id
        }
        (None, Some(&id)) => id,
        (None, None) if handle <= 1 => {
            registry.see(0, handle);
            0
        }
        (None, None) => return,
    };
    if let Some(label) = registry.labels.get_mut(&stream_id) {
        label.name = Some(Arc::from(name));
        if name.len() < given_len {
            registry.cut.insert(stream_id, given_len);
        } else {
            registry.cut.remove(&stream_id);
        }
    }
}

/// The trace warning for the streams among `labels` whose ROCTx name was cut to
/// [`MAX_NAME_BYTES`], if any: "2 stream names given with roctxNameHipStream were longer than
/// 256 bytes and are cut (stream ids 5 of 10240 bytes, 7 of 300 bytes)".
pub(crate) fn cut_names_warning(labels: &[StreamLabel]) -> Option<String> {
    let registry = locked_registry();
    let mut cut: Vec<(u64, usize)> = labels
        .iter()
        .filter_map(|label| Some((label.stream_id, *registry.cut.get(&label.stream_id)?)))
        .collect();
    if cut.is_empty() {
        return None;
    }
    cut.sort_unstable();
    let which: Vec<String> = cut
        .iter()
        .map(|(id, len)| format!("{id} of {len} bytes"))
        .collect();
    Some(format!(
        "{} stream name{} given with roctxNameHipStream {} longer than {MAX_NAME_BYTES} bytes \
         and {} cut to {MAX_NAME_BYTES} (SDK stream id{} {})",
        cut.len(),
        if cut.len() == 1 { "" } else { "s" },
        if cut.len() == 1 { "was" } else { "were" },
        if cut.len() == 1 { "is" } else { "are" },
        if cut.len() == 1 { "" } else { "s" },
        which.join(", ")
    ))
}

fn truncate(name: &str) -> &str {
    if name.len() <= MAX_NAME_BYTES {
        return name;
    }
    let mut end = MAX_NAME_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// Every known stream, by id; the null stream (id 0) is always listed. Streams destroyed since
/// are then forgotten (the session that saw them has them), so the registry holds the live
/// streams plus those destroyed during the running session.
pub(crate) fn snapshot() -> Vec<StreamLabel> {
    let mut registry = locked_registry();
    if !registry.labels.contains_key(&0) && !registry.current.contains_key(&0) {
        registry.see(0, 0);
    }
    let mut labels: Vec<StreamLabel> = registry.labels.values().cloned().collect();
    labels.sort_by_key(|label| label.stream_id);
    let Registry {
        current,
        labels: known,
        cut,
    } = &mut *registry;
    known.retain(|&id, label| {
        label.kind != StreamKind::Created || current.get(&label.handle) == Some(&id)
    });
    cut.retain(|id, _| known.contains_key(id));
    labels
}

/// The MARKER_NAME_API callback of the process-lifetime stream context: at ENTER of
/// `roctxNameHipStream`, records the name; everything else is ignored.
///
/// # Safety
/// Called by the SDK with `record.payload` null or pointing to a
/// `rocprofiler_callback_tracing_marker_api_data_t` valid for the duration of the call, whose
/// `name` is null or a NUL-terminated string.
pub(crate) unsafe extern "C" fn marker_name_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut std::ffi::c_void,
) {
    if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API
        || record.operation != sys::ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream
        || record.phase != sys::ROCPROFILER_CALLBACK_PHASE_ENTER
    {
        return;
    }
    let payload = record.payload as *const sys::rocprofiler_callback_tracing_marker_api_data_t;
    if payload.is_null() {
        return;
    }
    // SAFETY: non-null payload of this kind, valid during the call; `size` is read first so a
    // short payload is never overread.
    let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
    if size < ARGS_END {
        return;
    }
    // SAFETY: as above; the payload covers the arguments.
    let args = unsafe { std::ptr::addr_of!((*payload).args.roctxNameHipStream).read_unaligned() };
    if args.name.is_null() {
        return;
    }
    // SAFETY: a non-null name is a NUL-terminated string for the duration of the call.
    let name = unsafe { CStr::from_ptr(args.name) };
    let name = String::from_utf8_lossy(name.to_bytes());
    // A panic must not cross into the SDK.
    let _ = std::panic::catch_unwind(|| note_name(args.stream as u64, &name));
}

const ARGS_END: u64 =
    (std::mem::offset_of!(sys::rocprofiler_callback_tracing_marker_api_data_t, args)
        + std::mem::size_of::<sys::rocprofiler_marker_api_args_t>()) as u64;

#[cfg(test)]
mod tests {
    use super::*;

    fn label_of(stream_id: u64) -> Option<StreamLabel> {
        snapshot()
            .into_iter()
            .find(|label| label.stream_id == stream_id)
    }

    // Ids and handles far from what the simulator hands out, so other tests of this process
    // that create streams do not meet them.
    const ID: u64 = 1 << 40;
    const HANDLE: u64 = 0x5eed_0000_0000;

    #[test]
    fn a_thread_remembers_a_few_ids_per_reserved_handle() {
        let mut row = [u64::MAX; REMEMBERED_IDS];
        // Null streams of two GPUs in turn: each id is new once, then remembered.
        assert!(remember(&mut row, 10));
        assert!(remember(&mut row, 20));
        for _ in 0..3 {
            assert!(!remember(&mut row, 10));
            assert_eq!(row[0], 10, "most recent first");
            assert!(!remember(&mut row, 20));
            assert_eq!(row[0], 20);
        }
        // Beyond REMEMBERED_IDS ids the oldest is forgotten.
        for id in 30..30 + REMEMBERED_IDS as u64 {
            assert!(remember(&mut row, id));
        }
        assert!(remember(&mut row, 10));
    }

    #[test]
    fn names_follow_the_id_a_handle_has_when_named() {
        note_created(ID, HANDLE);
        note_name(HANDLE, "first");
        assert_eq!(label_of(ID).unwrap().name.as_deref(), Some("first"));
        note_destroyed(HANDLE);
        // The address comes back with a new id: unnamed, and the old id keeps nothing more.
        note_created(ID + 1, HANDLE);
        assert_eq!(label_of(ID + 1).unwrap().name, None);
        assert_eq!(label_of(ID + 1).unwrap().kind, StreamKind::Created);
        assert_eq!(label_of(ID), None, "forgotten once a snapshot had it");
        note_name(HANDLE, "second");
        assert_eq!(label_of(ID + 1).unwrap().name.as_deref(), Some("second"));
        // A handle never created is ignored.
        note_name(HANDLE + 0x100, "nobody");
        assert!(snapshot()
            .iter()
            .all(|l| l.name.as_deref() != Some("nobody")));
    }

    #[test]
    fn a_name_cut_to_the_limit_gets_a_warning() {
        note_created(ID + 20, HANDLE + 0x20);
        note_name(HANDLE + 0x20, &"x".repeat(10_240));
        let labels = snapshot();
        let label = labels.iter().find(|l| l.stream_id == ID + 20).unwrap();
        assert_eq!(label.name.as_deref().map(str::len), Some(MAX_NAME_BYTES));
        let warning = cut_names_warning(&labels).unwrap();
        assert!(
            warning.contains(&format!(
                "was longer than 256 bytes and is cut to 256 (SDK stream id {} of 10240 bytes)",
                ID + 20
            )),
            "{warning}"
        );
        // Named again within the limit: no warning for it.
        note_name(HANDLE + 0x20, "short");
        let labels = snapshot();
        assert!(cut_names_warning(&labels).is_none_or(|w| !w.contains(&(ID + 20).to_string())));
    }

    #[test]
    fn per_thread_names_belong_to_the_naming_threads_own_stream() {
        std::thread::spawn(|| {
            // Before any SET on it, this thread's per-thread stream has no known id.
            note_name(PER_THREAD_HANDLE, "lost");
            thread_state::with(|thread| note_set(thread, ID + 10, PER_THREAD_HANDLE));
            note_name(PER_THREAD_HANDLE, "mine");
        })
        .join()
        .unwrap();
        std::thread::spawn(|| {
            thread_state::with(|thread| note_set(thread, ID + 11, PER_THREAD_HANDLE));
        })
        .join()
        .unwrap();
        let mine = label_of(ID + 10).unwrap();
        assert_eq!(mine.kind, StreamKind::PerThread);
        assert_eq!(mine.name.as_deref(), Some("mine"));
        let other = label_of(ID + 11).unwrap();
        assert_eq!((other.kind, other.name), (StreamKind::PerThread, None));
    }

    #[test]
    fn long_names_are_cut_at_a_character_boundary() {
        let long = "é".repeat(200);
        let cut = truncate(&long);
        assert!(cut.len() <= MAX_NAME_BYTES);
        assert!(cut.chars().all(|c| c == 'é'));
        assert_eq!(truncate("h2d"), "h2d");
    }
}
