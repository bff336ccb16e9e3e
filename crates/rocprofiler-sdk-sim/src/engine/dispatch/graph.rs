//! HIP_GRAPH tracing, SDK 1.3.2 on (ROCm 7.14; docs/simulator-fidelity.md, "Tracing kinds").
//! Pinned to ROCm/rocm-systems@3d3121e0 `projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/
//! hip/graph.cpp`:
//!
//! - a process-wide map gives each `hipGraphExec_t` an id counting from 1 (0: a null exec);
//! - EXEC_CREATE (phase NONE) follows a successful instantiation; a launch of an exec the map
//!   never saw synthesizes the CREATE first; EXEC_DESTROY follows `hipGraphExecDestroy` and the
//!   exec leaves the map. Modelled: the synthesized CREATE only (the simulated runtime's
//!   instantiation and destruction do not reach the SDK), so an exec gets its id and its
//!   CREATE at its first launch, and keeps the id for the process;
//! - `hipGraphLaunch` gets EXEC_LAUNCH ENTER and EXIT inside the HIP API call (the SDK's graph
//!   wrapper is inner to the HIP API one, so both carry the call's internal correlation id),
//!   and after EXIT one buffer record with the launch's span, the stream's GPU agent,
//!   `queue_id` 0 and the number of dispatches the launch made.
//!
//! The callbacks' external value is the context's HIP_RUNTIME_API one (the SDK's
//! `update_external_correlation_ids(..., REQUEST_HIP_RUNTIME_API)`).
use super::{correlation, invoke, Participant, Participants};
use crate::engine::agents::agents;
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, Selector};
use crate::time::clock::{gettid, now_ns};
use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap as HashMap;
use std::sync::LazyLock;

struct ExecIds {
    ids: HashMap<u64, u64>,
    next: u64,
}

static EXEC_IDS: LazyLock<Mutex<ExecIds>> = LazyLock::new(|| {
    Mutex::new(ExecIds {
        ids: HashMap::default(),
        next: 1,
    })
});

/// The SDK's id of `exec` and whether this call assigned it (0 and false for a null exec).
fn assign(exec: u64) -> (u64, bool) {
    if exec == 0 {
        return (0, false);
    }
    let mut ids = EXEC_IDS.lock();
    if let Some(id) = ids.ids.get(&exec) {
        return (*id, false);
    }
    let id = ids.next;
    ids.next += 1;
    ids.ids.insert(exec, id);
    (id, true)
}

fn payload(exec_id: u64, exec: u64) -> sys::rocprofiler_callback_tracing_hip_graph_data_t {
    sys::rocprofiler_callback_tracing_hip_graph_data_t {
        size: std::mem::size_of::<sys::rocprofiler_callback_tracing_hip_graph_data_t>() as u64,
        graph_exec_id: sys::rocprofiler_graph_exec_id_t { handle: exec_id },
        graph_exec_value: sys::rocprofiler_address_t { value: exec },
    }
}

fn participants(operation: i32, correlation_id: u64, tid: u64) -> Participants {
    if !crate::sdk::names::hip_graph_tracing() {
        return Participants::new();
    }
    let targets = registry::targets(
        Selector {
            callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH),
            buffer_kind: Some(sys::ROCPROFILER_BUFFER_TRACING_HIP_GRAPH),
            request_kind: Some(sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API),
        },
        &[operation],
        operation,
    );
    targets
        .into_iter()
        .map(|target| {
            let external = ext::resolve(
                &target,
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API,
                operation,
                correlation_id,
                tid,
            );
            Participant {
                target,
                external,
                user_data: 0,
            }
        })
        .collect()
}

/// One phase-NONE callback (EXEC_CREATE, EXEC_DESTROY) to every context tracing it.
fn lifecycle(operation: i32, exec_id: u64, exec: u64, correlation_id: u64) {
    let tid = gettid();
    let mut data = payload(exec_id, exec);
    for mut p in participants(operation, correlation_id, tid) {
        if let Some(service) = &p.target.callback {
            invoke(
                service,
                p.target.context,
                tid,
                correlation(correlation_id, p.external),
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH,
                operation,
                sys::ROCPROFILER_CALLBACK_PHASE_NONE,
                (&mut data as *mut sys::rocprofiler_callback_tracing_hip_graph_data_t).cast(),
                &mut p.user_data,
            );
        }
    }
}

/// One `hipGraphLaunch` between its EXEC_LAUNCH ENTER and EXIT.
pub(crate) struct GraphLaunch {
    tid: u64,
    correlation_id: u64,
    exec_id: u64,
    exec: u64,
    agent: sys::rocprofiler_agent_id_t,
    start_ns: u64,
    participants: Participants,
}

impl GraphLaunch {
    /// EXEC_LAUNCH ENTER for `exec` launched on `device` by HIP call `correlation_id` (after a
    /// synthesized EXEC_CREATE if the exec is new to the SDK). Also when no context traces
    /// HIP_GRAPH: the SDK's map assigns ids whether or not anyone listens.
    pub(crate) fn enter(exec: u64, device: u32, correlation_id: u64) -> GraphLaunch {
        let tid = gettid();
        let (exec_id, new) = assign(exec);
        if new {
            lifecycle(
                sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE,
                exec_id,
                exec,
                correlation_id,
            );
        }
        let operation = sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH;
        let mut participants = participants(operation, correlation_id, tid);
        let mut data = payload(exec_id, exec);
        for p in &mut participants {
            p.notify(
                tid,
                correlation_id,
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH,
                operation,
                sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
                (&mut data as *mut sys::rocprofiler_callback_tracing_hip_graph_data_t).cast(),
            );
        }
        GraphLaunch {
            tid,
            correlation_id,
            exec_id,
            exec,
            agent: agents().gpu(device),
            start_ns: now_ns(),
            participants,
        }
    }

    /// EXEC_LAUNCH EXIT, then the buffer record of a launch that made `dispatches` dispatches.
    pub(crate) fn exit(mut self, dispatches: u64) {
        let operation = sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH;
        let mut data = payload(self.exec_id, self.exec);
        let (tid, correlation_id) = (self.tid, self.correlation_id);
        for p in &mut self.participants {
            p.notify(
                tid,
                correlation_id,
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH,
                operation,
                sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
                (&mut data as *mut sys::rocprofiler_callback_tracing_hip_graph_data_t).cast(),
            );
        }
        let end_ns = now_ns();
        for p in &self.participants {
            if let Some(buffer) = p.target.buffer {
                let record = sys::rocprofiler_buffer_tracing_hip_graph_record_t {
                    size: std::mem::size_of::<sys::rocprofiler_buffer_tracing_hip_graph_record_t>()
                        as u64,
                    kind: sys::ROCPROFILER_BUFFER_TRACING_HIP_GRAPH,
                    operation,
                    correlation_id: correlation(correlation_id, p.external),
                    thread_id: tid,
                    start_timestamp: self.start_ns,
                    end_timestamp: end_ns,
                    agent_id: self.agent,
                    queue_id: sys::rocprofiler_queue_id_t { handle: 0 },
                    graph_exec_id: sys::rocprofiler_graph_exec_id_t {
                        handle: self.exec_id,
                    },
                    kernel_dispatch_count: dispatches,
                };
                crate::engine::buffer::push(
                    buffer,
                    sys::ROCPROFILER_BUFFER_TRACING_HIP_GRAPH,
                    &record,
                );
            }
        }
    }
}
