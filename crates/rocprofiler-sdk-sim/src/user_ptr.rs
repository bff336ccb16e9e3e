//! A tool's opaque `void*` (callback data, tool data), carried between threads.
use std::ffi::c_void;

#[derive(Clone, Copy, Debug)]
pub(crate) struct UserPtr(pub *mut c_void);

// SAFETY: the sim never dereferences these pointers; it only hands them back to the tool that
// supplied them, which is responsible for their thread safety (§13.4 "Concurrency").
unsafe impl Send for UserPtr {}
unsafe impl Sync for UserPtr {}
