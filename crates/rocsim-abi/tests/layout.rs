//! The C layout of the `rocsim_*` structs on x86-64, as the C declarations (the `capi`
//! documentation, the C++ tests and benches) spell them: a field moved or retyped here fails.

use rocsim_abi::*;
use std::mem::{align_of, offset_of, size_of};

#[test]
fn kernel_launch_layout() {
    assert_eq!(size_of::<rocsim_kernel_launch_t>(), 48);
    assert_eq!(align_of::<rocsim_kernel_launch_t>(), 8);
    assert_eq!(offset_of!(rocsim_kernel_launch_t, kernel), 0);
    assert_eq!(offset_of!(rocsim_kernel_launch_t, grid), 8);
    assert_eq!(offset_of!(rocsim_kernel_launch_t, block), 20);
    assert_eq!(offset_of!(rocsim_kernel_launch_t, private_segment_size), 32);
    assert_eq!(offset_of!(rocsim_kernel_launch_t, group_segment_size), 36);
    assert_eq!(offset_of!(rocsim_kernel_launch_t, duration_ns), 40);
}

#[test]
fn copy_layout() {
    assert_eq!(size_of::<rocsim_copy_t>(), 32);
    assert_eq!(align_of::<rocsim_copy_t>(), 8);
    assert_eq!(offset_of!(rocsim_copy_t, kind), 0);
    assert_eq!(offset_of!(rocsim_copy_t, bytes), 8);
    assert_eq!(offset_of!(rocsim_copy_t, src_device), 16);
    assert_eq!(offset_of!(rocsim_copy_t, dst_device), 20);
    assert_eq!(offset_of!(rocsim_copy_t, duration_ns), 24);
}

#[test]
fn stream_create_options_layout() {
    assert_eq!(size_of::<rocsim_stream_create_options_t>(), 24);
    assert_eq!(align_of::<rocsim_stream_create_options_t>(), 8);
    assert_eq!(offset_of!(rocsim_stream_create_options_t, op), 0);
    assert_eq!(offset_of!(rocsim_stream_create_options_t, rejected), 4);
    assert_eq!(
        offset_of!(rocsim_stream_create_options_t, has_stream_out),
        8
    );
    assert_eq!(offset_of!(rocsim_stream_create_options_t, stream_out), 16);
}

#[test]
fn code_object_options_layout() {
    assert_eq!(size_of::<rocsim_code_object_options_t>(), 32);
    assert_eq!(offset_of!(rocsim_code_object_options_t, device), 0);
    assert_eq!(offset_of!(rocsim_code_object_options_t, count), 8);
    assert_eq!(offset_of!(rocsim_code_object_options_t, names), 16);
    assert_eq!(offset_of!(rocsim_code_object_options_t, symbols), 24);
}

#[test]
fn launch_options_layout() {
    assert_eq!(size_of::<rocsim_launch_options_t>(), 80);
    assert_eq!(offset_of!(rocsim_launch_options_t, launch), 0);
    assert_eq!(offset_of!(rocsim_launch_options_t, stream), 48);
    assert_eq!(offset_of!(rocsim_launch_options_t, function), 56);
    assert_eq!(offset_of!(rocsim_launch_options_t, args), 64);
    assert_eq!(offset_of!(rocsim_launch_options_t, op), 72);
}

#[test]
fn graph_launch_options_layout() {
    assert_eq!(size_of::<rocsim_graph_launch_options_t>(), 32);
    assert_eq!(offset_of!(rocsim_graph_launch_options_t, kernels), 0);
    assert_eq!(offset_of!(rocsim_graph_launch_options_t, count), 8);
    assert_eq!(offset_of!(rocsim_graph_launch_options_t, stream), 16);
    assert_eq!(offset_of!(rocsim_graph_launch_options_t, graph_exec), 24);
}

#[test]
fn memcpy_options_layout() {
    assert_eq!(size_of::<rocsim_memcpy_options_t>(), 80);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, copy), 0);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, sync), 32);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, op), 36);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, stream), 40);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, host), 48);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, has_hip_kind), 52);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, hip_kind), 56);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, dst), 64);
    assert_eq!(offset_of!(rocsim_memcpy_options_t, src), 72);
}

#[test]
fn memset_options_layout() {
    assert_eq!(size_of::<rocsim_memset_options_t>(), 32);
    assert_eq!(offset_of!(rocsim_memset_options_t, bytes), 0);
    assert_eq!(offset_of!(rocsim_memset_options_t, duration_ns), 8);
    assert_eq!(offset_of!(rocsim_memset_options_t, sync), 16);
    assert_eq!(offset_of!(rocsim_memset_options_t, op), 20);
    assert_eq!(offset_of!(rocsim_memset_options_t, stream), 24);
}

#[test]
fn api_call_options_layout() {
    assert_eq!(size_of::<rocsim_api_call_options_t>(), 24);
    assert_eq!(offset_of!(rocsim_api_call_options_t, op), 0);
    assert_eq!(offset_of!(rocsim_api_call_options_t, has_stream), 4);
    assert_eq!(offset_of!(rocsim_api_call_options_t, stream), 8);
    assert_eq!(offset_of!(rocsim_api_call_options_t, rejected), 16);
}

/// The numbers the C side hard-codes (C++ tests compare statuses and kinds to literals).
#[test]
fn numbers() {
    assert_eq!(
        [
            ROCSIM_STATUS_SUCCESS,
            ROCSIM_STATUS_INVALID_DEVICE,
            ROCSIM_STATUS_UNKNOWN_STREAM,
            ROCSIM_STATUS_UNKNOWN_KERNEL,
            ROCSIM_STATUS_UNKNOWN_CODE_OBJECT,
            ROCSIM_STATUS_CALLED_FROM_INITIALIZE,
            ROCSIM_STATUS_INVALID_ARGUMENT,
            ROCSIM_STATUS_PANICKED,
        ],
        [0, 1, 2, 3, 4, 5, 6, 7]
    );
    assert_eq!(
        [
            ROCSIM_COPY_HOST_TO_HOST,
            ROCSIM_COPY_HOST_TO_DEVICE,
            ROCSIM_COPY_DEVICE_TO_HOST,
            ROCSIM_COPY_DEVICE_TO_DEVICE,
        ],
        [0, 1, 2, 3]
    );
    assert_eq!((ROCSIM_HOST_PINNED, ROCSIM_HOST_PAGEABLE), (0, 1));
    assert_eq!(ROCSIM_DEVICE_DEFAULT, -1);
}
