//! A simulated HIP runtime, `libamdhip64.so`: a subset of the HIP runtime API with the ABI of
//! ROCm >= 6.3 headers, for running HIP host programs (and XLA's tracer tests) on machines
//! without an AMD GPU.
//!
//! Each HIP call drives the simulated rocprofiler-sdk (`librocprofiler-sdk.so` from
//! `crates/rocprofiler-sdk-sim`) through its `rocsim_*` C driver ABI, the way the real runtime's
//! dispatch-table interception does: HIP_STREAM SET around calls with one stream argument,
//! HIP_RUNTIME_API records with the real operation ids, kernel-dispatch and memory-copy records
//! correlated to the call, the external-correlation request on the calling thread. Memory work
//! is done for real on host memory, so programs compute correct results; kernels may have host
//! bodies (see tests/hip-include/rocsim/hip_host_kernels.h).
//!
//! The `rocsim_*` symbols are left for the final link: a program links this library and the
//! simulated SDK library, exactly one copy of the SDK state exists in the process.

pub mod abi;
pub mod api;
mod code_object;
mod copy;
mod device;
pub mod device_attribute;
pub mod device_props;
mod driver;
pub mod error;
mod events;
mod graphs;
mod handles;
mod host_callbacks;
mod kernels;
mod launch;
mod memory;
pub mod occupancy;
mod streams;
mod timing_model;
