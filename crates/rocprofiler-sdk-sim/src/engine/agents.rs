//! Agents: `cpus` CPUs (one per socket, default 2) plus `gpus` MI300X-like GPUs
//! (gfx942), numbered like the KFD topology nodes the SDK reads (`agent.cpp` `read_topology`):
//! CPUs first, so the first GPU's `logical_node_id` is the CPU count. Every GPU is an agent,
//! also those the visibility variables hide; only their `runtime_visibility` bits say so
//! ([`gpu_visibility`]). HIP device k is the k-th HIP-visible GPU ([`hip_device_order`]).
//! Agents are in the 312-byte ROCm 7.1
//! layout (docs/sdk-facts.md#agents), or with `rocm = "7.0"` the 304-byte 7.0 layout: same offsets, but an
//! 8-byte UUID and `size = 304`. The 7.0 structs still occupy 312 bytes here; their last 8
//! bytes (beyond the 7.0 struct) hold [`BEYOND_STRUCT_FILL`], standing for whatever memory
//! follows a real 7.0 agent, so a tool reading the 7.1 `uuid` in full sees garbage.
//! Structs, names and memory banks are leaked once, so every pointer handed to a tool stays
//! valid for the life of the process (docs/simulator-fidelity.md#agents).
use crate::machine::VisibilityEnv;
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_void, CString};
use std::sync::LazyLock;

pub(crate) struct Agents {
    /// Pointers to leaked `rocprofiler_agent_v0_t`, CPUs first, then GPUs by ordinal.
    ptrs: Vec<*const c_void>,
    /// `logical_node_id + offset` for each agent, in the same order.
    handles: Vec<u64>,
    cpus: usize,
    /// GPU ordinal (`logical_node_type_id`) of each HIP device, by HIP device number.
    hip_devices: Vec<u32>,
}

// SAFETY: the pointed-to agent structs are leaked, never mutated after construction, and only
// read; sharing the pointers between threads is sound.
unsafe impl Send for Agents {}
// SAFETY: as for Send: the agent structs are immutable once built, so shared reads are sound.
unsafe impl Sync for Agents {}

static AGENTS: LazyLock<Agents> = LazyLock::new(build);

pub(crate) fn agents() -> &'static Agents {
    &AGENTS
}

impl Agents {
    pub(crate) fn pointers(&self) -> &[*const c_void] {
        &self.ptrs
    }

    pub(crate) fn cpu(&self) -> sys::rocprofiler_agent_id_t {
        sys::rocprofiler_agent_id_t {
            handle: self.handles[0],
        }
    }

    /// The GPU agent of HIP device `device`; callers validate `device` first.
    pub(crate) fn gpu(&self, device: u32) -> sys::rocprofiler_agent_id_t {
        let ordinal = self.hip_devices[device as usize] as usize;
        sys::rocprofiler_agent_id_t {
            handle: self.handles[self.cpus + ordinal],
        }
    }

    /// The GPU ordinal (`logical_node_type_id`) of HIP device `device`, if it exists.
    pub(crate) fn hip_device_gpu(&self, device: u32) -> Option<u32> {
        self.hip_devices.get(device as usize).copied()
    }

    /// Number of HIP devices: the GPUs visible to HIP (`hipGetDeviceCount`).
    pub(crate) fn hip_device_count(&self) -> u32 {
        self.hip_devices.len() as u32
    }
}

/// The first 8 bytes of GPU `ordinal`'s UUID, which are `rocprofiler_uuid_t::value` read as
/// the little-endian integer a tool sees and `GPU-<hex>` visibility tokens name.
fn uuid_head(ordinal: u32) -> [u8; 8] {
    (0x4d49_3330_3058_0000u64 + ordinal as u64).to_be_bytes()
}

fn uuid_value(ordinal: u32) -> u64 {
    u64::from_le_bytes(uuid_head(ordinal))
}

/// One visibility variable as the SDK reads it for one GPU (`agent.cpp`
/// `update_agent_runtime_visibility`): `None` if unset or empty; otherwise whether the list
/// names the GPU (by `ordinal` or as `GPU-<hex uuid>`) and at which position among the
/// list's tokens. A GPU the list does not name keeps `ordinal` as its position.
fn parse_visible(list: Option<&str>, ordinal: i64, uuid: u64) -> Option<(bool, i64)> {
    let list = list?;
    let tokens = list.split([',', ' ']).filter(|t| !t.is_empty());
    for (position, token) in tokens.enumerate() {
        let named = if token.bytes().all(|b| b.is_ascii_digit()) {
            token.parse::<i64>().ok() == Some(ordinal)
        } else if let Some(hex) = token.strip_prefix("GPU-").filter(|h| !h.is_empty()) {
            u64::from_str_radix(hex, 16).ok() == Some(uuid)
        } else {
            false
        };
        if named {
            return Some((true, position as i64));
        }
    }
    Some((false, ordinal))
}

/// `runtime_visibility` of one GPU, as the SDK computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GpuVisibility {
    pub hsa: bool,
    pub hip: bool,
}

/// GPU `ordinal`'s visibility under `env`, as the SDK computes it: ROCR_VISIBLE_DEVICES picks
/// the GPUs HSA sees (by GPU ordinal); HIP_VISIBLE_DEVICES, else CUDA_VISIBLE_DEVICES, else
/// GPU_DEVICE_ORDINAL, picks among those by their position in the ROCr list. A GPU hidden
/// from HSA is hidden from HIP too.
pub(crate) fn gpu_visibility(env: &VisibilityEnv, ordinal: u32) -> GpuVisibility {
    let uuid = uuid_value(ordinal);
    let ordinal = ordinal as i64;
    let rocr = parse_visible(env.rocr_visible_devices.as_deref(), ordinal, uuid);
    let rocr_index = match rocr {
        Some((true, position)) => position,
        _ => ordinal,
    };
    let hip = [
        &env.hip_visible_devices,
        &env.cuda_visible_devices,
        &env.gpu_device_ordinal,
    ]
    .into_iter()
    .find_map(|list| parse_visible(list.as_deref(), rocr_index, uuid));
    let hsa = rocr.is_none_or(|(named, _)| named);
    let hip_visible = match hip {
        Some((named, _)) => named,
        None => hsa,
    } && hsa;
    GpuVisibility {
        hsa,
        hip: hip_visible,
    }
}

/// The GPU ordinals of HIP devices 0, 1, ... on a machine with `gpus` GPUs, as the runtimes
/// number them (not the SDK's reading above): ROCr first takes `ROCR_VISIBLE_DEVICES` (trimmed
/// comma-separated `strtol` indices or `GPU-` UUID prefixes, in list order, up to the first
/// illegal, out-of-range, ambiguous or repeated token); then CLR takes `HIP_VISIBLE_DEVICES`,
/// else `CUDA_VISIBLE_DEVICES` (non-empty), comma-separated exact decimal indices into ROCr's
/// GPUs or `GPU-` UUIDs, in list order, up to the first invalid entry, repeats skipped.
/// `GPU_DEVICE_ORDINAL` is OpenCL's and changes nothing here. The tracer's own reading of the
/// same rules is `src/tracer/sdk/agents/hip_devices.rs`.
pub(crate) fn hip_device_order(gpus: u32, env: &VisibilityEnv) -> Vec<u32> {
    let name = |ordinal: u32| format!("GPU-{:016X}", uuid_value(ordinal));
    let mut hsa: Vec<u32> = Vec::new();
    match env.rocr_visible_devices.as_deref() {
        None => hsa.extend(0..gpus),
        Some("") => {}
        Some(list) => {
            for token in list.split(',').take(gpus as usize) {
                let token = token.trim().to_ascii_uppercase();
                let gpu = if token.starts_with('G') {
                    let found: Vec<u32> = (0..gpus)
                        .filter(|&g| (5..=20).contains(&token.len()) && name(g).starts_with(&token))
                        .collect();
                    (found.len() == 1).then(|| found[0])
                } else {
                    strtol_base0(&token).and_then(|v| u32::try_from(v).ok())
                };
                match gpu {
                    Some(gpu) if gpu < gpus && !hsa.contains(&gpu) => hsa.push(gpu),
                    _ => break,
                }
            }
        }
    }
    let list = [&env.hip_visible_devices, &env.cuda_visible_devices]
        .into_iter()
        .flatten()
        .find(|list| !list.is_empty());
    let Some(list) = list else { return hsa };
    let mut devices = Vec::new();
    for token in list.split(',') {
        let index = if token.starts_with("GPU-") {
            let token = token.to_ascii_uppercase();
            hsa.iter().position(|&gpu| name(gpu).contains(&token))
        } else {
            token
                .parse::<usize>()
                .ok()
                .filter(|index| index.to_string() == token && *index < hsa.len())
        };
        let Some(index) = index else { break };
        if !devices.contains(&hsa[index]) {
            devices.push(hsa[index]);
        }
    }
    devices
}

/// C's `strtol(text, &end, 0)` with nothing left after the number.
fn strtol_base0(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.starts_with(['+', '-']) {
        return None;
    }
    let value = if let Some(hex) = digits
        .strip_prefix("0X")
        .or_else(|| digits.strip_prefix("0x"))
    {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if negative { -value } else { value })
}

fn leak_str(s: &str) -> *const std::ffi::c_char {
    CString::new(s).unwrap_or_default().into_raw()
}

fn leak_banks(
    banks: Vec<sys::rocprofiler_agent_mem_bank_t>,
) -> *const sys::rocprofiler_agent_mem_bank_t {
    Box::leak(banks.into_boxed_slice()).as_ptr()
}

fn zeroed_agent() -> sys::rocprofiler_agent_v0_t {
    // SAFETY: the agent struct is plain integers, fixed arrays and raw pointers, for all of
    // which all-zero bytes (null pointers included) are valid values.
    unsafe { std::mem::zeroed() }
}

const GIB: u64 = 1 << 30;

/// The bytes past the end of a 304-byte ROCm 7.0 agent struct.
pub const BEYOND_STRUCT_FILL: u8 = 0xDB;

fn build() -> Agents {
    let machine = crate::machine::machine();
    let gpus = machine.gpus;
    let cpus = machine.cpus;
    let struct_size = machine.agent_struct_size() as u64;
    let offset = crate::engine::handles::random_offset();
    let mut structs = Vec::new();

    for socket in 0..cpus {
        structs.push(cpu_agent(socket, struct_size));
    }
    for ordinal in 0..gpus {
        structs.push(gpu_agent(ordinal, cpus, struct_size, &machine.visibility()));
    }

    let mut ptrs = Vec::new();
    let mut handles = Vec::new();
    for mut agent in structs {
        let handle = agent.logical_node_id as u64 + offset;
        agent.id = sys::rocprofiler_agent_id_t { handle };
        agent.uuid.bytes[machine.uuid_bytes as usize..].fill(BEYOND_STRUCT_FILL);
        handles.push(handle);
        ptrs.push(
            Box::leak(Box::new(agent)) as *const sys::rocprofiler_agent_v0_t as *const c_void,
        );
    }
    Agents {
        ptrs,
        handles,
        cpus: cpus as usize,
        hip_devices: hip_device_order(gpus, &machine.visibility()),
    }
}

/// The CPU agent of socket `socket` (KFD node `socket`).
fn cpu_agent(socket: u32, struct_size: u64) -> sys::rocprofiler_agent_v0_t {
    let mut cpu = zeroed_agent();
    cpu.size = struct_size;
    cpu.type_ = sys::ROCPROFILER_AGENT_TYPE_CPU;
    cpu.cpu_cores_count = 96;
    cpu.cpu_core_id_base = 96 * socket;
    cpu.max_engine_clk_ccompute = 3700;
    cpu.wave_front_size = 0;
    cpu.mem_banks_count = 1;
    cpu.mem_banks = leak_banks(vec![sys::rocprofiler_agent_mem_bank_t {
        heap_type: sys::HSA_HEAPTYPE_SYSTEM,
        flags: 0,
        width: 64,
        mem_clk_max: 4800,
        size_in_bytes: 768 * GIB,
    }]);
    cpu.name = leak_str("AMD EPYC 9654 96-Core Processor");
    cpu.vendor_name = leak_str("CPU");
    cpu.product_name = leak_str("AMD EPYC 9654 96-Core Processor");
    cpu.model_name = leak_str("");
    cpu.node_id = socket;
    cpu.logical_node_id = socket as i32;
    cpu.logical_node_type_id = socket as i32;
    // The SDK gives CPU agents full visibility: hsa | hip | rccl | rocdecode.
    cpu.runtime_visibility = 0b1111;
    cpu
}

/// GPU `ordinal` (its `logical_node_type_id`), KFD node `cpus + ordinal`.
fn gpu_agent(
    ordinal: u32,
    cpus: u32,
    struct_size: u64,
    env: &VisibilityEnv,
) -> sys::rocprofiler_agent_v0_t {
    let mut gpu = zeroed_agent();
    let logical = cpus + ordinal;
    gpu.size = struct_size;
    gpu.type_ = sys::ROCPROFILER_AGENT_TYPE_GPU;
    gpu.simd_count = 1216;
    gpu.simd_id_base = 0x8000_0000 + 0x1000 * ordinal;
    gpu.max_waves_per_simd = 8;
    gpu.lds_size_in_kb = 64;
    gpu.num_gws = 64;
    gpu.wave_front_size = 64;
    gpu.num_xcc = 8;
    gpu.cu_count = 304;
    gpu.array_count = 32;
    gpu.num_shader_banks = 1;
    gpu.simd_arrays_per_engine = 1;
    gpu.cu_per_simd_array = 10;
    gpu.simd_per_cu = 4;
    gpu.max_slots_scratch_cu = 32;
    gpu.gfx_target_version = 90402;
    gpu.vendor_id = 0x1002;
    gpu.device_id = 0x74a1;
    gpu.location_id = 0x0c00 + 0x1000 * ordinal;
    gpu.domain = 0;
    gpu.drm_render_minor = 128 + ordinal;
    gpu.num_sdma_engines = 2;
    gpu.num_sdma_xgmi_engines = 14;
    gpu.num_sdma_queues_per_engine = 8;
    gpu.num_cp_queues = 24;
    gpu.max_engine_clk_ccompute = 3700;
    gpu.max_engine_clk_fcompute = 2100;
    gpu.cu_per_engine = 38;
    gpu.max_waves_per_cu = 32;
    gpu.family_id = 141;
    gpu.workgroup_max_size = 1024;
    gpu.grid_max_size = u32::MAX;
    gpu.local_mem_size = 0;
    gpu.hive_id = 0x9b2c_51f3_7e44_a001;
    gpu.gpu_id = 0x2a4b + 0x1111 * ordinal as u64;
    gpu.workgroup_max_dim = sys::rocprofiler_dim3_t {
        x: 1024,
        y: 1024,
        z: 1024,
    };
    gpu.grid_max_dim = sys::rocprofiler_dim3_t {
        x: u32::MAX,
        y: u32::MAX,
        z: u32::MAX,
    };
    gpu.mem_banks_count = 1;
    gpu.mem_banks = leak_banks(vec![sys::rocprofiler_agent_mem_bank_t {
        heap_type: sys::HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE,
        flags: 0,
        width: 8192,
        mem_clk_max: 1300,
        size_in_bytes: 192 * GIB,
    }]);
    gpu.name = leak_str("gfx942");
    gpu.vendor_name = leak_str("AMD");
    gpu.product_name = leak_str("AMD Instinct MI300X");
    gpu.model_name = leak_str("ip discovery");
    gpu.node_id = logical;
    gpu.logical_node_id = logical as i32;
    gpu.logical_node_type_id = ordinal as i32;
    // hsa = bit 0; hip, rccl and rocdecode (bits 1-3) follow HIP visibility.
    let visibility = gpu_visibility(env, ordinal);
    gpu.runtime_visibility = u32::from(visibility.hsa) | if visibility.hip { 0b1110 } else { 0 };
    let mut uuid = [0u8; 16];
    uuid[..8].copy_from_slice(&uuid_head(ordinal));
    uuid[8..].copy_from_slice(&gpu.gpu_id.to_be_bytes());
    gpu.uuid = sys::rocprofiler_uuid_t { bytes: uuid };
    gpu
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(rocr: Option<&str>, hip: Option<&str>, cuda: Option<&str>) -> VisibilityEnv {
        VisibilityEnv {
            rocr_visible_devices: rocr.map(Into::into),
            hip_visible_devices: hip.map(Into::into),
            cuda_visible_devices: cuda.map(Into::into),
            gpu_device_ordinal: None,
        }
    }

    #[test]
    fn hip_devices_follow_the_visibility_lists() {
        assert_eq!(hip_device_order(4, &env(None, None, None)), [0, 1, 2, 3]);
        assert_eq!(hip_device_order(4, &env(None, Some("2"), None)), [2]);
        // HIP orders its devices as the list does.
        assert_eq!(hip_device_order(4, &env(None, Some("3,1"), None)), [3, 1]);
        // HIP indices count among the ROCr-visible GPUs.
        assert_eq!(hip_device_order(4, &env(Some("1,3"), Some("1"), None)), [3]);
        assert_eq!(hip_device_order(4, &env(Some("2,0"), None, None)), [2, 0]);
        // ROCr's tokens are comma-separated and trimmed; HIP's are exact.
        assert_eq!(
            hip_device_order(4, &env(Some(" 2 , 0"), None, None)),
            [2, 0]
        );
        assert_eq!(
            hip_device_order(4, &env(Some("2 0"), None, None)),
            [0u32; 0]
        );
        assert_eq!(hip_device_order(4, &env(None, Some("1, 0"), None)), [1]);
        // HIP stops at the first invalid entry (the SDK's hip bit does not).
        assert_eq!(hip_device_order(4, &env(None, Some("1,7,0"), None)), [1]);
        assert_eq!(hip_device_order(4, &env(None, Some("2,2,0"), None)), [2, 0]);
        // CUDA_VISIBLE_DEVICES only counts when HIP_VISIBLE_DEVICES is unset.
        assert_eq!(hip_device_order(4, &env(None, None, Some("1"))), [1]);
        assert_eq!(hip_device_order(4, &env(None, Some("0"), Some("1"))), [0]);
        let uuid = format!("GPU-{:016x}", uuid_value(2));
        assert_eq!(hip_device_order(4, &env(None, Some(&uuid), None)), [2]);
        assert_eq!(
            hip_device_order(2, &env(None, Some("7,x"), None)),
            [0u32; 0]
        );
    }

    #[test]
    fn a_gpu_hidden_from_hsa_is_hidden_from_hip() {
        let e = env(Some("0"), Some("0,1"), None);
        let hidden = gpu_visibility(&e, 1);
        assert!(!hidden.hsa && !hidden.hip);
        let shown = gpu_visibility(&e, 0);
        assert!(shown.hsa && shown.hip);
        let hip_only_hidden = gpu_visibility(&env(None, Some("0"), None), 1);
        assert!(hip_only_hidden.hsa && !hip_only_hidden.hip);
    }
}
