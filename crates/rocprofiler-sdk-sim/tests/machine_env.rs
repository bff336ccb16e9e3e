//! Machine configurations read from the environment once per process (ROCSIM_GPUS,
//! ROCSIM_DIRECT_DISPATCH), each test in its own child process.
#[path = "common/child.rs"]
mod child;
mod common;
use common::*;
use sim::driver::{self, Copy, CopyKind};
use sim::scenario;

#[test]
fn two_gpus_replay_with_a_peer_copy() {
    if !child::in_child("two_gpus_replay_with_a_peer_copy", &[("ROCSIM_GPUS", "2")]) {
        return;
    }
    setup();
    assert_eq!(sim::machine::machine().gpus, 2);
    let agents = REC.agents.lock().unwrap().clone();
    let gpus: Vec<u64> = agents
        .iter()
        .filter(|a| a.1 == sys::ROCPROFILER_AGENT_TYPE_GPU)
        .map(|a| a.0)
        .collect();
    assert_eq!(gpus.len(), 2);
    assert_eq!(gpus[1], gpus[0] + 1);
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/two_gpu.toml");
    let s = scenario::load(path).unwrap();
    let summary = scenario::replay(&s, &()).unwrap();
    drain();
    assert_eq!(summary.copies.get(&CopyKind::DeviceToDevice), Some(&1));
    let records = REC.records.lock().unwrap().clone();
    let peer: Vec<_> = records
        .iter()
        .filter_map(|r| match r {
            Record::Copy(c) if c.operation == sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE => {
                Some(*c)
            }
            _ => None,
        })
        .collect();
    assert_eq!(peer.len(), 1, "a peer copy is an SDMA MEMORY_COPY");
    assert_eq!(
        (peer[0].src_agent_id.handle, peer[0].dst_agent_id.handle),
        (gpus[0], gpus[1])
    );
    let kernel_agents: std::collections::BTreeSet<u64> = records
        .iter()
        .filter_map(|r| {
            if let Record::Kernel(k) = r {
                Some(k.dispatch_info.agent_id.handle)
            } else {
                None
            }
        })
        .collect();
    assert!(kernel_agents.contains(&gpus[0]) && kernel_agents.contains(&gpus[1]));
    // The scenario cannot run on a machine with fewer GPUs than it declares.
    let mut three = s.clone();
    three.gpus = 3;
    assert!(scenario::replay(&three, &())
        .unwrap_err()
        .to_string()
        .contains("needs 3 GPU(s)"));
    assert_eq!(driver::set_device(2), Err(sim::SimError::InvalidDevice(2)));
}

#[test]
fn indirect_dispatch_moves_the_request_to_a_worker_thread() {
    if !child::in_child(
        "indirect_dispatch_moves_the_request_to_a_worker_thread",
        &[("ROCSIM_DIRECT_DISPATCH", "0")],
    ) {
        return;
    }
    setup();
    assert!(!sim::machine::machine().direct_dispatch);
    let launch = kernel("_Z6workerv");
    let stream = driver::stream_create().unwrap();
    let sdk_id = driver::sdk_stream_id(stream).unwrap();
    assert_ne!(sdk_id, 0);
    let me = tid();
    let from = event_count();
    let corr = driver::launch_kernel(stream, &launch).unwrap();
    let copy = Copy {
        kind: CopyKind::HostToDevice,
        bytes: 64,
        src_device: None,
        dst_device: None,
        duration_ns: 1_000,
    };
    let copy_corr = driver::memcpy_async(stream, &copy).unwrap();
    driver::stream_synchronize(stream).unwrap();
    drain();
    let events = REC.events.lock().unwrap()[from..].to_vec();
    let requests: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, Event::Request { .. }))
        .collect();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_ne!(
            r.tid(),
            me,
            "with AMD_DIRECT_DISPATCH=0 the request runs on HIP's worker thread"
        );
    }
    // The enqueue callbacks moved too, outside the app thread's SET bracket...
    assert!(!events.iter().any(|e| e.tid() == me && matches!(e, Event::Callback { kind, .. } if *kind == sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH)));
    // ...so the thread-local stream stack gives the wrong stream (§13.2): 0, not the stream.
    for c in [corr, copy_corr] {
        let gpu = records_for(c)
            .into_iter()
            .find(|r| !matches!(r, Record::Api(_)))
            .unwrap();
        assert_eq!(gpu.external(), 0);
    }
}
