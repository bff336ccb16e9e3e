//! Copy calls (`hipMemcpy`, `hipMemcpyAsync` and the functions traced like them), along the
//! HIP runtime's copy paths (docs/simulator-fidelity.md, rows "Small copies" and "Pageable
//! copies"): a host<->device copy up to `sdma_threshold` bytes, pinned or pageable, is the
//! shader blit `__amd_rocclr_copyBuffer` (a KERNEL_DISPATCH record, no MEMORY_COPY); a larger
//! one is an SDMA copy (a MEMORY_COPY record), pageable ones pinned piece by piece (one record
//! each); host-to-host copies are a CPU `memcpy` (no record); peer copies are SDMA copies; a
//! device-to-device copy within one GPU is a blit kernel at any size, and memset is
//! `__amd_rocclr_fillBufferAligned` (docs/sdk-facts.md#blit-copies).
use super::{
    check_api_op, check_device, current_device, find_kernel, made_up_address, op, runtime,
    submission_correlation_id, Copy, CopyCall, CopyKind, HipStream, HostMemory, BLIT_COPY_KERNEL,
};
use crate::engine::dispatch::{self, ApiCall, CopyWork, KernelWork};
use crate::engine::signal;
use crate::hip::streams::{self, StreamInfo, NULL_STREAM};
use crate::hip::{hip_args, worker};
use crate::SimError;
use rocprofiler_sdk_sys as sys;

enum CopyPath {
    Sdma(CopyWork),
    Blit(KernelWork),
}

/// The work the HIP runtime submits for `copy` (possibly none: a CPU `memcpy`), per the
/// machine's copy keys (`sdma_threshold`, `pageable_chunk`, `h2h_record`) (ROCclr `rocblit.cpp`: `DmaBlitManager`,
/// `KernelBlitManager` read/write/copy paths).
fn copy_paths(
    stream: &StreamInfo,
    copy: &Copy,
    call: &CopyCall,
) -> Result<Vec<CopyPath>, SimError> {
    let (src, dst) = match copy.kind {
        CopyKind::HostToHost => (None, None),
        CopyKind::HostToDevice => (None, Some(copy.dst_device.unwrap_or(stream.device))),
        CopyKind::DeviceToHost => (Some(copy.src_device.unwrap_or(stream.device)), None),
        CopyKind::DeviceToDevice => (
            Some(copy.src_device.unwrap_or(stream.device)),
            Some(copy.dst_device.unwrap_or(stream.device)),
        ),
    };
    for device in [src, dst].into_iter().flatten() {
        check_device(device)?;
    }
    let paths = Paths { stream, copy, call };
    Ok(match copy.kind {
        // Both sides are host memory: the runtime copies with the CPU.
        CopyKind::HostToHost if !crate::machine::machine().h2h_record => Vec::new(),
        CopyKind::HostToHost => vec![paths.whole(None, None)],
        CopyKind::DeviceToDevice if src == dst => vec![paths.blit(stream.device)?],
        CopyKind::DeviceToDevice => vec![paths.whole(src, dst)],
        CopyKind::HostToDevice | CopyKind::DeviceToHost => paths.host_device(src, dst)?,
    })
}

/// The pieces of work one copy call can become, on its stream and with its buffers.
struct Paths<'a> {
    stream: &'a StreamInfo,
    copy: &'a Copy,
    call: &'a CopyCall,
}

impl Paths<'_> {
    /// An SDMA copy of `bytes` at `offset` into the call's buffers.
    fn sdma(
        &self,
        direction: i32,
        bytes: u64,
        (src_device, dst_device): (Option<u32>, Option<u32>),
        offset: u64,
        duration_ns: u64,
    ) -> CopyPath {
        let at = |address: u64| {
            if address == 0 {
                0
            } else {
                address.wrapping_add(offset)
            }
        };
        CopyPath::Sdma(CopyWork {
            correlation_id: 0,
            direction,
            bytes,
            src_device,
            dst_device,
            stream: *self.stream,
            duration_ns,
            dst_address: at(self.call.dst),
            src_address: at(self.call.src),
        })
    }

    /// The whole copy as one SDMA copy in its own direction.
    fn whole(&self, src: Option<u32>, dst: Option<u32>) -> CopyPath {
        let copy = self.copy;
        self.sdma(
            copy.kind.operation(),
            copy.bytes,
            (src, dst),
            0,
            copy.duration_ns,
        )
    }

    /// A shader blit: `__amd_rocclr_copyBuffer` over 16-byte items in 256-wide groups.
    fn blit(&self, device: u32) -> Result<CopyPath, SimError> {
        let kernel = find_kernel(device, BLIT_COPY_KERNEL).ok_or(SimError::UnknownKernel(0))?;
        let items = self.copy.bytes.div_ceil(16).div_ceil(256).max(1) * 256;
        Ok(CopyPath::Blit(KernelWork {
            correlation_id: 0,
            kernel_id: kernel.0,
            stream: *self.stream,
            grid: [items.min(u32::MAX as u64) as u32, 1, 1],
            block: [256, 1, 1],
            private_segment_size: 0,
            group_segment_size: 0,
            duration_ns: self.copy.duration_ns,
        }))
    }

    /// A host<->device copy: a blit on the GPU, one SDMA copy, or pinned piece by piece.
    fn host_device(&self, src: Option<u32>, dst: Option<u32>) -> Result<Vec<CopyPath>, SimError> {
        let (copy, call, model) = (self.copy, self.call, crate::machine::machine());
        Ok(if copy.bytes <= model.sdma_threshold {
            // ROCclr runs a small copy as a shader blit on the stream's GPU, staging or
            // pinning pageable memory first (CLR d379f4ef: `KernelBlitManager::copyBuffer`,
            // `readBuffer`, `writeBuffer`).
            vec![self.blit(self.stream.device)?]
        } else if call.host == HostMemory::Pageable
            && model.pageable_chunk > 0
            && copy.bytes > model.pageable_chunk
        {
            // Pinned piece by piece: one async copy per piece, the time shared pro rata.
            let pieces = copy.bytes.div_ceil(model.pageable_chunk);
            (0..pieces)
                .map(|i| {
                    let offset = i * model.pageable_chunk;
                    let bytes = model.pageable_chunk.min(copy.bytes - offset);
                    let duration =
                        (copy.duration_ns as u128 * bytes as u128 / copy.bytes as u128) as u64;
                    self.sdma(copy.kind.operation(), bytes, (src, dst), offset, duration)
                })
                .collect()
        } else {
            vec![self.whole(src, dst)]
        })
    }
}

/// The HIP API payload of copy function `api_op`, in the order of its HIP signature:
/// `hipMemcpy(dst, src, sizeBytes, kind)`, `hipMemcpyAsync` and `hipMemcpyWithStream` with the
/// stream after the kind, the fixed-direction `hipMemcpyHtoD`/`DtoH`/`DtoD` without a kind and
/// their `Async` forms with the stream in its place, `hipMemcpyPeer(dst, dstDevice, src,
/// srcDevice, sizeBytes)` and its `Async` form with the stream last. Other copy functions (2D,
/// arrays, symbols) get a zeroed payload: the simulator does not model their arguments.
fn copy_args(
    api_op: i32,
    copy: &Copy,
    call: &CopyCall,
    stream: Option<HipStream>,
    device: u32,
) -> sys::rocprofiler_hip_api_args_t {
    let side = |address: u64, device_side: Option<u32>, host: bool| match address {
        0 if host && call.host == HostMemory::Pinned => pinned_staging_buffer(),
        0 => made_up_address(if host {
            None
        } else {
            device_side.or(Some(device))
        }),
        a => a,
    };
    let dst = side(
        call.dst,
        copy.dst_device,
        matches!(copy.kind, CopyKind::HostToHost | CopyKind::DeviceToHost),
    ) as usize as *mut std::ffi::c_void;
    let src = side(
        call.src,
        copy.src_device,
        matches!(copy.kind, CopyKind::HostToHost | CopyKind::HostToDevice),
    ) as usize as *const std::ffi::c_void;
    let kind = call.hip_kind.unwrap_or(match copy.kind {
        CopyKind::HostToHost => 0,
        CopyKind::HostToDevice => 1,
        CopyKind::DeviceToHost => 2,
        CopyKind::DeviceToDevice => 3,
    });
    let size_bytes = copy.bytes as usize;
    let stream = stream.map_or(std::ptr::null_mut(), hip_args::stream_ptr);
    let mut args = hip_args::zeroed();
    match api_op {
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy => {
            args.hipMemcpy = sys::rocprofiler_hip_api_args_hipMemcpy_t {
                dst,
                src,
                sizeBytes: size_bytes,
                kind,
            }
        }
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyWithStream => {
            args.hipMemcpyAsync = sys::rocprofiler_hip_api_args_hipMemcpyAsync_t {
                dst,
                src,
                sizeBytes: size_bytes,
                kind,
                stream,
            }
        }
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoD => {
            args.hipMemcpyFixed = sys::rocprofiler_hip_api_args_hipMemcpyFixed_t {
                dst,
                src,
                sizeBytes: size_bytes,
            }
        }
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoDAsync => {
            args.hipMemcpyFixedAsync = sys::rocprofiler_hip_api_args_hipMemcpyFixedAsync_t {
                dst,
                src,
                sizeBytes: size_bytes,
                stream,
            }
        }
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeer
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeerAsync => {
            let device_of = |side: Option<u32>| side.unwrap_or(device) as i32;
            args.hipMemcpyPeer = sys::rocprofiler_hip_api_args_hipMemcpyPeer_t {
                dst,
                dstDeviceId: device_of(copy.dst_device),
                src,
                srcDeviceId: device_of(copy.src_device),
                sizeBytes: size_bytes,
                stream,
            }
        }
        _ => {}
    }
    args
}

/// Where a program given no pointers keeps its pinned host memory: one `hipHostMalloc`
/// buffer, allocated (a traced `hipHostMalloc` with its arguments, so that a tool knows the
/// memory is pinned) the first time a pinned copy needs it. Pageable copies use
/// `made_up_address(None)`, outside it.
fn pinned_staging_buffer() -> u64 {
    const PINNED: u64 = 0x7f48_0000_0000;
    const SIZE: usize = 1 << 36;
    static ALLOCATED: std::sync::Once = std::sync::Once::new();
    ALLOCATED.call_once(|| {
        let mut written = PINNED as usize as *mut std::ffi::c_void;
        let mut args = hip_args::zeroed();
        args.hipMallocFlags = sys::rocprofiler_hip_api_args_hipMallocFlags_t {
            ptr: &mut written,
            size: SIZE,
            flags: 0,
        };
        let _ = super::api_call_with_args(
            op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc),
            None,
            args,
        );
    });
    PINNED
}

#[allow(clippy::too_many_arguments)]
fn submit_copy(
    api_op: i32,
    info: StreamInfo,
    with_set: bool,
    copy: &Copy,
    call: &CopyCall,
    wait: bool,
    args: sys::rocprofiler_hip_api_args_t,
) -> Result<u64, SimError> {
    let mut paths = copy_paths(&info, copy, call)?;
    for _ in &paths {
        signal::begin(info.device, info.key());
    }
    let api = ApiCall::enter_with_args(api_op, with_set.then_some(&info), args);
    let correlation_id = submission_correlation_id(api.correlation_id);
    for path in &mut paths {
        match path {
            CopyPath::Sdma(work) => work.correlation_id = correlation_id,
            CopyPath::Blit(work) => work.correlation_id = correlation_id,
        }
    }
    if !paths.is_empty() {
        worker::submit(move || {
            for path in paths {
                match path {
                    CopyPath::Sdma(work) => dispatch::enqueue_copy(work),
                    CopyPath::Blit(work) => dispatch::enqueue_kernel(work),
                }
            }
        });
    }
    if wait {
        signal::wait_stream(info.key());
    }
    let correlation_id = api.correlation_id;
    api.exit();
    Ok(correlation_id)
}

/// `hipMemcpyAsync` (op 268) on `stream`, from or to pinned host memory.
pub fn memcpy_async(stream: HipStream, copy: &Copy) -> Result<u64, SimError> {
    memcpy_async_with(stream, copy, &CopyCall::default())
}

/// `hipMemcpyAsync` with the program's host memory kind and pointers.
pub fn memcpy_async_with(stream: HipStream, copy: &Copy, call: &CopyCall) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    let api_op = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync;
    let args = copy_args(api_op, copy, call, Some(stream), info.device);
    submit_copy(op(api_op), info, true, copy, call, false, args)
}

/// A stream copy traced as HIP function `api_op` (`hipMemcpyHtoDAsync`, `hipMemcpyWithStream`,
/// ...) instead of `hipMemcpyAsync`, with that function's API payload ([`copy_args`]).
pub fn memcpy_async_as(
    api_op: i32,
    stream: HipStream,
    copy: &Copy,
    call: &CopyCall,
) -> Result<u64, SimError> {
    if api_op == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync {
        return memcpy_async_with(stream, copy, call);
    }
    runtime()?;
    check_api_op(api_op)?;
    let info = streams::resolve(stream, current_device())?;
    let args = copy_args(api_op, copy, call, Some(stream), info.device);
    submit_copy(op(api_op), info, true, copy, call, false, args)
}

/// `hipMemcpy` (op 259): no stream argument, so no SET (docs/sdk-facts.md#stream-operations); runs on the current device's
/// null stream and returns when the copy completed. SDMA copy records are pushed before it
/// returns; a copy within one GPU is a blit kernel, whose record follows after the kernel lag
/// like any kernel's. Pinned host memory.
pub fn memcpy_sync(copy: &Copy) -> Result<u64, SimError> {
    memcpy_sync_with(copy, &CopyCall::default())
}

/// `hipMemcpy` with the program's host memory kind and pointers.
pub fn memcpy_sync_with(copy: &Copy, call: &CopyCall) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(NULL_STREAM, current_device())?;
    let api_op = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy;
    let args = copy_args(api_op, copy, call, None, info.device);
    submit_copy(op(api_op), info, false, copy, call, true, args)
}
