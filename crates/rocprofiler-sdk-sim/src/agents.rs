//! Agents: one CPU plus `ROCSIM_GPUS` MI300X-like GPUs (gfx942), in the 312-byte ROCm 7.1
//! layout (§9), or with `ROCSIM_ROCM=7.0` the 304-byte 7.0 layout: same offsets, but an
//! 8-byte UUID and `size = 304`. The 7.0 structs still occupy 312 bytes here; their last 8
//! bytes (beyond the 7.0 struct) hold [`BEYOND_STRUCT_FILL`], standing for whatever memory
//! follows a real 7.0 agent, so a tool reading the 7.1 `uuid` in full sees garbage.
//! Structs, names and memory banks are leaked once, so every pointer handed to a tool stays
//! valid for the life of the process (§18.12).
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_void, CString};
use std::sync::LazyLock;

pub(crate) struct Agents {
    /// Pointers to leaked `rocprofiler_agent_v0_t`, CPU first, then GPUs by ordinal.
    ptrs: Vec<*const c_void>,
    /// `logical_node_id + offset` for each agent, in the same order.
    handles: Vec<u64>,
}

// SAFETY: the pointed-to agent structs are leaked, never mutated after construction, and only
// read; sharing the pointers between threads is sound.
unsafe impl Send for Agents {}
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

    /// The GPU agent of HIP device ordinal `device`; callers validate `device` first.
    pub(crate) fn gpu(&self, device: u32) -> sys::rocprofiler_agent_id_t {
        sys::rocprofiler_agent_id_t {
            handle: self.handles[1 + device as usize],
        }
    }
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
    let gpus = crate::machine::machine().gpus;
    let rocm = crate::machine::machine().rocm;
    let struct_size = rocm.agent_struct_size() as u64;
    let offset = crate::handles::random_offset();
    let mut structs = Vec::new();

    let mut cpu = zeroed_agent();
    cpu.size = struct_size;
    cpu.type_ = sys::ROCPROFILER_AGENT_TYPE_CPU;
    cpu.cpu_cores_count = 96;
    cpu.cpu_core_id_base = 0;
    cpu.max_engine_clk_ccompute = 3700;
    cpu.wave_front_size = 0;
    cpu.mem_banks_count = 1;
    cpu.mem_banks = leak_banks(vec![sys::rocprofiler_agent_mem_bank_t {
        heap_type: sys::HSA_HEAPTYPE_SYSTEM,
        flags: 0,
        width: 64,
        mem_clk_max: 4800,
        size_in_bytes: 1536 * GIB,
    }]);
    cpu.name = leak_str("AMD EPYC 9654 96-Core Processor");
    cpu.vendor_name = leak_str("CPU");
    cpu.product_name = leak_str("AMD EPYC 9654 96-Core Processor");
    cpu.model_name = leak_str("");
    cpu.node_id = 0;
    cpu.logical_node_id = 0;
    cpu.logical_node_type_id = 0;
    cpu.runtime_visibility = 0b1; // hsa
    structs.push(cpu);

    for ordinal in 0..gpus {
        let mut gpu = zeroed_agent();
        let logical = 1 + ordinal;
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
        gpu.runtime_visibility = 0b1111; // hsa | hip | rccl | rocdecode
        let mut uuid = [0u8; 16];
        uuid[..8].copy_from_slice(&(0x4d49_3330_3058_0000u64 + ordinal as u64).to_be_bytes());
        uuid[8..].copy_from_slice(&gpu.gpu_id.to_be_bytes());
        gpu.uuid = sys::rocprofiler_uuid_t { bytes: uuid };
        structs.push(gpu);
    }

    let mut ptrs = Vec::new();
    let mut handles = Vec::new();
    for mut agent in structs {
        let handle = agent.logical_node_id as u64 + offset;
        agent.id = sys::rocprofiler_agent_id_t { handle };
        agent.uuid.bytes[rocm.uuid_size()..].fill(BEYOND_STRUCT_FILL);
        handles.push(handle);
        ptrs.push(
            Box::leak(Box::new(agent)) as *const sys::rocprofiler_agent_v0_t as *const c_void,
        );
    }
    Agents { ptrs, handles }
}
