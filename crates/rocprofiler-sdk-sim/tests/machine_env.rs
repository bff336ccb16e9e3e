//! Machine configurations read from the environment once per process (gpus,
//! direct_dispatch), each test in its own child process.
use sim::driver::{self, CopyKind};
use sim::scenario;
use sim_test_kit::child;
use sim_test_kit::recording::*;

#[test]
fn two_gpus_replay_with_a_peer_copy() {
    if !child::in_child(
        "two_gpus_replay_with_a_peer_copy",
        &[("ROCSIM_MACHINE", "gpus = 2")],
    ) {
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
    // Device-to-device records whose agents differ: the 4 KiB read-back on GPU 1 is a blit
    // recorded as device-to-device on GPU 1 alone, the peer copy goes from GPU 0 to GPU 1.
    let peer: Vec<_> = records
        .iter()
        .filter_map(|r| match r {
            Record::Copy(c)
                if c.operation == sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE
                    && c.src_agent_id.handle != c.dst_agent_id.handle =>
            {
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
    three.machine_keys.insert("gpus".into(), 3.into());
    let error = scenario::replay(&three, &()).unwrap_err().to_string();
    assert!(
        error.contains("with gpus = 3 but this process has gpus = 2")
            && error.contains("ROCSIM_MACHINE='gpus = 3'"),
        "{error}"
    );
    assert_eq!(driver::set_device(2), Err(sim::SimError::InvalidDevice(2)));
}

#[test]
fn indirect_dispatch_moves_the_request_to_a_worker_thread() {
    if !child::in_child(
        "indirect_dispatch_moves_the_request_to_a_worker_thread",
        &[("ROCSIM_MACHINE", "direct_dispatch = false")],
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
    let copy = sim_test_kit::copy(CopyKind::HostToDevice, 1 << 20, 1_000);
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
    // ...and the worker's correlation stack is empty, so the SDK makes a fresh correlation id
    // there for each packet and copy: no GPU record carries the API call's id.
    for c in [corr, copy_corr] {
        let records = records_for(c);
        assert!(
            records.iter().all(|r| matches!(r, Record::Api(_))),
            "GPU record under the HIP call's id {c}: {records:?}"
        );
        assert_eq!(records.len(), 1, "the API record keeps the call's id");
    }
    // The GPU records carry ids made on the worker thread (the requests asked with them), and
    // the thread-local stream stack gives the wrong stream (docs/sdk-facts.md#direct-dispatch): 0, not the stream.
    let asked: Vec<u64> = requests
        .iter()
        .map(|q| match q {
            Event::Request { internal, .. } => *internal,
            _ => unreachable!(),
        })
        .collect();
    assert!(!asked.contains(&corr) && !asked.contains(&copy_corr));
    let all = REC.records.lock().unwrap().clone();
    let gpu: Vec<_> = all
        .iter()
        .filter(|r| !matches!(r, Record::Api(_)) && asked.contains(&r.internal()))
        .collect();
    assert_eq!(gpu.len(), 2, "{gpu:?}");
    for r in &gpu {
        assert_eq!(r.external(), 0);
    }
}

unsafe extern "C" fn keep_agents(
    _version: sys::rocprofiler_agent_version_t,
    agents: *mut *const std::ffi::c_void,
    num_agents: usize,
    user_data: *mut std::ffi::c_void,
) -> sys::rocprofiler_status_t {
    // SAFETY: `user_data` is the Vec query_agents passed, alive and unshared during the query.
    let out = unsafe { &mut *user_data.cast::<Vec<*const sys::rocprofiler_agent_v0_t>>() };
    for i in 0..num_agents {
        // SAFETY: the SDK passes `num_agents` agent pointers.
        out.push(unsafe { *agents.add(i) }.cast());
    }
    sys::ROCPROFILER_STATUS_SUCCESS
}

fn query_agents(
    agent_size: usize,
) -> (sys::rocprofiler_status_t, Vec<sys::rocprofiler_agent_v0_t>) {
    let mut pointers: Vec<*const sys::rocprofiler_agent_v0_t> = Vec::new();
    // SAFETY: keep_agents has the SDK's agent callback type and gets `pointers`, which outlives
    // the call.
    let status = unsafe {
        sys::rocprofiler_query_available_agents(
            sys::ROCPROFILER_AGENT_INFO_VERSION_0,
            Some(keep_agents),
            agent_size,
            (&mut pointers as *mut Vec<_>).cast(),
        )
    };
    // SAFETY: the sim's agents occupy a full 312-byte struct in both modes and live for the
    // process, so reading one is sound.
    let agents = pointers.iter().map(|p| unsafe { **p }).collect();
    (status, agents)
}

#[test]
fn rocm_7_0_has_304_byte_agents_an_8_byte_uuid_and_context_none_max() {
    if !child::in_child(
        "rocm_7_0_has_304_byte_agents_an_8_byte_uuid_and_context_none_max",
        &[("ROCSIM_MACHINE", "rocm = \"7.0\", gpus = 2")],
    ) {
        return;
    }
    assert_eq!(
        sim::machine::machine().rocm,
        sim::machine::RocmRelease::Rocm7_0
    );
    // A tool built against the 7.1 headers asks for 312 bytes: the 7.0 library refuses.
    let (status, agents) = query_agents(std::mem::size_of::<sys::rocprofiler_agent_v0_t>());
    assert_eq!(status, sys::ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI);
    assert!(agents.is_empty(), "the callback must not run");
    for size in [304, 292] {
        let (status, agents) = query_agents(size);
        assert_eq!(status, sys::ROCPROFILER_STATUS_SUCCESS, "agent_size {size}");
        assert_eq!(agents.len(), 4, "two CPU sockets and two GPUs");
        for agent in &agents {
            assert_eq!(agent.size, 304);
            // Past the 8-byte 7.0 UUID lies memory that is not part of the struct.
            assert_eq!(agent.uuid.bytes[8..], [0xDB; 8]);
        }
        let gpus: Vec<_> = agents
            .iter()
            .filter(|a| a.type_ == sys::ROCPROFILER_AGENT_TYPE_GPU)
            .collect();
        assert_eq!(gpus.len(), 2);
        assert_eq!(
            gpus.iter()
                .map(|g| g.logical_node_type_id)
                .collect::<Vec<_>>(),
            [0, 1]
        );
        assert_ne!(gpus[0].uuid.bytes[..8], [0; 8]);
    }
    // CONTEXT_NONE is UINT64_MAX in 7.0: a failed create leaves it in the id.
    let mut context = sys::rocprofiler_context_id_t { handle: 0 };
    assert_eq!(
        // SAFETY: `context` is a live local for the SDK to write.
        unsafe { sys::rocprofiler_create_context(&mut context) },
        sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED
    );
    assert_eq!(context.handle, u64::MAX);
    let mut active = 1;
    assert_eq!(
        // SAFETY: `active` is a live local for the SDK to write.
        unsafe { sys::rocprofiler_context_is_active(context, &mut active) },
        sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
    );
}

#[test]
fn rocm_7_1_is_the_default_layout() {
    if !child::in_child("rocm_7_1_is_the_default_layout", &[]) {
        return;
    }
    let (status, agents) = query_agents(std::mem::size_of::<sys::rocprofiler_agent_v0_t>());
    assert_eq!(status, sys::ROCPROFILER_STATUS_SUCCESS);
    assert!(agents.iter().all(|a| a.size == 312));
    assert_eq!(
        // SAFETY: keep_agents with null data is never called: the size check fails first.
        unsafe {
            sys::rocprofiler_query_available_agents(
                sys::ROCPROFILER_AGENT_INFO_VERSION_0,
                Some(keep_agents),
                313,
                std::ptr::null_mut(),
            )
        },
        sys::ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI
    );
    let mut context = sys::rocprofiler_context_id_t { handle: 0 };
    assert_eq!(
        // SAFETY: `context` is a live local for the SDK to write.
        unsafe { sys::rocprofiler_create_context(&mut context) },
        sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED
    );
    assert_eq!(context.handle, 0, "CONTEXT_NONE is 0 from ROCm 7.1");
}

#[test]
fn rocsim_version_sets_the_reported_sdk_version() {
    if !child::in_child(
        "rocsim_version_sets_the_reported_sdk_version",
        &[("ROCSIM_MACHINE", "sdk_version = \"0.6.0\"")],
    ) {
        return;
    }
    let (mut major, mut minor, mut patch) = (9, 9, 9);
    assert_eq!(
        // SAFETY: live locals for the SDK to write.
        unsafe { sys::rocprofiler_get_version(&mut major, &mut minor, &mut patch) },
        sys::ROCPROFILER_STATUS_SUCCESS
    );
    assert_eq!((major, minor, patch), (0, 6, 0));
    let mut triplet = sys::rocprofiler_version_triplet_t {
        major: 9,
        minor: 9,
        patch: 9,
    };
    // SAFETY: `triplet` is a live local for the SDK to write.
    unsafe { sys::rocprofiler_get_version_triplet(&mut triplet) };
    assert_eq!((triplet.major, triplet.minor, triplet.patch), (0, 6, 0));
}
