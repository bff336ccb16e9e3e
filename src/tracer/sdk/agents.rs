//! The SDK's agents (CPUs and GPUs), queried once at initialization
//! (`rocprofiler_query_available_agents`, docs/xla-interface.md#initialization-order).
//!
//! Unlike XLA's `agents_[handle]`, a lookup of an unknown handle returns `None` and never
//! inserts a zeroed agent (docs/xla-interface.md#xla-edge-6); handles are looked up with all 64 bits, not
//! truncated to 32 first.
//!
//! The bindings have the 312-byte ROCm 7.1 agent struct. A ROCm 7.0 SDK has a 304-byte one
//! (8-byte UUID) and answers a query for 312 bytes with `ERROR_INCOMPATIBLE_ABI`
//! (docs/sdk-facts.md#agents, #version-hazards). The query then asks again for
//! [`COMMON_AGENT_PREFIX_SIZE`] bytes, the fields every supported SDK lays out identically
//! (up to `runtime_visibility`), and copies only those; the rest (`uuid`) reads zero.
//!
//! GPU ordinals are HIP's device numbers, which XLA passes to `hipSetDevice`: the SDK lists
//! every GPU of the node in KFD order, also those that `ROCR_VISIBLE_DEVICES`,
//! `HIP_VISIBLE_DEVICES` or `CUDA_VISIBLE_DEVICES` hide from HIP, and says nothing of the order
//! a list gives them. [`Agents::gpus`] holds the GPUs HIP sees in HIP's order, so position `i`
//! is HIP device `i` and XLA's device ordinal; [`hip_devices`] reads the variables as ROCr and
//! HIP do. With none of them set, the agents' `runtime_visibility` hip bits decide (all set on
//! a real SDK; hand-made agents may clear them).
mod hip_devices;

pub use hip_devices::{hip_device_order, VisibilityVariables};

use std::ffi::{c_void, CStr};
use std::fmt;

use rocprofiler_sdk_sys as sys;

use crate::gpu_agent::GpuAgentInfo;
use crate::tracer::sdk::calls::{self as sdk, SdkError};
use crate::tracer::sdk::id_map::SdkIdMap;

/// A copy of the SDK's agent struct.
///
/// Invariant: the pointers inside (`name`, `mem_banks`, ...) point to SDK storage that stays
/// valid and unchanged until after tool finalization (docs/sdk-facts.md#agents), and are only
/// read; that is what makes the copy `Send` and `Sync`.
#[derive(Copy, Clone)]
pub struct RawAgent(pub sys::rocprofiler_agent_v0_t);

// SAFETY: see the invariant above.
unsafe impl Send for RawAgent {}
// SAFETY: see the invariant above.
unsafe impl Sync for RawAgent {}

impl fmt::Debug for RawAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawAgent {{ handle: {} }}", self.0.id.handle)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AgentKind {
    Cpu,
    Gpu,
    Other(u32),
}

/// What the tracer and collector need of one agent, read out of the SDK struct once.
#[derive(Clone, Debug)]
pub struct AgentInfo {
    /// `id.handle`: what records carry and what `RocmTracerEvent::device_id` holds.
    pub handle: u64,
    pub kind: AgentKind,
    pub logical_node_id: i32,
    /// e.g. "gfx942".
    pub name: String,
    pub product_name: String,
    pub cu_count: u32,
    /// MHz.
    pub max_engine_clk_fcompute: u32,
    pub gfx_target_version: u32,
    /// What the export writes as the device's capability stats.
    pub capabilities: GpuAgentInfo,
    /// The SDK struct itself, for the C++ shim's `GpuAgents()`.
    pub raw: RawAgent,
}

/// `rocprofiler_agent_runtime_visiblity_t` is a bitfield of `hsa`, `hip`, `rccl`, `rocdecode`
/// (bits 0..3); HIP numbers the GPUs whose `hip` bit is set.
const HIP_VISIBILITY_BIT: u32 = 1 << 1;

impl AgentInfo {
    pub(crate) fn is_gpu(&self) -> bool {
        self.kind == AgentKind::Gpu
    }

    /// The agent's `runtime_visibility` bits (0 when the SDK did not report them).
    pub fn runtime_visibility(&self) -> u32 {
        self.raw.0.runtime_visibility
    }

    /// The agent's UUID as ROCr spells it after `GPU-` (the first 8 bytes as a little-endian
    /// integer, 16 hex digits), or `None` when the SDK reports none (all zero).
    pub fn uuid(&self) -> Option<String> {
        let mut head = [0u8; 8];
        head.copy_from_slice(&self.raw.0.uuid.bytes[..8]);
        let value = u64::from_le_bytes(head);
        (value != 0).then(|| format!("{value:016x}"))
    }

    /// Whether the SDK marks the agent visible to HIP (its `hip` visibility bit).
    pub(crate) fn is_hip_visible(&self) -> bool {
        self.runtime_visibility() & HIP_VISIBILITY_BIT != 0
    }

    /// An agent known by handle and kind only: the other fields are what an all-zero SDK
    /// struct reads as. For decoders run without an SDK (tests, fuzzing).
    pub fn bare(handle: u64, kind: AgentKind) -> AgentInfo {
        let mut raw = zeroed_agent();
        raw.id.handle = handle;
        AgentInfo {
            handle,
            kind,
            logical_node_id: 0,
            name: String::new(),
            product_name: String::new(),
            cu_count: 0,
            max_engine_clk_fcompute: 0,
            gfx_target_version: 0,
            capabilities: GpuAgentInfo {
                handle,
                ..GpuAgentInfo::default()
            },
            raw: RawAgent(raw),
        }
    }

    /// # Safety
    /// The pointers inside `raw` satisfy [`RawAgent`]'s invariant and `mem_banks` has
    /// `mem_banks_count` entries.
    unsafe fn from_raw(raw: &sys::rocprofiler_agent_v0_t) -> AgentInfo {
        let text = |ptr: *const std::ffi::c_char| {
            if ptr.is_null() {
                String::new()
            } else {
                // SAFETY: SDK strings are NUL-terminated and outlive the tool.
                unsafe { CStr::from_ptr(ptr) }
                    .to_string_lossy()
                    .into_owned()
            }
        };
        AgentInfo {
            handle: raw.id.handle,
            kind: match raw.type_ {
                sys::ROCPROFILER_AGENT_TYPE_CPU => AgentKind::Cpu,
                sys::ROCPROFILER_AGENT_TYPE_GPU => AgentKind::Gpu,
                other => AgentKind::Other(other),
            },
            logical_node_id: raw.logical_node_id,
            name: text(raw.name),
            product_name: text(raw.product_name),
            cu_count: raw.cu_count,
            max_engine_clk_fcompute: raw.max_engine_clk_fcompute,
            gfx_target_version: raw.gfx_target_version,
            // SAFETY: per this function's contract.
            capabilities: unsafe { GpuAgentInfo::from_sdk(raw) },
            raw: RawAgent(*raw),
        }
    }
}

impl From<&AgentInfo> for GpuAgentInfo {
    fn from(agent: &AgentInfo) -> GpuAgentInfo {
        agent.capabilities.clone()
    }
}

/// Bytes of `rocprofiler_agent_v0_t` that ROCm 7.0 and 7.1 lay out identically: up to and
/// including `runtime_visibility` (present since SDK 0.6.0; only the UUID after it differs).
pub(crate) const COMMON_AGENT_PREFIX_SIZE: usize =
    std::mem::offset_of!(sys::rocprofiler_agent_v0_t, runtime_visibility)
        + std::mem::size_of::<u32>();

/// What the query callback gets as `user_data`.
struct AgentQuery {
    list: Vec<AgentInfo>,
    /// Bytes of each SDK agent struct to copy (the `agent_size` the query passed).
    copy_size: usize,
}

/// All agents by handle, and the GPUs HIP sees in HIP's device order.
#[derive(Clone, Debug, Default)]
pub struct Agents {
    by_handle: SdkIdMap<AgentInfo>,
    gpus: Vec<AgentInfo>,
    hidden_gpus: usize,
}

impl Agents {
    /// `list` in the SDK's order, numbered under this process's visibility variables.
    pub fn from_list(list: Vec<AgentInfo>) -> Agents {
        Agents::with_variables(list, &VisibilityVariables::from_process())
    }

    /// `list` in the SDK's order, HIP devices numbered under `variables`. With none set, the
    /// GPUs whose hip visibility bit is set (every GPU when no agent reports any visibility
    /// bit: an SDK before 0.6.0, or hand-made agents), in KFD order.
    pub(crate) fn with_variables(list: Vec<AgentInfo>, variables: &VisibilityVariables) -> Agents {
        let mut all_gpus: Vec<&AgentInfo> = list.iter().filter(|a| a.is_gpu()).collect();
        // KFD order: ROCr's indices count GPUs by node (a stable sort keeps the SDK's order
        // for agents that report no type id).
        all_gpus.sort_by_key(|gpu| gpu.raw.0.logical_node_type_id);
        let gpus: Vec<AgentInfo> = if variables.any_set() {
            let uuids: Vec<Option<String>> = all_gpus.iter().map(|gpu| gpu.uuid()).collect();
            hip_device_order(&uuids, variables)
                .into_iter()
                .map(|index| all_gpus[index].clone())
                .collect()
        } else {
            let visibility_known = list.iter().any(|a| a.runtime_visibility() != 0);
            all_gpus
                .iter()
                .filter(|gpu| !visibility_known || gpu.is_hip_visible())
                .map(|gpu| (*gpu).clone())
                .collect()
        };
        let hidden_gpus = all_gpus.len() - gpus.len();
        let by_handle = list.into_iter().map(|a| (a.handle, a)).collect();
        Agents {
            by_handle,
            gpus,
            hidden_gpus,
        }
    }

    /// Queries with the full 7.1 struct size, and on `ERROR_INCOMPATIBLE_ABI` (a 7.0 SDK) with
    /// [`COMMON_AGENT_PREFIX_SIZE`].
    pub fn query() -> Result<Agents, SdkError> {
        match Self::query_with_size(std::mem::size_of::<sys::rocprofiler_agent_v0_t>()) {
            Err(error) if error.status == sys::ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI => {
                Self::query_with_size(COMMON_AGENT_PREFIX_SIZE)
            }
            result => result,
        }
    }

    fn query_with_size(agent_size: usize) -> Result<Agents, SdkError> {
        let mut query = AgentQuery {
            list: Vec::new(),
            copy_size: agent_size,
        };
        // SAFETY: the callback only runs during this call (synchronously, docs/sdk-facts.md#agents) and gets
        // `&mut query` back as `user_data`.
        let status = unsafe {
            sys::rocprofiler_query_available_agents(
                sys::ROCPROFILER_AGENT_INFO_VERSION_0,
                Some(collect_agents),
                agent_size,
                &mut query as *mut AgentQuery as *mut c_void,
            )
        };
        sdk::check("rocprofiler_query_available_agents", status)?;
        Ok(Agents::from_list(query.list))
    }

    pub fn get(&self, handle: u64) -> Option<&AgentInfo> {
        self.by_handle.get(&handle)
    }

    pub(crate) fn is_gpu(&self, handle: u64) -> bool {
        self.get(handle).is_some_and(AgentInfo::is_gpu)
    }

    /// Whether `handle` is one of [`Agents::gpus`]: a GPU this process's HIP runtime sees.
    pub(crate) fn is_visible_gpu(&self, handle: u64) -> bool {
        self.gpus.iter().any(|gpu| gpu.handle == handle)
    }

    /// The GPUs HIP sees, in HIP's order: position `i` is HIP device `i`.
    pub fn gpus(&self) -> &[AgentInfo] {
        &self.gpus
    }

    /// GPU agents the SDK lists but the visibility variables hide from HIP.
    pub fn hidden_gpus(&self) -> usize {
        self.hidden_gpus
    }

    /// Every agent, CPUs included, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &AgentInfo> {
        self.by_handle.values()
    }

    pub fn len(&self) -> usize {
        self.by_handle.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_handle.is_empty()
    }
}

/// # Safety
/// Called synchronously by `rocprofiler_query_available_agents` with `user_data` the
/// `&mut AgentQuery` passed by [`Agents::query_with_size`] and `agents` an array of
/// `num_agents` pointers to agent structs of at least `copy_size` bytes (the SDK accepted
/// that `agent_size`).
unsafe extern "C" fn collect_agents(
    _version: sys::rocprofiler_agent_version_t,
    agents: *mut *const c_void,
    num_agents: usize,
    user_data: *mut c_void,
) -> sys::rocprofiler_status_t {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if user_data.is_null() || (agents.is_null() && num_agents > 0) {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: per this function's contract.
        let query = unsafe { &mut *(user_data as *mut AgentQuery) };
        let copy_size = query
            .copy_size
            .min(std::mem::size_of::<sys::rocprofiler_agent_v0_t>());
        let pointers: &[*const c_void] = if num_agents == 0 {
            &[]
        } else {
            // SAFETY: per this function's contract.
            unsafe { std::slice::from_raw_parts(agents, num_agents) }
        };
        for &pointer in pointers {
            let agent = pointer as *const sys::rocprofiler_agent_v0_t;
            if agent.is_null() {
                continue;
            }
            let mut copy = zeroed_agent();
            // SAFETY: the SDK's struct has at least `copy_size` readable bytes (contract), and
            // `copy` is a distinct local of at least that size.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    agent.cast::<u8>(),
                    (&mut copy as *mut sys::rocprofiler_agent_v0_t).cast::<u8>(),
                    copy_size,
                )
            };
            // SAFETY: the pointers copied are the SDK's (RawAgent's invariant).
            query.list.push(unsafe { AgentInfo::from_raw(&copy) });
        }
        sys::ROCPROFILER_STATUS_SUCCESS
    }));
    result.unwrap_or(sys::ROCPROFILER_STATUS_ERROR)
}

fn zeroed_agent() -> sys::rocprofiler_agent_v0_t {
    // SAFETY: the agent struct is integers, fixed arrays and raw pointers, for all of which
    // all-zero bytes (null pointers included) are valid.
    unsafe { std::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_prefix_ends_after_runtime_visibility() {
        // docs/sdk-facts.md#agent-layout: runtime_visibility at 292, 4 bytes; the UUID after it is
        // 8 bytes in 7.0 and 16 in 7.1.
        assert_eq!(COMMON_AGENT_PREFIX_SIZE, 296);
    }

    fn agent(handle: u64, kind: AgentKind, visibility: u32) -> AgentInfo {
        let mut agent = AgentInfo::bare(handle, kind);
        agent.raw.0.runtime_visibility = visibility;
        agent
    }

    #[test]
    fn without_variables_gpus_are_the_hip_visible_ones_in_sdk_order() {
        let agents = Agents::with_variables(
            vec![
                agent(1, AgentKind::Cpu, 0xF),
                agent(2, AgentKind::Cpu, 0xF),
                agent(10, AgentKind::Gpu, 0x1),
                agent(11, AgentKind::Gpu, 0xF),
                agent(12, AgentKind::Gpu, 0x0),
                agent(13, AgentKind::Gpu, 0xF),
            ],
            &VisibilityVariables::default(),
        );
        let handles: Vec<u64> = agents.gpus().iter().map(|gpu| gpu.handle).collect();
        assert_eq!(handles, [11, 13]);
        assert_eq!(agents.hidden_gpus(), 2);
        assert!(agents.is_gpu(10) && !agents.is_visible_gpu(10));
        assert!(agents.is_visible_gpu(13) && !agents.is_visible_gpu(1));
    }

    #[test]
    fn without_visibility_bits_every_gpu_is_visible() {
        let agents = Agents::with_variables(
            vec![
                AgentInfo::bare(1, AgentKind::Cpu),
                AgentInfo::bare(10, AgentKind::Gpu),
                AgentInfo::bare(11, AgentKind::Gpu),
            ],
            &VisibilityVariables::default(),
        );
        assert_eq!(agents.gpus().len(), 2);
        assert_eq!(agents.hidden_gpus(), 0);
    }

    /// GPU `ordinal` of a node as the SDK lists it: KFD order, hip bit as the SDK computed it.
    fn gpu(handle: u64, ordinal: i32, visibility: u32) -> AgentInfo {
        let mut gpu = agent(handle, AgentKind::Gpu, visibility);
        gpu.raw.0.logical_node_type_id = ordinal;
        gpu.raw.0.uuid.bytes[..8].copy_from_slice(&(0x5000 + ordinal as u64).to_le_bytes());
        gpu
    }

    #[test]
    fn gpus_are_numbered_as_hip_numbers_them() {
        let variables = VisibilityVariables {
            hip_visible_devices: Some("2,0".to_owned()),
            ..VisibilityVariables::default()
        };
        // Four GPUs; the SDK marks 0 and 2 visible to HIP but cannot say in which order.
        let list = vec![
            agent(1, AgentKind::Cpu, 0xF),
            gpu(10, 0, 0xF),
            gpu(11, 1, 0x1),
            gpu(12, 2, 0xF),
            gpu(13, 3, 0x1),
        ];
        let agents = Agents::with_variables(list, &variables);
        let handles: Vec<u64> = agents.gpus().iter().map(|gpu| gpu.handle).collect();
        assert_eq!(handles, [12, 10], "HIP device 0 is the third GPU");
        assert_eq!(agents.hidden_gpus(), 2);
        assert!(agents.is_gpu(11) && !agents.is_visible_gpu(11));
    }

    #[test]
    fn gpu_device_ordinal_hides_nothing_from_hip_though_the_sdk_clears_the_bit() {
        let variables = VisibilityVariables {
            gpu_device_ordinal: Some("1".to_owned()),
            ..VisibilityVariables::default()
        };
        let list = vec![gpu(10, 0, 0x1), gpu(11, 1, 0xF)];
        let agents = Agents::with_variables(list, &variables);
        assert_eq!(agents.gpus().len(), 2);
        assert_eq!(agents.gpus()[0].handle, 10);
    }

    #[test]
    fn uuid_tokens_name_the_gpu_with_that_uuid() {
        let uuid = gpu(13, 3, 0xF).uuid().unwrap();
        assert_eq!(uuid, "0000000000005003");
        let variables = VisibilityVariables {
            rocr_visible_devices: Some(format!("GPU-{uuid},0")),
            ..VisibilityVariables::default()
        };
        let list = (0..4).map(|i| gpu(10 + i as u64, i, 0xF)).collect();
        let agents = Agents::with_variables(list, &variables);
        let handles: Vec<u64> = agents.gpus().iter().map(|gpu| gpu.handle).collect();
        assert_eq!(handles, [13, 10]);
    }
}
