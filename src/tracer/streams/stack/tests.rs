//! The stream stack of one thread, its statistics and its SET callback.
use super::*;

#[test]
fn starts_at_null_stream_nests_and_never_underflows() {
    std::thread::spawn(|| {
        assert_eq!(top(), 0);
        assert_eq!(depth(), 1);
        push(3);
        push(5);
        assert_eq!(top(), 5);
        pop();
        assert_eq!(top(), 3);
        pop();
        assert_eq!(top(), 0);
        let before = unmatched_exits_total();
        pop();
        pop();
        assert_eq!(top(), 0);
        assert_eq!(depth(), 1);
        assert!(unmatched_exits_total() >= before + 2);
        let stats = current_thread_stats();
        assert_eq!(stats.pushes, 2);
        assert_eq!(stats.pops, 2);
        assert_eq!(stats.unmatched_exits, 2);
        assert_eq!(stats.max_depth, 3);
    })
    .join()
    .unwrap();
}

#[test]
fn nesting_beyond_the_stored_depth_is_counted_and_unwinds_correctly() {
    std::thread::spawn(|| {
        let deepest = MAX_DEPTH as u64;
        for id in 1..=deepest + 3 {
            push(id);
        }
        assert_eq!(depth(), MAX_DEPTH + 4);
        // The extra entries are not stored: the deepest stored one stays on top.
        assert_eq!(top(), deepest);
        for _ in 0..3 {
            pop();
            assert_eq!(top(), deepest);
        }
        for id in (1..=deepest).rev() {
            assert_eq!(top(), id);
            pop();
        }
        assert_eq!(top(), 0);
        assert_eq!(current_thread_stats().unmatched_exits, 0);
    })
    .join()
    .unwrap();
}

#[test]
fn twenty_nested_streams_unwind_in_order() {
    std::thread::spawn(|| {
        for id in 1..=20u64 {
            push(id);
        }
        assert_eq!(current_thread_stats().max_depth, 21);
        for id in (1..=20u64).rev() {
            assert_eq!(top(), id);
            pop();
        }
        assert_eq!(top(), 0);
    })
    .join()
    .unwrap();
}

/// A SET window as the SDK delivers it: ENTER and EXIT with one `user_data`.
fn set_callback(
    phase: sys::rocprofiler_callback_phase_t,
    stream_id: u64,
    user_data: *mut sys::rocprofiler_user_data_t,
) {
    set_callback_of_size(phase, stream_id, user_data, STREAM_VALUE_END);
}

fn set_callback_of_size(
    phase: sys::rocprofiler_callback_phase_t,
    stream_id: u64,
    user_data: *mut sys::rocprofiler_user_data_t,
    size: u64,
) {
    // SAFETY: a plain C struct; all-zero is a valid value.
    let mut payload: sys::rocprofiler_callback_tracing_hip_stream_data_t =
        unsafe { std::mem::zeroed() };
    payload.size = size;
    payload.stream_id.handle = stream_id;
    payload.stream_value.value = 0x7f00_0000_0000 + stream_id;
    // SAFETY: as above.
    let mut record: sys::rocprofiler_callback_tracing_record_t = unsafe { std::mem::zeroed() };
    record.kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM;
    record.operation = sys::ROCPROFILER_HIP_STREAM_SET;
    record.phase = phase;
    record.payload = std::ptr::addr_of_mut!(payload).cast();
    // SAFETY: the payload and `user_data` are valid for the call, as the SDK's are.
    unsafe { hip_stream_callback(record, user_data, std::ptr::null_mut()) };
}

#[test]
fn set_exit_pops_the_stack_its_enter_kept_in_user_data_or_else_the_threads() {
    std::thread::spawn(|| {
        let (enter, exit) = (
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        );
        let mut outer = sys::rocprofiler_user_data_t { value: 0 };
        let mut inner = sys::rocprofiler_user_data_t { value: 0 };
        set_callback(enter, 3, &mut outer);
        // SAFETY: a union of plain 8-byte values.
        assert_ne!(unsafe { outer.value }, 0, "ENTER keeps where the stack is");
        set_callback(enter, 5, &mut inner);
        assert_eq!(top(), 5);
        set_callback(exit, 5, &mut inner);
        assert_eq!(top(), 3);
        // An EXIT whose ENTER this context did not see (zeroed `user_data`), and one
        // without `user_data`: the thread's own stack, through its thread-local.
        let mut unseen = sys::rocprofiler_user_data_t { value: 0 };
        set_callback(exit, 3, &mut unseen);
        assert_eq!(top(), 0);
        set_callback(enter, 7, std::ptr::null_mut());
        assert_eq!(top(), 7);
        set_callback(exit, 7, std::ptr::null_mut());
        assert_eq!(top(), 0);
        assert_eq!(current_thread_stats().unmatched_exits, 0);
        // The outer window's EXIT finds nothing left to pop: counted, never below the base.
        set_callback(exit, 3, &mut outer);
        assert_eq!((top(), depth()), (0, 1));
        assert_eq!(current_thread_stats().unmatched_exits, 1);
    })
    .join()
    .unwrap();
}

#[test]
fn a_payload_too_short_for_the_handle_still_pushes_its_id_and_one_too_short_for_the_id_none() {
    std::thread::spawn(|| {
        let enter = sys::ROCPROFILER_CALLBACK_PHASE_ENTER;
        let mut user_data = sys::rocprofiler_user_data_t { value: 0 };
        set_callback_of_size(enter, 9, &mut user_data, STREAM_ID_END);
        assert_eq!((top(), depth()), (9, 2));
        set_callback_of_size(enter, 11, &mut user_data, STREAM_ID_END - 1);
        assert_eq!((top(), depth()), (9, 2), "nothing readable: no push");
    })
    .join()
    .unwrap();
}

#[test]
fn a_set_onto_the_base_reports_depth_two_and_a_record_of_another_kind_is_no_set() {
    std::thread::spawn(|| {
        let (enter, exit) = (
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        );
        assert_eq!(current_thread_stats().max_depth, 1);
        let mut user_data = sys::rocprofiler_user_data_t { value: 0 };
        set_callback(enter, 4, &mut user_data);
        assert_eq!((top(), current_thread_stats().max_depth), (4, 2));
        set_callback(exit, 4, &mut user_data);
        let stats = current_thread_stats();
        assert_eq!((stats.pushes, stats.pops, stats.max_depth), (1, 1, 2));
        // Another kind whose operation has SET's value: not a SET, nothing pushed.
        // SAFETY: a plain C struct; all-zero is a valid value.
        let mut payload: sys::rocprofiler_callback_tracing_hip_stream_data_t =
            unsafe { std::mem::zeroed() };
        payload.size = STREAM_VALUE_END;
        payload.stream_id.handle = 9;
        // SAFETY: as above.
        let mut record: sys::rocprofiler_callback_tracing_record_t = unsafe { std::mem::zeroed() };
        record.kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
        record.operation = sys::ROCPROFILER_HIP_STREAM_SET;
        record.phase = enter;
        record.payload = std::ptr::addr_of_mut!(payload).cast();
        // SAFETY: the payload and `user_data` are valid for the call, as the SDK's are.
        unsafe { hip_stream_callback(record, &mut user_data, std::ptr::null_mut()) };
        assert_eq!((top(), depth()), (0, 1));
        assert_eq!(current_thread_stats().pushes, 1);
    })
    .join()
    .unwrap();
}

#[test]
fn stacks_are_per_thread() {
    push(7);
    let other = std::thread::spawn(top).join().unwrap();
    assert_eq!(other, 0);
    assert_eq!(top(), 7);
    pop();
}
