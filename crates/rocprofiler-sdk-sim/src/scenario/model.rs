//! A validated scenario: every name resolved, every number in range.
use crate::hip::driver::{CopyKind, HostMemory};
use crate::machine::Machine;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: PathBuf,
    /// `[machine]` over the default machine.
    pub machine: Machine,
    /// The keys `[machine]` sets: a runner lays them over its own machine.
    pub machine_keys: toml::Table,
    /// `file:line:column` of the first step on the `legacy` or `per_thread` stream, which the
    /// SDK 1.0 stream map aborts on (named in that abort's message).
    pub special_stream: Option<String>,
    pub code_objects: Vec<CodeObjectSpec>,
    pub streams: Vec<StreamSpec>,
    pub threads: Vec<ThreadSpec>,
    /// Profiling sessions the scenario's `enable` steps start (0: none, the runner traces the
    /// whole replay as one session).
    pub sessions: u32,
    /// `[profiler]`: collector and tracer options a runner should trace the scenario with.
    pub profiler: ProfilerSpec,
}

/// The `[profiler]` table: options of the tool that traces the replay, not of the machine
/// (`None`: the tool's default). The simulator itself does not read them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfilerSpec {
    /// HIP API events the collector keeps.
    pub max_callback_api_events: Option<u64>,
    /// GPU activities (kernels, copies) the collector keeps.
    pub max_activity_api_events: Option<u64>,
    /// Distinct annotation strings kept.
    pub max_annotation_strings: Option<u64>,
    /// How long the tracer's disable waits for records in flight, in milliseconds.
    pub disable_wait_ms: Option<u64>,
}

impl Scenario {
    /// The environment that gives a process the machine keys this scenario sets
    /// (`ROCSIM_MACHINE` and the real visibility variables; `crate::machine`).
    pub fn machine_env(&self) -> Vec<(&'static str, String)> {
        crate::machine::table_env(&self.machine_keys)
    }

    /// The HIP devices the scenario's machine has: its GPUs that its visibility lists leave
    /// to HIP. Device numbers in the scenario count these.
    pub fn hip_devices(&self) -> u32 {
        crate::engine::agents::hip_device_order(self.machine.gpus, &self.machine.visibility()).len()
            as u32
    }
}

#[derive(Debug, Clone)]
pub struct CodeObjectSpec {
    pub device: u32,
    /// (alias used by steps, mangled symbol name the code object registers)
    pub kernels: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub struct StreamSpec {
    pub name: String,
    pub device: u32,
    /// Name of the HSA queue the stream starts on (streams naming the same queue share it).
    pub queue: Option<String>,
    /// Name given with `roctxNameHipStream` right after the stream is created.
    pub roctx_name: Option<String>,
    /// Which thread calls `hipStreamCreate`, and when.
    pub creator: StreamCreator,
}

/// Who creates a declared stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamCreator {
    /// The replay's own thread, before the scenario threads start.
    Main,
    /// Scenario thread `n` (index in file order), at its start: before any scenario thread
    /// runs its first step, in `[streams]` order with the other streams.
    ThreadStart(usize),
    /// A `create_stream` step (the stream does not exist before it).
    Step,
}

#[derive(Debug, Clone)]
pub struct ThreadSpec {
    pub name: String,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamRef {
    Null,
    Legacy,
    PerThread,
    Named(String),
}

#[derive(Debug, Clone)]
pub struct GraphNode {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub duration_ns: u64,
}

#[derive(Debug, Clone)]
pub enum Step {
    SetDevice(u32),
    /// `hipLaunchKernel`, or `hipModuleLaunchKernel` when `module`.
    Launch {
        stream: StreamRef,
        node: GraphNode,
        module: bool,
    },
    /// `hipGraphLaunch` of one executable: `exec` is its `hipGraphExec_t`.
    Graph {
        stream: StreamRef,
        nodes: Vec<GraphNode>,
        exec: u64,
    },
    /// `hipMemcpyAsync` with a stream, `hipMemcpy` without.
    Memcpy {
        stream: Option<StreamRef>,
        kind: CopyKind,
        bytes: u64,
        src_device: Option<u32>,
        dst_device: Option<u32>,
        duration_ns: u64,
        /// Whether the host side is pinned (default) or pageable memory.
        host: HostMemory,
    },
    /// `hipMemsetAsync` with a stream, `hipMemset` without.
    Memset {
        stream: Option<StreamRef>,
        bytes: u64,
        duration_ns: u64,
    },
    SyncStream(StreamRef),
    SyncDevice,
    Sleep {
        ns: u64,
    },
    /// Moves a stream's next work to another HSA queue.
    Bind {
        stream: StreamRef,
        queue: String,
    },
    /// Any other HIP call by name.
    Api {
        op: i32,
        stream: Option<StreamRef>,
    },
    /// `hipEventRecord`, `hipEventRecordWithFlags` or `hipStreamWaitEvent` (`op`) of a named
    /// event: its payload carries the event, so a tool pairs each wait with its record.
    EventCall {
        op: i32,
        /// The `hipEvent_t` the scenario's event name stands for ([`event_handle`]).
        event: u64,
        stream: StreamRef,
    },
    /// Starts a profiling session (`ReplayHooks::enable_tracing`).
    Enable,
    /// Ends the running profiling session (`ReplayHooks::disable_tracing`).
    Disable,
    /// Opens a HIP_STREAM SET window on the thread (SET ENTER); the steps up to the matching
    /// [`Step::SetExit`] run inside it.
    SetEnter(StreamRef),
    /// Closes the thread's innermost SET window (SET EXIT).
    SetExit,
    /// `hipStreamCreate` of a declared stream on this thread and its current device.
    CreateStream(String),
    /// `hipStreamDestroy`.
    DestroyStream(StreamRef),
    /// `roctxRangePushA(message)` on the thread.
    RoctxPush(String),
    /// `roctxRangePop()` on the thread.
    RoctxPop,
    /// `roctxMarkA(message)` on the thread.
    RoctxMark(String),
    /// `roctxRangeStartA(message)` on the thread: a process range, known to the replay by its
    /// message until a [`Step::RoctxStop`] of any thread stops it.
    RoctxStart(String),
    /// `roctxRangeStop(id)` of the open process range started with this message.
    RoctxStop(String),
    /// Seeded random launches, copies and memsets, generated one at a time during replay.
    Random(Box<RandomSpec>),
    /// Repeated steps, optionally inside an annotation (`{i}` in the name = iteration).
    Group {
        annotate: Option<String>,
        repeat: u32,
        steps: Vec<Step>,
    },
}

/// A `random` step: `count` launches, copies and memsets drawn from a ChaCha8 stream seeded by
/// `seed` (`super::random` generates them).
#[derive(Debug, Clone)]
pub struct RandomSpec {
    pub seed: u64,
    /// Steps generated.
    pub count: u64,
    pub streams: Vec<StreamRef>,
    /// Kernel aliases launches pick from (empty: no launches).
    pub kernels: Vec<String>,
    /// Copy directions copies pick from (empty: no copies).
    pub copies: Vec<CopyKind>,
    /// Copy and memset sizes, inclusive.
    pub bytes: [u64; 2],
    /// Kernel durations in ns, inclusive.
    pub kernel_ns: [u64; 2],
    /// Relative weights of launches, copies and memsets.
    pub weights: [u64; 3],
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// Default copy speed when a copy has no duration: ~50 GB/s, i.e. 50 bytes per ns.
const DEFAULT_COPY_BYTES_PER_NS: u64 = 50;

/// A copy's duration when the step gives none.
pub(super) fn default_copy_ns(bytes: u64) -> u64 {
    (bytes / DEFAULT_COPY_BYTES_PER_NS).max(2_000)
}

/// A memset's duration when the step gives none.
pub(super) fn default_memset_ns(bytes: u64) -> u64 {
    (bytes / (4 * DEFAULT_COPY_BYTES_PER_NS)).max(2_000)
}

/// The `hipEvent_t` of a scenario's event name: made up, the same for the same name in every
/// thread and run (FNV-1a of the name), never null.
pub fn event_handle(name: &str) -> u64 {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    0x7e00_0000_0000 | (hash & 0x00ff_ffff_fff0)
}
