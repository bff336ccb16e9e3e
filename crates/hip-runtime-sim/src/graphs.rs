//! A simple graph model: kernel nodes only, launched in the order they were added (a valid
//! topological order, since a node's dependencies must exist before it).
//!
//! Unlike HIP, which copies kernel arguments into the node (it knows their sizes from the code
//! object), the simulator keeps the `kernelParams` pointers: a node's argument storage must
//! stay alive until its last launch.

use crate::abi::{Dim3, HipKernelNodeParams};
use crate::error::{HipError, HIP_ERROR_INVALID_VALUE};
use crate::handles::HandleSpace;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_void;

#[derive(Clone, Copy, Debug)]
pub struct KernelNode {
    pub function: u64,
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_mem_bytes: u32,
    pub args: *mut *mut c_void,
}

// SAFETY: `args` is only handed back to the program's own host bodies; the simulator never
// dereferences it.
unsafe impl Send for KernelNode {}

impl KernelNode {
    pub fn from_params(p: &HipKernelNodeParams) -> Self {
        Self {
            function: p.func as u64,
            grid: p.gridDim,
            block: p.blockDim,
            shared_mem_bytes: p.sharedMemBytes,
            args: p.kernelParams,
        }
    }
}

#[derive(Default)]
struct Graphs {
    graphs: HashMap<u64, Vec<(u64, KernelNode)>>,
    executables: HashMap<u64, Vec<KernelNode>>,
}

static GRAPHS: Mutex<Option<Graphs>> = Mutex::new(None);
static GRAPH_HANDLES: HandleSpace = HandleSpace::new(0x5b00_0000_0000);
static NODE_HANDLES: HandleSpace = HandleSpace::new(0x5a00_0000_0000);
static EXEC_HANDLES: HandleSpace = HandleSpace::new(0x5900_0000_0000);

fn with_graphs<T>(f: impl FnOnce(&mut Graphs) -> T) -> T {
    f(GRAPHS.lock().get_or_insert_with(Graphs::default))
}

pub fn create() -> u64 {
    let handle = GRAPH_HANDLES.next();
    with_graphs(|g| g.graphs.insert(handle, Vec::new()));
    handle
}

/// Adds a kernel node; every dependency must be a node of this graph.
pub fn add_kernel_node(
    graph: u64,
    dependencies: &[u64],
    node: KernelNode,
) -> Result<u64, HipError> {
    with_graphs(|g| {
        let nodes = g
            .graphs
            .get_mut(&graph)
            .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
        if !dependencies
            .iter()
            .all(|d| nodes.iter().any(|(h, _)| h == d))
        {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        let handle = NODE_HANDLES.next();
        nodes.push((handle, node));
        Ok(handle)
    })
}

pub fn instantiate(graph: u64) -> Result<u64, HipError> {
    with_graphs(|g| {
        let nodes = g
            .graphs
            .get(&graph)
            .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
        let exec: Vec<KernelNode> = nodes.iter().map(|(_, n)| *n).collect();
        let handle = EXEC_HANDLES.next();
        g.executables.insert(handle, exec);
        Ok(handle)
    })
}

pub fn executable_nodes(exec: u64) -> Result<Vec<KernelNode>, HipError> {
    with_graphs(|g| {
        g.executables
            .get(&exec)
            .cloned()
            .ok_or(HipError(HIP_ERROR_INVALID_VALUE))
    })
}

pub fn destroy(graph: u64) -> Result<(), HipError> {
    with_graphs(|g| {
        g.graphs
            .remove(&graph)
            .map(|_| ())
            .ok_or(HipError(HIP_ERROR_INVALID_VALUE))
    })
}

pub fn destroy_executable(exec: u64) -> Result<(), HipError> {
    with_graphs(|g| {
        g.executables
            .remove(&exec)
            .map(|_| ())
            .ok_or(HipError(HIP_ERROR_INVALID_VALUE))
    })
}
