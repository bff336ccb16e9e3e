//! The reading half of the recording tools: the simulators' test kit (`sim-test-kit`, which
//! links the simulated SDK) and the probe (`rocm-probe`, which reaches the real or simulated
//! SDK through `dlsym`) both keep what the SDK hands their callbacks, and read it here, one way.
//!
//! Nothing here links the SDK: records are read from what the SDK passed to a callback, and
//! calls go through the [`Sdk`] table the caller filled, so the probe's binary stays free of
//! an SDK library.
//! * [`Record`]: a HIP API, kernel dispatch or memory copy buffer record, copied out of its
//!   header ([`Record::copy_out`], [`records`]);
//! * [`stream_payload`]: the stream a HIP_STREAM callback is about;
//! * [`Sdk`]: how the tool reaches the SDK, a table of its functions (linked symbols for the
//!   kit, `dlsym`'d ones for the probe) and the set-up calls over it;
//! * [`register`]: the tool registered as a client through `rocprofiler_force_configure`,
//!   once per process, and what the SDK passed its configure function ([`configured`]).

mod callback;
mod client;
mod record;
mod sdk;

pub use callback::stream_payload;
pub use client::{
    configured, register, registered_name, ConfigureResult, Configured, Finalize, Initialize,
};
pub use record::{records, Record};
pub use sdk::Sdk;
