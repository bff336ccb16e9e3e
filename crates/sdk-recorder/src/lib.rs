//! The reading half of the recording tools: the simulators' test kit (`sim-test-kit`, which
//! links the simulated SDK) and the probe (`rocm-probe`, which reaches the real or simulated
//! SDK through `dlsym`) both keep what the SDK hands their callbacks, and read it here, one way.
//!
//! Nothing here calls the SDK: each function reads data the SDK passed to a callback, so the
//! crate links no SDK library and the probe's binary stays free of one.
//! * [`Record`]: a HIP API, kernel dispatch or memory copy buffer record, copied out of its
//!   header ([`Record::copy_out`], [`records`]);
//! * [`stream_payload`]: the stream a HIP_STREAM callback is about.

mod callback;
mod record;

pub use callback::stream_payload;
pub use record::{records, Record};
