//! The simulated SDK's driver, through its `rocsim_*` C ABI (crates/rocprofiler-sdk-sim
//! `capi`). The symbols are resolved at the final link against the simulated
//! `librocprofiler-sdk.so`, so the process has one SDK state shared with the tool.
//! Each function here is one HIP call as the SDK sees it (records, callbacks, correlation).

use std::ffi::c_char;

pub type Stream = u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyKind {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

#[derive(Clone, Copy, Debug)]
pub struct CopyWork {
    pub kind: CopyKind,
    pub bytes: u64,
    pub src_device: Option<u32>,
    pub dst_device: Option<u32>,
    pub duration_ns: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct KernelLaunch {
    pub kernel_id: u64,
    /// Work-items per dimension.
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub duration_ns: u64,
}

mod ffi {
    // Filled in from the simulator's C ABI.
}

pub fn gpu_count() -> u32 {
    todo!()
}
pub fn set_device(_device: u32) {
    todo!()
}
pub fn stream_create(_op: i32) -> Stream {
    todo!()
}
pub fn stream_destroy(_s: Stream) {
    todo!()
}
pub fn load_code_object(_device: u32, _names: &[&str]) -> (u64, Vec<u64>) {
    let _: *const c_char = std::ptr::null();
    todo!()
}
pub fn unload_code_object(_id: u64) {
    todo!()
}
pub fn launch_kernel(_s: Stream, _k: &KernelLaunch) {
    todo!()
}
pub fn module_launch_kernel(_s: Stream, _k: &KernelLaunch) {
    todo!()
}
pub fn graph_launch(_s: Stream, _k: &[KernelLaunch]) {
    todo!()
}
pub fn memcpy_async(_s: Stream, _c: &CopyWork) {
    todo!()
}
pub fn memcpy_sync(_c: &CopyWork) {
    todo!()
}
pub fn memset_async(_s: Stream, _bytes: u64, _duration_ns: u64) {
    todo!()
}
pub fn memset_sync(_bytes: u64, _duration_ns: u64) {
    todo!()
}
pub fn stream_synchronize(_s: Stream) {
    todo!()
}
pub fn device_synchronize() {
    todo!()
}
pub fn stream_busy_until(_s: Stream) -> u64 {
    todo!()
}
pub fn timestamp_ns() -> u64 {
    todo!()
}
pub fn api_call(_op: i32, _stream: Option<Stream>) {
    todo!()
}
