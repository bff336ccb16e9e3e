//! A tool's opaque `void*` (callback data, tool data), carried between threads.
use std::ffi::c_void;

#[derive(Clone, Copy, Debug)]
pub(crate) struct UserPtr(pub *mut c_void);

// SAFETY: the sim never dereferences these pointers; it only hands them back to the tool that
// supplied them, which is responsible for their thread safety (docs/sdk-facts.md#what-may-be-called-where "Concurrency").
unsafe impl Send for UserPtr {}
// SAFETY: as for Send: the sim never reads or writes through the pointer, only copies it.
unsafe impl Sync for UserPtr {}
