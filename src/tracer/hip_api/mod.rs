//! The HIP runtime API as the tracer sees it: the operations' names (read from the SDK once, at
//! initialization), the HIP API ENTER callback, and what a copy call asked for.
//!
//! Thread: the application thread, at the ENTER of every HIP call (`enter_callback`, the copy
//! call's note in the thread's lock-free `copy_log`); the buffer thread reads the names and
//! the notes while decoding; the allocation functions' EXIT (`memory_kinds`, on the
//! utility context) says which memory a copy's pointers are in. One room
//! because the ENTER callback is where a call's name (`is_copy_api`) and its arguments meet.
pub(crate) mod copy_calls;
pub(crate) mod copy_log;
pub(crate) mod enter_callback;
pub(crate) mod event_calls;
pub(crate) mod memory_kinds;
pub(crate) mod names;
pub(crate) mod payload;
