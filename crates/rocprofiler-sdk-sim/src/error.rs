//! Errors of the driver side (the simulated HIP program). SDK-side errors are statuses.
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// The device ordinal is not one of this process's GPUs (`ROCSIM_GPUS`).
    InvalidDevice(u32),
    /// The `hipStream_t` was never created, or was destroyed.
    UnknownStream(u64),
    /// The kernel id does not belong to a loaded code object.
    UnknownKernel(u64),
    /// The code object id was never loaded, or was already unloaded.
    UnknownCodeObject(u64),
    /// A HIP call from inside the tool's `initialize`: the real SDK deadlocks here (§3.1).
    CalledFromInitialize,
    /// Anything else the caller got wrong; the message says what.
    InvalidArgument(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::InvalidDevice(d) => write!(f, "invalid device ordinal {d}"),
            SimError::UnknownStream(s) => write!(f, "unknown hipStream_t {s:#x}"),
            SimError::UnknownKernel(k) => write!(f, "unknown kernel id {k}"),
            SimError::UnknownCodeObject(c) => write!(f, "unknown code object id {c}"),
            SimError::CalledFromInitialize => write!(
                f,
                "HIP call from the tool's initialize (the real SDK deadlocks here)"
            ),
            SimError::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
        }
    }
}

impl std::error::Error for SimError {}

impl SimError {
    /// The code `rocsim_*` C functions return for this error (0 is success).
    pub fn code(&self) -> i32 {
        match self {
            SimError::InvalidDevice(_) => 1,
            SimError::UnknownStream(_) => 2,
            SimError::UnknownKernel(_) => 3,
            SimError::UnknownCodeObject(_) => 4,
            SimError::CalledFromInitialize => 5,
            SimError::InvalidArgument(_) => 6,
        }
    }
}
