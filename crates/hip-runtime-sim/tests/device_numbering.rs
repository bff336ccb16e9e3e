//! HIP device numbering on the simulated machine: `hipGetDeviceCount` is the number of GPUs
//! visible to HIP and device k is the k-th of them, whatever the SDK's agent struct size
//! (`rocm = "7.0"`) and with `HIP_VISIBLE_DEVICES` hiding GPUs. Each machine is fixed per
//! process, so each test runs in a child process.
use amdhip64::api::device::*;
use amdhip64::error::*;
use sim_test_kit::child::in_child;
use std::ffi::c_int;

// The simulated SDK provides the `rocsim_*` driver symbols the runtime calls.
use rocprofiler_sdk_sim as _;

fn device_count() -> c_int {
    let mut count = -1;
    // SAFETY: `count` is a live local for HIP to write.
    assert_eq!(unsafe { hipGetDeviceCount(&mut count) }, HIP_SUCCESS);
    count
}

#[test]
fn rocm_7_0_programs_see_every_gpu() {
    if !in_child(
        "rocm_7_0_programs_see_every_gpu",
        &[("ROCSIM_MACHINE", "rocm = \"7.0\", gpus = 2")],
    ) {
        return;
    }
    assert_eq!(device_count(), 2);
    assert_eq!(hipSetDevice(1), HIP_SUCCESS);
    let mut device = -1;
    // SAFETY: `device` is a live local for HIP to write.
    assert_eq!(unsafe { hipGetDevice(&mut device) }, HIP_SUCCESS);
    assert_eq!(device, 1);
}

#[test]
fn hip_visible_devices_sets_count_and_order() {
    if !in_child(
        "hip_visible_devices_sets_count_and_order",
        &[
            ("ROCSIM_MACHINE", "gpus = 4"),
            ("HIP_VISIBLE_DEVICES", "3,1"),
        ],
    ) {
        return;
    }
    assert_eq!(device_count(), 2);
    assert_eq!(hipSetDevice(1), HIP_SUCCESS);
    assert_eq!(hipSetDevice(2), HIP_ERROR_INVALID_DEVICE);
    // The runtime and the simulated SDK's driver agree on the numbering.
    assert_eq!(rocprofiler_sdk_sim::driver::device_count(), 2);
    // HIP device 0 is GPU 3: its properties are that GPU's (PCI bus 0x0c + 0x10 * ordinal,
    // as the agents' location_id).
    let mut prop = std::mem::MaybeUninit::<amdhip64::abi::HipDevicePropR0600>::zeroed();
    assert_eq!(
        // SAFETY: `prop` has room for one HipDevicePropR0600.
        unsafe { hipGetDevicePropertiesR0600(prop.as_mut_ptr(), 0) },
        HIP_SUCCESS
    );
    // SAFETY: `prop` was zeroed (a valid value of this plain-data struct) and then filled.
    assert_eq!(unsafe { prop.assume_init() }.pciBusID, 0x0c + 0x10 * 3);
    assert_eq!(rocprofiler_sdk_sim::driver::device_gpu_ordinal(1), Some(1));
    assert_eq!(rocprofiler_sdk_sim::driver::device_gpu_ordinal(2), None);
}
