//! Code objects and kernel symbols (docs/sdk-facts.md#code-objects-and-kernel-symbols, docs/simulator-fidelity.md#names): LOAD, then DEVICE_KERNEL_SYMBOL_REGISTER per
//! kernel (phase LOAD) on the loading thread; at unload the reverse, phase UNLOAD. A kernel's
//! `kernel_name` stays valid until its code object is unloaded, and not after.
use crate::engine::agents::agents;
use crate::engine::dispatch::invoke;
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, Selector};
use crate::time::clock::gettid;
use crate::SimError;
use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap as HashMap;
use std::ffi::{c_char, CString};
use std::sync::LazyLock;

/// Leading fields of `rocprofiler_callback_tracing_code_object_load_data_t` (LOAD payload).
/// Tracers use the kernel-symbol payload; this one is filled for completeness.
#[repr(C)]
struct CodeObjectLoadData {
    size: u64,
    code_object_id: u64,
    rocp_agent: sys::rocprofiler_agent_id_t,
    hsa_agent: u64,
    uri: *const c_char,
    load_base: u64,
    load_size: u64,
    load_delta: i64,
    storage_type: u32,
    storage_memory_base: u64,
    storage_memory_size: u64,
}

/// What a kernel's descriptor declares (docs/sdk-facts.md#code-objects-and-kernel-symbols):
/// reported in DEVICE_KERNEL_SYMBOL_REGISTER as the real SDK reads it from the loaded code
/// object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub kernarg_segment_size: u32,
    /// Static LDS bytes per work-group.
    pub group_segment_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
}

impl Default for KernelResources {
    /// A kernel loaded by name only (scenarios, the stand-in image): a small kernel.
    fn default() -> Self {
        KernelResources {
            kernarg_segment_size: 64,
            group_segment_size: 0,
            private_segment_size: 0,
            sgpr_count: 32,
            arch_vgpr_count: 64,
            accum_vgpr_count: 0,
        }
    }
}

struct Kernel {
    name: CString,
    device: u32,
    resources: KernelResources,
}

struct CodeObject {
    device: u32,
    uri: CString,
    kernels: Vec<u64>,
}

#[derive(Default)]
struct CodeObjects {
    next_code_object: u64,
    next_kernel: u64,
    objects: HashMap<u64, CodeObject>,
    kernels: HashMap<u64, Kernel>,
}

static CODE_OBJECTS: LazyLock<Mutex<CodeObjects>> = LazyLock::new(|| {
    Mutex::new(CodeObjects {
        next_code_object: 1,
        next_kernel: 1,
        ..Default::default()
    })
});

const CODE_BASE: u64 = 0x7fc0_0000_0000;

/// The device a kernel was registered on, if its code object is loaded.
pub(crate) fn kernel_device(kernel_id: u64) -> Option<u32> {
    CODE_OBJECTS
        .lock()
        .kernels
        .get(&kernel_id)
        .map(|k| k.device)
}

/// The kernel id of the loaded kernel named `name` on `device`.
pub(crate) fn find_kernel(device: u32, name: &str) -> Option<u64> {
    let objects = CODE_OBJECTS.lock();
    objects
        .kernels
        .iter()
        .filter(|(_, k)| k.device == device && k.name.as_bytes() == name.as_bytes())
        .map(|(id, _)| *id)
        .min()
}

struct Notice {
    operation: i32,
    phase: u32,
    load: Option<CodeObjectLoadData>,
    symbol: Option<sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t>,
}

fn notify(notices: &mut [Notice]) {
    let tid = gettid();
    for notice in notices {
        let targets = registry::targets(
            Selector {
                callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT),
                buffer_kind: None,
                request_kind: None,
            },
            &[notice.operation],
            notice.operation,
        );
        let payload: *mut std::ffi::c_void = match (&mut notice.load, &mut notice.symbol) {
            (Some(load), _) => (load as *mut CodeObjectLoadData).cast(),
            (_, Some(symbol)) => (symbol as *mut sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t).cast(),
            _ => continue,
        };
        for target in targets {
            if let Some(service) = &target.callback {
                let mut user_data = 0u64;
                invoke(
                    service,
                    target.context,
                    tid,
                    sys::rocprofiler_correlation_id_t {
                        internal: 0,
                        external: sys::rocprofiler_user_data_t {
                            value: ext::top(target.context, tid),
                        },
                        ancestor: 0,
                    },
                    sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                    notice.operation,
                    notice.phase,
                    payload,
                    &mut user_data,
                );
            }
        }
    }
}

fn load_notice(id: u64, object: &CodeObject) -> Notice {
    Notice {
        operation: sys::ROCPROFILER_CODE_OBJECT_LOAD,
        phase: 0,
        load: Some(CodeObjectLoadData {
            size: std::mem::size_of::<CodeObjectLoadData>() as u64,
            code_object_id: id,
            rocp_agent: agents().gpu(object.device),
            hsa_agent: 0x1000 + object.device as u64,
            uri: object.uri.as_ptr(),
            load_base: CODE_BASE + (id << 24),
            load_size: 0x10_0000,
            load_delta: (CODE_BASE + (id << 24)) as i64,
            storage_type: 2, // memory
            storage_memory_base: 0x7f80_0000_0000 + (id << 24),
            storage_memory_size: 0x10_0000,
        }),
        symbol: None,
    }
}

fn symbol_notice(code_object: u64, kernel_id: u64, kernel: &Kernel, index: u64) -> Notice {
    let address = CODE_BASE + (code_object << 24) + 0x1000 * (index + 1);
    Notice {
        operation: sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER,
        phase: 0,
        load: None,
        symbol: Some(
            sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
                size: std::mem::size_of::<
                    sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
                >() as u64,
                kernel_id,
                code_object_id: code_object,
                kernel_name: kernel.name.as_ptr(),
                kernel_object: address,
                kernarg_segment_size: kernel.resources.kernarg_segment_size,
                kernarg_segment_alignment: 8,
                group_segment_size: kernel.resources.group_segment_size,
                private_segment_size: kernel.resources.private_segment_size,
                sgpr_count: kernel.resources.sgpr_count,
                arch_vgpr_count: kernel.resources.arch_vgpr_count,
                accum_vgpr_count: kernel.resources.accum_vgpr_count,
                kernel_code_entry_byte_offset: 0x100,
                kernel_address: sys::rocprofiler_address_t {
                    value: address + 0x100,
                },
            },
        ),
    }
}

/// Loads a code object holding `names` on `device`; returns its id and the kernel ids.
pub(crate) fn load(device: u32, names: &[&str]) -> Result<(u64, Vec<u64>), SimError> {
    let kernels: Vec<(&str, KernelResources)> = names
        .iter()
        .map(|name| (*name, KernelResources::default()))
        .collect();
    load_with_resources(device, &kernels)
}

/// Loads a code object holding these kernels on `device`; returns its id and the kernel ids.
pub(crate) fn load_with_resources(
    device: u32,
    kernels: &[(&str, KernelResources)],
) -> Result<(u64, Vec<u64>), SimError> {
    let mut kernel_names = Vec::with_capacity(kernels.len());
    for (name, resources) in kernels {
        let name = CString::new(*name).map_err(|_| {
            SimError::InvalidArgument(format!("kernel name {name:?} contains a NUL byte"))
        })?;
        kernel_names.push((name, *resources));
    }
    let (id, kernel_ids, mut notices) = {
        let mut objects = CODE_OBJECTS.lock();
        let id = objects.next_code_object;
        objects.next_code_object += 1;
        let mut kernel_ids = Vec::new();
        for (name, resources) in kernel_names {
            let kernel_id = objects.next_kernel;
            objects.next_kernel += 1;
            objects.kernels.insert(
                kernel_id,
                Kernel {
                    name,
                    device,
                    resources,
                },
            );
            kernel_ids.push(kernel_id);
        }
        let object = CodeObject {
            device,
            uri: CString::new(format!(
                "memory://{}#offset=0x{:x}&size=1048576",
                crate::time::clock::getpid(),
                id << 24
            ))
            .unwrap_or_default(),
            kernels: kernel_ids.clone(),
        };
        let mut notices = vec![load_notice(id, &object)];
        for (index, kernel_id) in kernel_ids.iter().enumerate() {
            notices.push(symbol_notice(
                id,
                *kernel_id,
                &objects.kernels[kernel_id],
                index as u64,
            ));
        }
        objects.objects.insert(id, object);
        (id, kernel_ids, notices)
    };
    for notice in &mut notices {
        notice.phase = sys::ROCPROFILER_CALLBACK_PHASE_LOAD;
    }
    // The strings the notices point to live in CODE_OBJECTS until unload.
    notify(&mut notices);
    Ok((id, kernel_ids))
}

/// Unloads a code object: symbol UNLOAD callbacks, then the code object's, then its kernel
/// names are freed.
pub(crate) fn unload(id: u64) -> Result<(), SimError> {
    let mut notices = {
        let objects = CODE_OBJECTS.lock();
        let object = objects
            .objects
            .get(&id)
            .ok_or(SimError::UnknownCodeObject(id))?;
        let mut notices = Vec::new();
        for (index, kernel_id) in object.kernels.iter().enumerate() {
            notices.push(symbol_notice(
                id,
                *kernel_id,
                &objects.kernels[kernel_id],
                index as u64,
            ));
        }
        notices.push(load_notice(id, object));
        notices
    };
    for notice in &mut notices {
        notice.phase = sys::ROCPROFILER_CALLBACK_PHASE_UNLOAD;
    }
    notify(&mut notices);
    let mut objects = CODE_OBJECTS.lock();
    if let Some(object) = objects.objects.remove(&id) {
        for kernel_id in object.kernels {
            objects.kernels.remove(&kernel_id);
        }
    }
    Ok(())
}
