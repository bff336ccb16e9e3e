//! A validated scenario: every name resolved, every number in range.
use crate::driver::{CopyKind, HostMemory};
use crate::machine::{StreamMap, VisibilityEnv};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: PathBuf,
    pub gpus: u32,
    pub code_objects: Vec<CodeObjectSpec>,
    pub streams: Vec<StreamSpec>,
    pub threads: Vec<ThreadSpec>,
    /// `[machine] stream_map`: the SDK stream map the scenario is valid under.
    pub stream_map: Option<StreamMap>,
    /// `[machine] cpus`: CPU sockets (agents).
    pub cpus: Option<u32>,
    /// `[machine] hip_visible_devices` / `rocr_visible_devices` (the other variables unset).
    pub visibility: VisibilityEnv,
    /// `[machine]` copy thresholds the scenario sets (`None`: the machine's default).
    pub copies: CopyModelSpec,
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

/// The copy-path thresholds of `[machine]` (bytes), each fixing one `ROCSIM_*` variable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopyModelSpec {
    pub sdma_threshold: Option<u64>,
    pub large_bar_h2d_max: Option<u64>,
    pub large_bar_d2h_max: Option<u64>,
    pub pageable_chunk: Option<u64>,
    pub h2h_record: Option<bool>,
    /// `direct_dispatch = false`: HIP's worker thread submits (`ROCSIM_DIRECT_DISPATCH=0`).
    pub direct_dispatch: Option<bool>,
}

impl Scenario {
    /// The simulated machine this scenario asks for, as the `ROCSIM_*` environment variables
    /// that fix a process's machine (`crate::machine`). The machine is read once per process,
    /// so a runner whose environment differs starts a process with these set.
    pub fn machine_env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![("ROCSIM_GPUS", self.gpus.to_string())];
        if let Some(map) = self.stream_map {
            env.push(("ROCSIM_STREAM_MAP", map.as_str().to_owned()));
        }
        if let Some(cpus) = self.cpus {
            env.push(("ROCSIM_CPUS", cpus.to_string()));
        }
        if let Some(list) = &self.visibility.hip_visible_devices {
            env.push(("HIP_VISIBLE_DEVICES", list.clone()));
        }
        if let Some(list) = &self.visibility.rocr_visible_devices {
            env.push(("ROCR_VISIBLE_DEVICES", list.clone()));
        }
        for (name, value) in [
            ("ROCSIM_SDMA_THRESHOLD", self.copies.sdma_threshold),
            ("ROCSIM_LARGE_BAR_H2D_MAX", self.copies.large_bar_h2d_max),
            ("ROCSIM_LARGE_BAR_D2H_MAX", self.copies.large_bar_d2h_max),
            ("ROCSIM_PAGEABLE_CHUNK", self.copies.pageable_chunk),
        ] {
            if let Some(v) = value {
                env.push((name, v.to_string()));
            }
        }
        if let Some(record) = self.copies.h2h_record {
            env.push(("ROCSIM_H2H_RECORD", u32::from(record).to_string()));
        }
        if let Some(direct) = self.copies.direct_dispatch {
            env.push(("ROCSIM_DIRECT_DISPATCH", u32::from(direct).to_string()));
        }
        env
    }

    /// The HIP devices the scenario's machine has: its GPUs that its visibility lists leave
    /// to HIP. Device numbers in the scenario count these.
    pub fn hip_devices(&self) -> u32 {
        crate::agents::hip_device_order(self.gpus, &self.visibility).len() as u32
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
    Graph {
        stream: StreamRef,
        nodes: Vec<GraphNode>,
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
    /// Seeded random launches, copies and memsets, generated one at a time during replay.
    Random(Box<super::random::RandomSpec>),
    /// Repeated steps, optionally inside an annotation (`{i}` in the name = iteration).
    Group {
        annotate: Option<String>,
        repeat: u32,
        steps: Vec<Step>,
    },
}
