//! The memory of one buffer half: records packed at 8-byte offsets and the header array a
//! delivery hands to the tool; in debug builds overwritten with `0xDB` bytes once the callback
//! returned, so a tool that keeps pointers sees garbage (docs/simulator-fidelity.md#buffers).
use rocprofiler_sdk_sys as sys;
use std::ffi::c_void;

const POISON: u64 = 0xDBDB_DBDB_DBDB_DBDB;

/// One half of a buffer: records packed at 8-byte aligned offsets, plus the header arrays
/// built for delivery.
pub(super) struct Arena {
    words: Vec<u64>,
    pub(super) used: usize,
    pub(super) entries: Vec<(u32, usize)>,
    headers: Vec<sys::rocprofiler_record_header_t>,
    pub(super) header_ptrs: Vec<*mut sys::rocprofiler_record_header_t>,
}

// SAFETY: the raw pointers in `headers`/`header_ptrs` only ever point into this arena's own
// vectors, and are rebuilt before each use; moving the arena to the callback thread is sound.
unsafe impl Send for Arena {}

impl Arena {
    pub(super) fn new(capacity_bytes: usize) -> Self {
        Arena {
            words: Vec::with_capacity(capacity_bytes.div_ceil(8)),
            used: 0,
            entries: Vec::new(),
            headers: Vec::new(),
            header_ptrs: Vec::new(),
        }
    }

    pub(super) fn fits(&self, bytes: usize, capacity: usize) -> bool {
        self.used + bytes <= capacity
    }

    pub(super) fn write<T: Copy>(&mut self, kind: u32, record: &T) {
        debug_assert!(std::mem::align_of::<T>() <= 8);
        let offset = self.used;
        let end = (offset + std::mem::size_of::<T>()).div_ceil(8) * 8;
        if self.words.len() < end / 8 {
            self.words.resize(end / 8, 0);
        }
        // SAFETY: `offset` is a multiple of 8 inside `words` (resized above), the base of a
        // Vec<u64> is 8-aligned and T needs at most 8-byte alignment.
        unsafe {
            let dst = self.words.as_mut_ptr().cast::<u8>().add(offset).cast::<T>();
            std::ptr::write(dst, *record);
        }
        self.entries.push((kind, offset));
        self.used = end;
    }

    pub(super) fn build_headers(&mut self) {
        let base = self.words.as_mut_ptr().cast::<u8>();
        self.headers.clear();
        for &(kind, offset) in &self.entries {
            self.headers.push(sys::rocprofiler_record_header_t {
                id: sys::rocprofiler_record_header_id_t {
                    ck: sys::rocprofiler_record_header_category_kind_t {
                        category: sys::ROCPROFILER_BUFFER_CATEGORY_TRACING,
                        kind,
                    },
                },
                // SAFETY: every entry offset lies inside `words`.
                payload: unsafe { base.add(offset) }.cast(),
            });
        }
        self.header_ptrs.clear();
        let headers = self.headers.as_mut_ptr();
        // SAFETY: indices are within `headers`, which is not resized until the next build.
        self.header_ptrs
            .extend((0..self.headers.len()).map(|i| unsafe { headers.add(i) }));
    }

    /// Forgets the records; in debug builds, first overwrites everything a tool was shown.
    pub(super) fn recycle(&mut self) {
        if cfg!(debug_assertions) {
            self.words.fill(POISON);
            for header in &mut self.headers {
                header.id.hash = POISON;
                header.payload = POISON as usize as *mut c_void;
            }
            for ptr in &mut self.header_ptrs {
                *ptr = POISON as usize as *mut _;
            }
        }
        self.used = 0;
        self.entries.clear();
    }
}
