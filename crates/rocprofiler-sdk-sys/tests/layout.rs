//! Every struct of the SDK's x86-64 layout table (docs/sdk-facts.md#layouts): size, alignment
//! and every listed field offset.
use core::mem::{align_of, offset_of, size_of};
use rocprofiler_sdk_sys::*;

macro_rules! layout {
    ($ty:ty, $size:expr, $align:expr $(, $field:ident @ $off:expr)* $(,)?) => {{
        assert_eq!(size_of::<$ty>(), $size, "sizeof {}", stringify!($ty));
        assert_eq!(align_of::<$ty>(), $align, "alignof {}", stringify!($ty));
        $(assert_eq!(offset_of!($ty, $field), $off, "{}.{}", stringify!($ty), stringify!($field));)*
    }};
}

#[test]
fn handles_and_unions() {
    layout!(rocprofiler_context_id_t, 8, 8, handle @ 0);
    layout!(rocprofiler_buffer_id_t, 8, 8, handle @ 0);
    layout!(rocprofiler_agent_id_t, 8, 8, handle @ 0);
    layout!(rocprofiler_queue_id_t, 8, 8, handle @ 0);
    layout!(rocprofiler_stream_id_t, 8, 8, handle @ 0);
    layout!(rocprofiler_graph_exec_id_t, 8, 8, handle @ 0);
    layout!(rocprofiler_counter_id_t, 8, 8, handle @ 0);
    layout!(rocprofiler_callback_thread_t, 8, 8, handle @ 0);
    layout!(rocprofiler_user_data_t, 8, 8);
    layout!(rocprofiler_address_t, 8, 8);
    layout!(rocprofiler_dim3_t, 12, 4, x @ 0, y @ 4, z @ 8);
    layout!(rocprofiler_uuid_t, 16, 1);
}

#[test]
fn enums_are_four_bytes() {
    assert_eq!(size_of::<rocprofiler_status_t>(), 4);
    assert_eq!(size_of::<rocprofiler_callback_tracing_kind_t>(), 4);
    assert_eq!(size_of::<rocprofiler_buffer_tracing_kind_t>(), 4);
    assert_eq!(size_of::<rocprofiler_callback_phase_t>(), 4);
    assert_eq!(size_of::<rocprofiler_buffer_policy_t>(), 4);
    assert_eq!(size_of::<rocprofiler_tracing_operation_t>(), 4);
    assert_eq!(
        size_of::<rocprofiler_external_correlation_id_request_kind_t>(),
        4
    );
    assert_eq!(size_of::<rocprofiler_agent_type_t>(), 4);
    assert_eq!(size_of::<HSA_HEAPTYPE>(), 4);
}

#[test]
fn correlation_ids() {
    layout!(rocprofiler_correlation_id_t, 24, 8, internal @ 0, external @ 8, ancestor @ 16);
    layout!(rocprofiler_async_correlation_id_t, 16, 8, internal @ 0, external @ 8);
}

#[test]
fn callback_record_and_header() {
    layout!(rocprofiler_callback_tracing_record_t, 64, 8,
        context_id @ 0, thread_id @ 8, correlation_id @ 16, kind @ 40, operation @ 44,
        phase @ 48, payload @ 56);
    layout!(rocprofiler_record_header_t, 16, 8, id @ 0, payload @ 8);
    let header = rocprofiler_record_header_t {
        id: rocprofiler_record_header_id_t {
            hash: rocprofiler_record_header_compute_hash(1, 11),
        },
        payload: core::ptr::null_mut(),
    };
    assert_eq!((header.category(), header.kind()), (1, 11));
}

#[test]
fn kernel_dispatch() {
    layout!(rocprofiler_kernel_dispatch_info_t, 128, 8,
        size @ 0, agent_id @ 8, queue_id @ 16, kernel_id @ 24, dispatch_id @ 32,
        private_segment_size @ 40, group_segment_size @ 44, workgroup_size @ 48,
        grid_size @ 60, reserved_padding @ 72);
    assert_eq!(
        ROCPROFILER_KERNEL_DISPATCH_INFO_SIZE as usize,
        offset_of!(rocprofiler_kernel_dispatch_info_t, reserved_padding)
    );
    layout!(rocprofiler_buffer_tracing_kernel_dispatch_record_t, 184, 8,
        size @ 0, kind @ 8, operation @ 12, correlation_id @ 16, thread_id @ 32,
        start_timestamp @ 40, end_timestamp @ 48, dispatch_info @ 56);
    // Absolute offsets inside dispatch_info, as the table lists them.
    let base = offset_of!(
        rocprofiler_buffer_tracing_kernel_dispatch_record_t,
        dispatch_info
    );
    assert_eq!(
        base + offset_of!(rocprofiler_kernel_dispatch_info_t, agent_id),
        64
    );
    assert_eq!(
        base + offset_of!(rocprofiler_kernel_dispatch_info_t, queue_id),
        72
    );
    assert_eq!(
        base + offset_of!(rocprofiler_kernel_dispatch_info_t, kernel_id),
        80
    );
    assert_eq!(
        base + offset_of!(rocprofiler_kernel_dispatch_info_t, dispatch_id),
        88
    );
    assert_eq!(
        base + offset_of!(rocprofiler_kernel_dispatch_info_t, workgroup_size),
        104
    );
    assert_eq!(
        base + offset_of!(rocprofiler_kernel_dispatch_info_t, grid_size),
        116
    );
    layout!(rocprofiler_callback_tracing_kernel_dispatch_data_t, 152, 8,
        size @ 0, start_timestamp @ 8, end_timestamp @ 16, dispatch_info @ 24);
}

#[test]
fn memory_copy() {
    layout!(rocprofiler_buffer_tracing_memory_copy_record_t, 96, 8,
        size @ 0, kind @ 8, operation @ 12, correlation_id @ 16, thread_id @ 32,
        start_timestamp @ 40, end_timestamp @ 48, dst_agent_id @ 56, src_agent_id @ 64,
        bytes @ 72, dst_address @ 80, src_address @ 88);
    layout!(rocprofiler_callback_tracing_memory_copy_data_t, 64, 8,
        size @ 0, start_timestamp @ 8, end_timestamp @ 16, dst_agent_id @ 24,
        src_agent_id @ 32, bytes @ 40, dst_address @ 48, src_address @ 56);
}

#[test]
fn hip_api_and_other_buffer_records() {
    layout!(rocprofiler_buffer_tracing_hip_api_record_t, 64, 8,
        size @ 0, kind @ 8, operation @ 12, correlation_id @ 16, start_timestamp @ 40,
        end_timestamp @ 48, thread_id @ 56);
    layout!(rocprofiler_buffer_tracing_memory_allocation_record_t, 88, 8,
        correlation_id @ 16, thread_id @ 40, start_timestamp @ 48, end_timestamp @ 56,
        agent_id @ 64, address @ 72, allocation_size @ 80);
    // HIP_GRAPH (SDK 1.3.2 on; rocm-systems@3d3121e0 `hip/graph.cpp`).
    layout!(rocprofiler_buffer_tracing_hip_graph_record_t, 96, 8,
        size @ 0, kind @ 8, operation @ 12, correlation_id @ 16, thread_id @ 40,
        start_timestamp @ 48, end_timestamp @ 56, agent_id @ 64, queue_id @ 72,
        graph_exec_id @ 80, kernel_dispatch_count @ 88);
    layout!(rocprofiler_buffer_tracing_correlation_id_retirement_record_t, 32, 8,
        size @ 0, kind @ 8, timestamp @ 16, internal_correlation_id @ 24);
}

#[test]
fn callback_payloads() {
    layout!(rocprofiler_callback_tracing_hip_stream_data_t, 24, 8,
        size @ 0, stream_id @ 8, stream_value @ 16);
    layout!(rocprofiler_callback_tracing_hip_graph_data_t, 24, 8,
        size @ 0, graph_exec_id @ 8, graph_exec_value @ 16);
    layout!(rocprofiler_marker_api_args_t, 16, 8);
    layout!(rocprofiler_marker_api_retval_t, 8, 8);
    layout!(rocprofiler_marker_api_args_roctxNameHipStream_t, 16, 8, name @ 0, stream @ 8);
    layout!(rocprofiler_marker_api_args_roctxNameHipDevice_t, 16, 8, name @ 0, device_id @ 8);
    layout!(rocprofiler_callback_tracing_marker_api_data_t, 32, 8,
        size @ 0, args @ 8, retval @ 24);
    layout!(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, 88, 8,
        kernel_id @ 8, code_object_id @ 16, kernel_name @ 24, kernel_object @ 32,
        kernarg_segment_size @ 40, private_segment_size @ 52, accum_vgpr_count @ 64,
        kernel_code_entry_byte_offset @ 72, kernel_address @ 80);
}

#[test]
fn registration() {
    layout!(rocprofiler_tool_configure_result_t, 32, 8,
        size @ 0, initialize @ 8, finalize @ 16, tool_data @ 24);
    layout!(rocprofiler_client_id_t, 24, 8, size @ 0, name @ 8, handle @ 16);
}

#[test]
fn agents() {
    layout!(rocprofiler_agent_v0_t, 312, 8,
        size @ 0, id @ 8, type_ @ 16, cpu_cores_count @ 20, simd_count @ 24,
        mem_banks_count @ 28, caches_count @ 32, io_links_count @ 36, cpu_core_id_base @ 40,
        simd_id_base @ 44, max_waves_per_simd @ 48, lds_size_in_kb @ 52, gds_size_in_kb @ 56,
        num_gws @ 60, wave_front_size @ 64, num_xcc @ 68, cu_count @ 72, array_count @ 76,
        num_shader_banks @ 80, simd_arrays_per_engine @ 84, cu_per_simd_array @ 88,
        simd_per_cu @ 92, max_slots_scratch_cu @ 96, gfx_target_version @ 100,
        vendor_id @ 104, device_id @ 106, location_id @ 108, domain @ 112,
        drm_render_minor @ 116, num_sdma_engines @ 120, num_sdma_xgmi_engines @ 124,
        num_sdma_queues_per_engine @ 128, num_cp_queues @ 132, max_engine_clk_ccompute @ 136,
        max_engine_clk_fcompute @ 140, sdma_fw_version @ 144, fw_version @ 148,
        capability @ 152, cu_per_engine @ 156, max_waves_per_cu @ 160, family_id @ 164,
        workgroup_max_size @ 168, grid_max_size @ 172, local_mem_size @ 176, hive_id @ 184,
        gpu_id @ 192, workgroup_max_dim @ 200, grid_max_dim @ 212, mem_banks @ 224,
        caches @ 232, io_links @ 240, name @ 248, vendor_name @ 256, product_name @ 264,
        model_name @ 272, node_id @ 280, logical_node_id @ 284, logical_node_type_id @ 288,
        runtime_visibility @ 292, uuid @ 296);
    layout!(rocprofiler_agent_mem_bank_t, 24, 8,
        heap_type @ 0, flags @ 4, width @ 8, mem_clk_max @ 12, size_in_bytes @ 16);
    layout!(rocprofiler_agent_cache_t, 40, 8);
    layout!(rocprofiler_agent_io_link_t, 48, 4);
}

#[test]
fn enum_values_that_xla_compiles_in() {
    assert_eq!(ROCPROFILER_CALLBACK_TRACING_HIP_STREAM, 20);
    assert_eq!(ROCPROFILER_CALLBACK_TRACING_LAST, 22);
    assert_eq!(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, 10);
    assert_eq!(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, 11);
    assert_eq!(ROCPROFILER_BUFFER_TRACING_LAST, 33);
    assert_eq!(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY, 10);
    assert_eq!(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH, 11);
    assert_eq!(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, 16);
    assert_eq!(ROCPROFILER_STATUS_LAST, 41);
    // SDK 1.3.2 on (fwd.h @ radhaksri/rocm-systems 6a0bbe3a), graph.cpp @ rocm-systems 3d3121e0.
    assert_eq!(ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH, 22);
    assert_eq!(ROCPROFILER_CALLBACK_TRACING_HIP_EVENT, 26);
    assert_eq!(ROCPROFILER_CALLBACK_TRACING_LAST_WITH_HIP_GRAPH, 27);
    assert_eq!(ROCPROFILER_BUFFER_TRACING_HIP_GRAPH, 33);
    assert_eq!(ROCPROFILER_BUFFER_TRACING_HIP_EVENT, 38);
    assert_eq!(ROCPROFILER_BUFFER_TRACING_LAST_WITH_HIP_GRAPH, 39);
    assert_eq!(ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH, 3);
    assert_eq!(ROCPROFILER_HIP_GRAPH_OPERATION_LAST, 4);
    // HIP_RUNTIME_API is 5 in both kind enums; XLA names buffer records through the
    // callback-kind name table because of it.
    assert_eq!(
        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API
    );
}

/// The HIP API callback payload and the argument members the simulator fills, against
/// `callback_tracing.h` and `hip/api_args.h` (HIP runtime table step 12, x86-64).
#[test]
fn hip_api_payload() {
    layout!(rocprofiler_callback_tracing_hip_api_data_t, 120, 8,
        size @ 0, args @ 8, retval @ 96);
    layout!(rocprofiler_hip_api_args_t, 88, 8);
    layout!(rocprofiler_hip_api_retval_t, 24, 8);
    layout!(hipChannelFormatDesc, 20, 4, x @ 0, f @ 16);
    layout!(rocprofiler_hip_api_no_args, 1, 1);
    layout!(rocprofiler_hip_api_args_hipSetDevice_t, 4, 4, deviceId @ 0);
    layout!(rocprofiler_hip_api_args_hipStreamCreate_t, 8, 8, stream @ 0);
    layout!(rocprofiler_hip_api_args_hipStreamCreateWithFlags_t, 16, 8, stream @ 0, flags @ 8);
    layout!(rocprofiler_hip_api_args_hipStreamCreateWithPriority_t, 16, 8,
        stream @ 0, flags @ 8, priority @ 12);
    layout!(rocprofiler_hip_api_args_hipExtStreamCreateWithCUMask_t, 24, 8,
        stream @ 0, cuMaskSize @ 8, cuMask @ 16);
    layout!(rocprofiler_hip_api_args_stream_t, 8, 8, stream @ 0);
    layout!(rocprofiler_hip_api_args_hipLaunchKernel_t, 56, 8,
        function_address @ 0, numBlocks @ 8, dimBlocks @ 20, args @ 32, sharedMemBytes @ 40,
        stream @ 48);
    layout!(rocprofiler_hip_api_args_hipModuleLaunchKernel_t, 64, 8,
        func @ 0, gridDimX @ 8, gridDimY @ 12, gridDimZ @ 16, blockDimX @ 20, blockDimY @ 24,
        blockDimZ @ 28, sharedMemBytes @ 32, stream @ 40, kernelParams @ 48, extra @ 56);
    layout!(rocprofiler_hip_api_args_hipExtModuleLaunchKernel_t, 88, 8,
        func @ 0, globalWorkSizeX @ 8, localWorkSizeZ @ 28, sharedMemBytes @ 32, stream @ 40,
        kernelParams @ 48, extra @ 56, startEvent @ 64, stopEvent @ 72, flags @ 80);
    layout!(rocprofiler_hip_api_args_hipGraphLaunch_t, 16, 8, graphExec @ 0, stream @ 8);
    layout!(rocprofiler_hip_api_args_hipMemset_t, 24, 8, dst @ 0, value @ 8, sizeBytes @ 16);
    layout!(rocprofiler_hip_api_args_hipMemsetAsync_t, 32, 8,
        dst @ 0, value @ 8, sizeBytes @ 16, stream @ 24);
    layout!(rocprofiler_hip_api_args_hipMemcpy_t, 32, 8,
        dst @ 0, src @ 8, sizeBytes @ 16, kind @ 24);
    layout!(rocprofiler_hip_api_args_hipMemcpyAsync_t, 40, 8,
        dst @ 0, src @ 8, sizeBytes @ 16, kind @ 24, stream @ 32);
    layout!(rocprofiler_hip_api_args_hipMemcpyFixed_t, 24, 8,
        dst @ 0, src @ 8, sizeBytes @ 16);
    layout!(rocprofiler_hip_api_args_hipMemcpyFixedAsync_t, 32, 8,
        dst @ 0, src @ 8, sizeBytes @ 16, stream @ 24);
    layout!(rocprofiler_hip_api_args_hipMalloc_t, 16, 8, ptr @ 0, size @ 8);
    layout!(rocprofiler_hip_api_args_hipMallocFlags_t, 24, 8, ptr @ 0, size @ 8, flags @ 16);
    layout!(rocprofiler_hip_api_args_hipHostRegister_t, 24, 8,
        hostPtr @ 0, sizeBytes @ 8, flags @ 16);
    layout!(rocprofiler_hip_api_args_hipFree_t, 8, 8, ptr @ 0);
    layout!(rocprofiler_hip_api_args_hipMemcpyPeer_t, 48, 8,
        dst @ 0, dstDeviceId @ 8, src @ 16, srcDeviceId @ 24, sizeBytes @ 32, stream @ 40);
    layout!(rocprofiler_hip_api_args_hipEventRecord_t, 16, 8, event @ 0, stream @ 8);
    layout!(rocprofiler_hip_api_args_hipEventRecordWithFlags_t, 24, 8,
        event @ 0, stream @ 8, flags @ 16);
    layout!(rocprofiler_hip_api_args_hipStreamWaitEvent_t, 24, 8,
        stream @ 0, event @ 8, flags @ 16);
}

/// HIP_EVENT (SDK 1.4): the record `event.cpp` @ rocm-systems db83d540 builds in `barrier_complete`,
/// whose correlation id is a `rocprofiler_async_correlation_id_t` (16 bytes).
#[test]
fn hip_event_record() {
    layout!(rocprofiler_buffer_tracing_hip_event_record_t, 88, 8,
        size @ 0, kind @ 8, operation @ 12, correlation_id @ 16, thread_id @ 32,
        start_timestamp @ 40, end_timestamp @ 48, agent_id @ 56, queue_id @ 64,
        hip_event_handle @ 72, source_queue_id @ 80);
    assert_eq!(ROCPROFILER_BUFFER_TRACING_HIP_EVENT, 38);
    assert_eq!(
        (
            ROCPROFILER_HIP_EVENT_NONE,
            ROCPROFILER_HIP_EVENT_RECORD,
            ROCPROFILER_HIP_EVENT_WAIT
        ),
        (0, 1, 2)
    );
    assert_eq!(ROCPROFILER_HIP_EVENT_LAST, 3);
}
