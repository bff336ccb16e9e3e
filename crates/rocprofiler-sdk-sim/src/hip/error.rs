//! Errors of the driver side (the simulated HIP program). SDK-side errors are statuses.
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// The device ordinal is not one of this process's GPUs (`gpus`).
    InvalidDevice(u32),
    /// The `hipStream_t` was never created, or was destroyed.
    UnknownStream(u64),
    /// The kernel id does not belong to a loaded code object.
    UnknownKernel(u64),
    /// The code object id was never loaded, or was already unloaded.
    UnknownCodeObject(u64),
    /// A HIP call from inside the tool's `initialize`: the real SDK deadlocks here (docs/sdk-facts.md#tool-start-up).
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
    /// The code `rocsim_*` C functions return for this error (0 is success); the numbers are
    /// `rocsim-abi`'s, which the simulated HIP runtime maps to `hipError_t`.
    pub fn code(&self) -> i32 {
        use rocsim_abi::*;
        match self {
            SimError::InvalidDevice(_) => ROCSIM_STATUS_INVALID_DEVICE,
            SimError::UnknownStream(_) => ROCSIM_STATUS_UNKNOWN_STREAM,
            SimError::UnknownKernel(_) => ROCSIM_STATUS_UNKNOWN_KERNEL,
            SimError::UnknownCodeObject(_) => ROCSIM_STATUS_UNKNOWN_CODE_OBJECT,
            SimError::CalledFromInitialize => ROCSIM_STATUS_CALLED_FROM_INITIALIZE,
            SimError::InvalidArgument(_) => ROCSIM_STATUS_INVALID_ARGUMENT,
        }
    }
}
