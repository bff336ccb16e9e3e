//! The Rust API in one capture: start the tracer with a fresh collector, run some GPU work,
//! stop, and write the session as an XSpace (`*.xplane.pb`, what xprof and TensorBoard read).
//!
//! ```sh
//! cargo run --example capture -- /tmp/capture.xplane.pb
//! cargo run -p xla-rocm-tracer-cli -- inspect /tmp/capture.xplane.pb
//! ```
//!
//! Without a GPU the example links the simulated rocprofiler-sdk, whose driver stands in for a
//! HIP program (a real program would call `hipLaunchKernel`, `hipMemcpy`, ...). The tracer code
//! is the same on a real SDK.
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rocprofiler_sdk_sim::driver::{self, Copy, CopyKind, KernelLaunch};
use xla_rocm_tracer::collector::{CaptureStart, Collector, CollectorOptions, GpuAgentInfo};
use xla_rocm_tracer::export::{merge_host_api_plane, write_xspace, ExportOptions};
use xla_rocm_tracer::tracer::{Tracer, TracerOptions};

/// Mangled names of the kernels the example launches (XLA shows them demangled).
pub const KERNELS: [&str; 2] = ["_Z4axpyfPKfPf", "_Z6reducePKfPf"];
/// Launches of each kernel.
pub const LAUNCHES: usize = 3;

/// Captures [`LAUNCHES`] launches of each of [`KERNELS`] and a host-to-device copy on GPU 0
/// and writes the trace to `output`.
pub fn capture(output: &Path) -> Result<(), Box<dyn std::error::Error>> {
    // The process-wide tracer: it registered with rocprofiler-sdk when the library loaded.
    let tracer = Tracer::get();
    if let Some(error) = tracer.init_error() {
        return Err(format!("the tracer is unavailable: {error}").into());
    }

    // One collector per session; its caps are XLA's defaults.
    let walltime_ns = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos() as u64;
    let collector = Arc::new(Collector::new(
        CollectorOptions {
            num_gpus: tracer.num_gpus(),
            ..CollectorOptions::default()
        },
        CaptureStart {
            walltime_ns,
            gputime_ns: Tracer::timestamp(),
        },
    ));
    // Device planes carry the GPUs' capabilities (compute units, clock, memory).
    collector.set_gpu_agents(tracer.gpu_agents().iter().map(GpuAgentInfo::from).collect());

    tracer.enable(TracerOptions::default(), collector.clone())?;
    let worked = run_workload();
    // Stopping delivers every buffered record to the collector, also after a failed workload.
    tracer.disable();
    worked?;

    let mut space = collector.export(Tracer::timestamp(), &ExportOptions::default());
    // XLA's profiler session puts the HIP API events on the host plane.
    merge_host_api_plane(&mut space);
    write_xspace(output, &space)?;
    Ok(())
}

/// The program being profiled, on the simulated HIP runtime: a copy in, then the kernels, on
/// a stream of its own.
fn run_workload() -> Result<(), Box<dyn std::error::Error>> {
    let stream = driver::stream_create()?;
    driver::memcpy_async(
        stream,
        &Copy {
            kind: CopyKind::HostToDevice,
            bytes: 1 << 20,
            src_device: None,
            dst_device: None,
            duration_ns: 40_000,
        },
    )?;
    let (_, kernels) = driver::load_code_object(driver::current_device(), &KERNELS)?;
    for _ in 0..LAUNCHES {
        for kernel in &kernels {
            let launch = KernelLaunch {
                kernel: *kernel,
                grid: [1 << 20, 1, 1],
                block: [256, 1, 1],
                private_segment_size: 0,
                group_segment_size: 0,
                duration_ns: 25_000,
            };
            driver::launch_kernel(stream, &launch)?;
        }
    }
    driver::stream_synchronize(stream)?;
    // Kernel records may reach the SDK's buffers after the synchronize returns (as on ROCm);
    // a profiler that stops right away loses them, so let the simulator push them all.
    driver::wait_idle();
    driver::stream_destroy(stream)?;
    Ok(())
}

fn main() {
    let Some(output) = std::env::args_os().nth(1) else {
        eprintln!("usage: capture OUTPUT.xplane.pb");
        std::process::exit(2);
    };
    if let Err(error) = capture(Path::new(&output)) {
        eprintln!("capture: {error}");
        std::process::exit(1);
    }
    println!("wrote {}", Path::new(&output).display());
}
