//! hipDeviceProp_tR0600 and friends: the Rust mirror and the stand-in C header both match the
//! layout of ROCm >= 6.3's header (numbers computed by compiling ROCm's header with g++).

use amdhip64::abi::{Dim3, HipDevicePropR0600, HipFuncAttributes, HipKernelNodeParams};
use sim_test_kit::child;
use std::mem::{align_of, offset_of, size_of};
use std::path::Path;
use std::process::Command;

#[test]
fn rust_mirror_matches_rocm_layout() {
    assert_eq!(size_of::<HipDevicePropR0600>(), 1472);
    assert_eq!(align_of::<HipDevicePropR0600>(), 8);
    let expected = [
        (offset_of!(HipDevicePropR0600, name), 0),
        (offset_of!(HipDevicePropR0600, totalGlobalMem), 288),
        (offset_of!(HipDevicePropR0600, clockRate), 348),
        (offset_of!(HipDevicePropR0600, major), 360),
        (offset_of!(HipDevicePropR0600, minor), 364),
        (offset_of!(HipDevicePropR0600, multiProcessorCount), 388),
        (offset_of!(HipDevicePropR0600, memoryClockRate), 608),
        (offset_of!(HipDevicePropR0600, memoryBusWidth), 612),
        (offset_of!(HipDevicePropR0600, gcnArchName), 1160),
        (offset_of!(HipDevicePropR0600, uuid), 256),
        (offset_of!(HipDevicePropR0600, sharedMemPerBlock), 296),
        (offset_of!(HipDevicePropR0600, warpSize), 308),
        (offset_of!(HipDevicePropR0600, maxGridSize), 336),
        (offset_of!(HipDevicePropR0600, surfaceAlignment), 568),
        (offset_of!(HipDevicePropR0600, l2CacheSize), 616),
        (
            offset_of!(HipDevicePropR0600, maxThreadsPerMultiProcessor),
            624,
        ),
        (offset_of!(HipDevicePropR0600, sharedMemPerBlockOptin), 696),
        (offset_of!(HipDevicePropR0600, reserved), 780),
        (offset_of!(HipDevicePropR0600, hipReserved), 1032),
        (
            offset_of!(HipDevicePropR0600, maxSharedMemoryPerMultiProcessor),
            1416,
        ),
        (offset_of!(HipDevicePropR0600, arch), 1428),
        (offset_of!(HipDevicePropR0600, hdpMemFlushCntl), 1432),
        (offset_of!(HipDevicePropR0600, asicRevision), 1468),
    ];
    for (i, (actual, want)) in expected.iter().enumerate() {
        assert_eq!(actual, want, "field #{i} of the table");
    }
    assert_eq!(size_of::<Dim3>(), 12);
    assert_eq!(size_of::<HipFuncAttributes>(), 56);
    assert_eq!(size_of::<HipKernelNodeParams>(), 64);
    assert_eq!(offset_of!(HipKernelNodeParams, gridDim), 32);
    assert_eq!(offset_of!(HipKernelNodeParams, kernelParams), 48);
    assert_eq!(offset_of!(HipKernelNodeParams, sharedMemBytes), 56);
}

/// The same numbers as static_asserts in C++, compiled against the stand-in header.
#[test]
fn standin_header_matches_rocm_layout() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let source = repo.join("tests/hip/device_prop_layout.cc");
    let out = std::env::temp_dir().join(format!("hip_layout_{}", std::process::id()));
    let compiled = match child::output(
        "standin_header_matches_rocm_layout",
        Command::new("g++")
            .arg("-std=c++17")
            .arg("-Wall")
            .arg("-Werror")
            .arg("-I")
            .arg(repo.join("tests/hip-include"))
            .arg(&source)
            .arg("-o")
            .arg(&out),
    ) {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("g++ not found: skipping the C++ half of the layout test");
            return;
        }
        Err(e) => panic!("running g++: {e}"),
    };
    assert!(
        compiled.status.success(),
        "layout static_asserts failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let run = child::output(
        "standin_header_matches_rocm_layout",
        &mut Command::new(&out),
    )
    .expect("run the layout program");
    let _ = std::fs::remove_file(&out);
    assert!(run.status.success());
}
