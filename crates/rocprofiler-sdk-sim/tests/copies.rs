//! Copies as the HIP runtime submits them (the machine's copy model, docs/simulator-fidelity.md
//! rows "Small copies" and "Pageable copies"): small host<->device copies, pinned or pageable,
//! are `__amd_rocclr_copyBuffer` blits with no copy record; larger ones are SDMA copies with the
//! API direction and the real agents; large pageable copies are pinned in pieces (several records
//! under one correlation id); host-to-host copies have no record. Other thresholds and indirect
//! dispatch run in child processes.
use sim::driver::{self, Copy, CopyCall, CopyKind, HostMemory};
use sim::scenario;
use sim_test_kit::child;
use sim_test_kit::recording::*;
use std::sync::{Mutex, MutexGuard};

/// The scenario test counts every copy record made while it runs: one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn copy(kind: CopyKind, bytes: u64) -> Copy {
    sim_test_kit::copy(kind, bytes, 4_000)
}

fn pageable() -> CopyCall {
    CopyCall {
        host: HostMemory::Pageable,
        ..CopyCall::default()
    }
}

fn copies_for(corr: u64) -> Vec<sys::rocprofiler_buffer_tracing_memory_copy_record_t> {
    records_for(corr)
        .into_iter()
        .filter_map(|r| match r {
            Record::Copy(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn api_records_for(corr: u64) -> usize {
    records_for(corr)
        .iter()
        .filter(|r| matches!(r, Record::Api(_)))
        .count()
}

fn agent_ids() -> (u64, u64) {
    let agents = REC.agents.lock().unwrap().clone();
    let of = |t| agents.iter().find(|a| a.1 == t).unwrap().0;
    (
        of(sys::ROCPROFILER_AGENT_TYPE_CPU),
        of(sys::ROCPROFILER_AGENT_TYPE_GPU),
    )
}

fn blit_kernels_for(corr: u64) -> Vec<u64> {
    records_for(corr)
        .into_iter()
        .filter_map(|r| match r {
            Record::Kernel(k) => Some(k.dispatch_info.kernel_id),
            _ => None,
        })
        .collect()
}

/// CLR since d379f4ef (2024-07-22) on every release here: a host<->device copy up to
/// `GPU_FORCE_BLIT_COPY_SIZE` (16 KiB), from pinned or pageable memory, is a shader blit. The
/// SDK sees only its KERNEL_DISPATCH, under the call's correlation id; no copy is done by the
/// CPU without a record (the large-BAR path went in CLR 0a3d4bd4, 2023).
#[test]
fn small_host_copies_are_blit_kernels_pinned_or_pageable() {
    let _serial = serial();
    setup();
    let stream = driver::stream_create().unwrap();
    for call in [CopyCall::default(), pageable()] {
        for kind in [CopyKind::HostToDevice, CopyKind::DeviceToHost] {
            for bytes in [4, 64, 4096, 8192, 16 * 1024] {
                let what = format!("{kind:?} {bytes} B {:?}", call.host);
                let corr = driver::memcpy_async_with(stream, &copy(kind, bytes), &call).unwrap();
                driver::stream_synchronize(stream).unwrap();
                drain();
                assert!(copies_for(corr).is_empty(), "{what}: no copy record");
                assert_eq!(api_records_for(corr), 1, "{what}: the HIP call is traced");
                let kernels = blit_kernels_for(corr);
                assert_eq!(kernels.len(), 1, "{what}: one dispatch");
                let names = REC.kernel_names.lock().unwrap();
                assert_eq!(names[&kernels[0]], driver::BLIT_COPY_KERNEL, "{what}");
            }
        }
    }
    // One byte above the threshold: an SDMA copy with the API direction and the real agents.
    let (cpu, gpu) = agent_ids();
    for (kind, operation, agents) in [
        (
            CopyKind::HostToDevice,
            sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
            (cpu, gpu),
        ),
        (
            CopyKind::DeviceToHost,
            sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST,
            (gpu, cpu),
        ),
    ] {
        let above = driver::memcpy_sync(&copy(kind, 16 * 1024 + 1)).unwrap();
        drain();
        let r = copies_for(above)[0];
        assert_eq!(r.operation, operation, "{kind:?}");
        assert_eq!((r.src_agent_id.handle, r.dst_agent_id.handle), agents);
        assert!(blit_kernels_for(above).is_empty());
    }
}

#[test]
fn large_pageable_copies_give_one_record_per_pinned_piece() {
    let _serial = serial();
    setup();
    let (cpu, gpu) = agent_ids();
    let stream = driver::stream_create().unwrap();
    let bytes = 64 << 20;
    let big = Copy {
        duration_ns: 1_000_000,
        ..copy(CopyKind::HostToDevice, bytes)
    };
    let call = CopyCall {
        host: HostMemory::Pageable,
        dst: 0x7fd0_0000_0000,
        src: 0x5500_0000_0000,
        hip_kind: None,
    };
    let corr = driver::memcpy_async_with(stream, &big, &call).unwrap();
    driver::stream_synchronize(stream).unwrap();
    drain();
    let mut records = copies_for(corr);
    assert_eq!(records.len(), 2, "two 32 MiB pieces under the call's id");
    records.sort_by_key(|r| r.start_timestamp);
    assert!(records.iter().all(|r| r.bytes == 32 << 20
        && r.operation == sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE
        && (r.src_agent_id.handle, r.dst_agent_id.handle) == (cpu, gpu)));
    // The pieces follow each other through the buffer.
    // SAFETY: every member of the address union is a plain 64-bit value.
    let (src0, src1) = unsafe { (records[0].src_address.value, records[1].src_address.value) };
    assert_eq!(
        (src0, src1),
        (0x5500_0000_0000, 0x5500_0000_0000 + (32 << 20))
    );
    assert!(records[0].end_timestamp <= records[1].start_timestamp);
    assert_eq!(api_records_for(corr), 1);
    // The same copy from pinned memory is one record.
    let pinned = driver::memcpy_async(stream, &big).unwrap();
    driver::stream_synchronize(stream).unwrap();
    drain();
    let records = copies_for(pinned);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].bytes, bytes);
}

#[test]
fn host_to_host_copies_have_no_record() {
    let _serial = serial();
    setup();
    let stream = driver::stream_create().unwrap();
    for call in [CopyCall::default(), pageable()] {
        let corr =
            driver::memcpy_async_with(stream, &copy(CopyKind::HostToHost, 1 << 20), &call).unwrap();
        let sync = driver::memcpy_sync_with(&copy(CopyKind::HostToHost, 1 << 20), &call).unwrap();
        driver::stream_synchronize(stream).unwrap();
        drain();
        for c in [corr, sync] {
            assert!(copies_for(c).is_empty());
            assert_eq!(api_records_for(c), 1);
        }
    }
}

#[test]
fn thresholds_are_machine_options() {
    if !child::in_child(
        "thresholds_are_machine_options",
        &[(
            "ROCSIM_MACHINE",
            "sdma_threshold = 0, pageable_chunk = 1048576, h2h_record = true",
        )],
    ) {
        return;
    }
    let _serial = serial();
    setup();
    let model = sim::machine::machine();
    assert_eq!((model.sdma_threshold, model.pageable_chunk), (0, 1 << 20));
    assert!(model.h2h_record);
    let stream = driver::stream_create().unwrap();
    let small =
        driver::memcpy_async_with(stream, &copy(CopyKind::HostToDevice, 64), &pageable()).unwrap();
    let big = driver::memcpy_async_with(
        stream,
        &copy(CopyKind::DeviceToHost, (3 << 20) + 1),
        &pageable(),
    )
    .unwrap();
    driver::stream_synchronize(stream).unwrap();
    drain();
    let small = copies_for(small);
    assert_eq!(small.len(), 1);
    assert_eq!(
        small[0].operation,
        sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE
    );
    let big = copies_for(big);
    assert_eq!(big.len(), 4);
    assert_eq!(big.iter().map(|r| r.bytes).sum::<u64>(), (3 << 20) + 1);
    // Host-to-host copies get a record with the CPU on both sides.
    let (cpu, _) = agent_ids();
    let h2h = driver::memcpy_sync(&copy(CopyKind::HostToHost, 256)).unwrap();
    drain();
    let h2h = copies_for(h2h);
    assert_eq!(h2h.len(), 1);
    assert_eq!(h2h[0].operation, sys::ROCPROFILER_MEMORY_COPY_HOST_TO_HOST);
    assert_eq!(
        (h2h[0].src_agent_id.handle, h2h[0].dst_agent_id.handle),
        (cpu, cpu)
    );
}

#[test]
fn indirect_dispatch_gives_each_piece_a_fresh_id() {
    if !child::in_child(
        "indirect_dispatch_gives_each_piece_a_fresh_id",
        &[("ROCSIM_MACHINE", "direct_dispatch = false")],
    ) {
        return;
    }
    let _serial = serial();
    setup();
    let stream = driver::stream_create().unwrap();
    let before = REC.records.lock().unwrap().len();
    let corr =
        driver::memcpy_async_with(stream, &copy(CopyKind::HostToDevice, 96 << 20), &pageable())
            .unwrap();
    driver::stream_synchronize(stream).unwrap();
    drain();
    assert!(copies_for(corr).is_empty());
    let pieces: Vec<_> = REC.records.lock().unwrap()[before..]
        .iter()
        .filter_map(|r| match r {
            Record::Copy(c) => Some(c.correlation_id.internal),
            _ => None,
        })
        .collect();
    assert_eq!(pieces.len(), 3);
    let distinct: std::collections::BTreeSet<_> = pieces.iter().collect();
    assert_eq!(distinct.len(), 3, "one id per async copy: {pieces:?}");
}

#[test]
fn scenario_copy_steps_choose_pinned_or_pageable_host_memory() {
    let _serial = serial();
    setup();
    let text = r#"
[machine]
pageable_chunk = 1048576
h2h_record = true

[streams]
s = {}

[[thread]]
steps = [
  { memcpy = "h2d", stream = "s", bytes = 2097152, host = "pageable" },
  { memcpy = "h2d", stream = "s", bytes = 2097152 },
  { memcpy = "h2d", stream = "s", bytes = 2097152, host = "pinned" },
  { sync_stream = "s" },
]
"#;
    let s = scenario::parse_str(text, "copies.toml").unwrap();
    let env = s.machine_env();
    let machine = sim::machine::Machine::parse(&env[0].1).unwrap();
    assert_eq!(
        (machine.pageable_chunk, machine.h2h_record),
        (1048576, true)
    );
    match &s.threads[0].steps[..3] {
        [scenario::Step::Memcpy { host: a, .. }, scenario::Step::Memcpy { host: b, .. }, scenario::Step::Memcpy { host: c, .. }] =>
        {
            assert_eq!(
                (*a, *b, *c),
                (HostMemory::Pageable, HostMemory::Pinned, HostMemory::Pinned)
            )
        }
        other => panic!("{other:?}"),
    }
    // Replayed here, on the default machine (its keys dropped, or replay refuses): 2 MiB
    // pageable is one 32 MiB piece.
    assert!(scenario::replay(&s, &()).is_err());
    let mut on_default = s.clone();
    on_default.machine_keys.clear();
    let before = REC.records.lock().unwrap().len();
    scenario::replay(&on_default, &()).unwrap();
    drain();
    let copies = REC.records.lock().unwrap()[before..]
        .iter()
        .filter(|r| matches!(r, Record::Copy(_)))
        .count();
    assert_eq!(copies, 3);

    for (text, line, needle) in [
        (
            "[[thread]]\nsteps = [\n  { memcpy = \"h2d\", bytes = 8, host = \"cached\" },\n]\n",
            3,
            "unknown host memory `cached`",
        ),
        (
            "[[thread]]\nsteps = [\n  { sync_device = true, host = \"pinned\" },\n]\n",
            3,
            "`host` applies to memcpy steps only",
        ),
        (
            "[machine]\nsdma_threshold = -1\n[[thread]]\nsteps = [{ sync_device = true }]\n",
            2,
            "[machine] sdma_threshold: invalid value: integer `-1`",
        ),
    ] {
        let e = scenario::parse_str(text, "bad.toml").expect_err(needle);
        assert_eq!(e.line, line, "{e}");
        assert!(e.column > 0 && e.message.contains(needle), "{e}");
    }
}
