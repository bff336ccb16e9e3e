/* Stand-in for the rocprofiler-sdk C headers (SDK >= 1.0.0, ROCm 7.1 layouts), for building
   the C++ drop-in without ROCm. Declares only the subset crates/rocprofiler-sdk-sys binds,
   with the same names, values and layouts (enums.h is generated from that crate; the layout
   asserts at the end mirror crates/rocprofiler-sdk-sys/tests/layout.rs). With a real ROCm
   install, the SDK's own headers are used instead. */
#ifndef ROCPROFILER_SDK_STAND_IN_ROCPROFILER_H_
#define ROCPROFILER_SDK_STAND_IN_ROCPROFILER_H_

#include <stddef.h>
#include <stdint.h>

#include "rocprofiler-sdk/enums.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t rocprofiler_thread_id_t;
typedef uint64_t rocprofiler_timestamp_t;
typedef int32_t rocprofiler_tracing_operation_t;
typedef uint64_t rocprofiler_kernel_id_t;
typedef uint64_t rocprofiler_dispatch_id_t;

typedef union rocprofiler_user_data_t {
  uint64_t value;
  void* ptr;
} rocprofiler_user_data_t;

typedef union rocprofiler_address_t {
  uint64_t handle;
  uint64_t value;
  const void* ptr;
} rocprofiler_address_t;

typedef struct rocprofiler_context_id_t { uint64_t handle; } rocprofiler_context_id_t;
typedef struct rocprofiler_buffer_id_t { uint64_t handle; } rocprofiler_buffer_id_t;
typedef struct rocprofiler_agent_id_t { uint64_t handle; } rocprofiler_agent_id_t;
typedef struct rocprofiler_queue_id_t { uint64_t handle; } rocprofiler_queue_id_t;
typedef struct rocprofiler_stream_id_t { uint64_t handle; } rocprofiler_stream_id_t;
typedef struct rocprofiler_callback_thread_t { uint64_t handle; } rocprofiler_callback_thread_t;

/* ROCm 7.1 value (it was UINT64_MAX up to 7.0). */
#define ROCPROFILER_CONTEXT_NONE ((rocprofiler_context_id_t){0})

typedef struct rocprofiler_dim3_t {
  uint32_t x;
  uint32_t y;
  uint32_t z;
} rocprofiler_dim3_t;

typedef struct rocprofiler_correlation_id_t {
  uint64_t internal;
  rocprofiler_user_data_t external;
  uint64_t ancestor;
} rocprofiler_correlation_id_t;

typedef struct rocprofiler_async_correlation_id_t {
  uint64_t internal;
  rocprofiler_user_data_t external;
} rocprofiler_async_correlation_id_t;

typedef struct rocprofiler_version_triplet_t {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} rocprofiler_version_triplet_t;

/* ---- records ---- */

typedef struct rocprofiler_callback_tracing_record_t {
  rocprofiler_context_id_t context_id;
  rocprofiler_thread_id_t thread_id;
  rocprofiler_correlation_id_t correlation_id;
  rocprofiler_callback_tracing_kind_t kind;
  rocprofiler_tracing_operation_t operation;
  rocprofiler_callback_phase_t phase;
  void* payload;
} rocprofiler_callback_tracing_record_t;

/* ROCTx call arguments (marker/api_args.h): every member starts at offset 0. Only the core
   API's members are spelled out; the union is 16 bytes as in the SDK. */
typedef struct rocprofiler_marker_api_args_message_t {
  const char* message;
} rocprofiler_marker_api_args_message_t;

typedef union rocprofiler_marker_api_args_t {
  rocprofiler_marker_api_args_message_t roctxMarkA;
  rocprofiler_marker_api_args_message_t roctxRangePushA;
  struct {
    char empty;
  } roctxRangePop;
  rocprofiler_marker_api_args_message_t roctxRangeStartA;
  struct {
    uint64_t id;
  } roctxRangeStop;
  uint8_t reserved[16];
} rocprofiler_marker_api_args_t;

typedef union rocprofiler_marker_api_retval_t {
  int32_t int32_t_retval;
  int64_t int64_t_retval;
  uint64_t roctx_range_id_t_retval;
} rocprofiler_marker_api_retval_t;

/* The payload of a MARKER_* callback record (32 bytes). */
typedef struct rocprofiler_callback_tracing_marker_api_data_t {
  uint64_t size;
  rocprofiler_marker_api_args_t args;
  rocprofiler_marker_api_retval_t retval;
} rocprofiler_callback_tracing_marker_api_data_t;

typedef struct rocprofiler_record_header_t {
  union {
    struct {
      uint32_t category;
      uint32_t kind;
    };
    uint64_t hash;
  };
  void* payload;
} rocprofiler_record_header_t;

typedef struct rocprofiler_kernel_dispatch_info_t {
  uint64_t size;
  rocprofiler_agent_id_t agent_id;
  rocprofiler_queue_id_t queue_id;
  rocprofiler_kernel_id_t kernel_id;
  rocprofiler_dispatch_id_t dispatch_id;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  rocprofiler_dim3_t workgroup_size;
  rocprofiler_dim3_t grid_size;
  uint8_t reserved_padding[56];
} rocprofiler_kernel_dispatch_info_t;

typedef struct rocprofiler_buffer_tracing_kernel_dispatch_record_t {
  uint64_t size;
  rocprofiler_buffer_tracing_kind_t kind;
  rocprofiler_kernel_dispatch_operation_t operation;
  rocprofiler_async_correlation_id_t correlation_id;
  rocprofiler_thread_id_t thread_id;
  rocprofiler_timestamp_t start_timestamp;
  rocprofiler_timestamp_t end_timestamp;
  rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_buffer_tracing_kernel_dispatch_record_t;

typedef struct rocprofiler_buffer_tracing_memory_copy_record_t {
  uint64_t size;
  rocprofiler_buffer_tracing_kind_t kind;
  rocprofiler_memory_copy_operation_t operation;
  rocprofiler_async_correlation_id_t correlation_id;
  rocprofiler_thread_id_t thread_id;
  rocprofiler_timestamp_t start_timestamp;
  rocprofiler_timestamp_t end_timestamp;
  rocprofiler_agent_id_t dst_agent_id;
  rocprofiler_agent_id_t src_agent_id;
  uint64_t bytes;
  rocprofiler_address_t dst_address;
  rocprofiler_address_t src_address;
} rocprofiler_buffer_tracing_memory_copy_record_t;

typedef struct rocprofiler_buffer_tracing_hip_api_record_t {
  uint64_t size;
  rocprofiler_buffer_tracing_kind_t kind;
  rocprofiler_tracing_operation_t operation;
  rocprofiler_correlation_id_t correlation_id;
  rocprofiler_timestamp_t start_timestamp;
  rocprofiler_timestamp_t end_timestamp;
  rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_hip_api_record_t;

typedef struct rocprofiler_callback_tracing_hip_stream_data_t {
  uint64_t size;
  rocprofiler_stream_id_t stream_id;
  rocprofiler_address_t stream_value;
} rocprofiler_callback_tracing_hip_stream_data_t;

typedef struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
  uint64_t size;
  uint64_t kernel_id;
  uint64_t code_object_id;
  const char* kernel_name;
  uint64_t kernel_object;
  uint32_t kernarg_segment_size;
  uint32_t kernarg_segment_alignment;
  uint32_t group_segment_size;
  uint32_t private_segment_size;
  uint32_t sgpr_count;
  uint32_t arch_vgpr_count;
  uint32_t accum_vgpr_count;
  int64_t kernel_code_entry_byte_offset;
  rocprofiler_address_t kernel_address;
} rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;

/* ---- agents (agent.h, ROCm 7.1 layout) ---- */

typedef struct rocprofiler_uuid_t {
  uint8_t bytes[16];
} rocprofiler_uuid_t;

typedef struct rocprofiler_agent_mem_bank_t {
  HSA_HEAPTYPE heap_type;
  uint32_t flags;
  uint32_t width;
  uint32_t mem_clk_max;
  uint64_t size_in_bytes;
} rocprofiler_agent_mem_bank_t;

typedef struct rocprofiler_agent_cache_t rocprofiler_agent_cache_t;
typedef struct rocprofiler_agent_io_link_t rocprofiler_agent_io_link_t;

typedef struct rocprofiler_agent_v0_t {
  uint64_t size;
  rocprofiler_agent_id_t id;
  rocprofiler_agent_type_t type;
  uint32_t cpu_cores_count;
  uint32_t simd_count;
  uint32_t mem_banks_count;
  uint32_t caches_count;
  uint32_t io_links_count;
  uint32_t cpu_core_id_base;
  uint32_t simd_id_base;
  uint32_t max_waves_per_simd;
  uint32_t lds_size_in_kb;
  uint32_t gds_size_in_kb;
  uint32_t num_gws;
  uint32_t wave_front_size;
  uint32_t num_xcc;
  uint32_t cu_count;
  uint32_t array_count;
  uint32_t num_shader_banks;
  uint32_t simd_arrays_per_engine;
  uint32_t cu_per_simd_array;
  uint32_t simd_per_cu;
  uint32_t max_slots_scratch_cu;
  uint32_t gfx_target_version;
  uint16_t vendor_id;
  uint16_t device_id;
  uint32_t location_id;
  uint32_t domain;
  uint32_t drm_render_minor;
  uint32_t num_sdma_engines;
  uint32_t num_sdma_xgmi_engines;
  uint32_t num_sdma_queues_per_engine;
  uint32_t num_cp_queues;
  uint32_t max_engine_clk_ccompute;
  uint32_t max_engine_clk_fcompute;
  uint32_t sdma_fw_version; /* HSA_ENGINE_VERSION, a 4-byte union in the SDK */
  uint32_t fw_version;      /* HSA_ENGINE_ID, a 4-byte union in the SDK */
  uint32_t capability;      /* HSA_CAPABILITY, a 4-byte union in the SDK */
  uint32_t cu_per_engine;
  uint32_t max_waves_per_cu;
  uint32_t family_id;
  uint32_t workgroup_max_size;
  uint32_t grid_max_size;
  uint64_t local_mem_size;
  uint64_t hive_id;
  uint64_t gpu_id;
  rocprofiler_dim3_t workgroup_max_dim;
  rocprofiler_dim3_t grid_max_dim;
  const rocprofiler_agent_mem_bank_t* mem_banks;
  const rocprofiler_agent_cache_t* caches;
  const rocprofiler_agent_io_link_t* io_links;
  const char* name;
  const char* vendor_name;
  const char* product_name;
  const char* model_name;
  uint32_t node_id;
  int32_t logical_node_id;
  int32_t logical_node_type_id;
  uint32_t runtime_visibility; /* a 32-bit bitfield struct in the SDK */
  rocprofiler_uuid_t uuid;
} rocprofiler_agent_v0_t;

typedef rocprofiler_agent_v0_t rocprofiler_agent_t;

/* ---- registration ---- */

typedef struct rocprofiler_client_id_t {
  size_t size;
  const char* name;
  uint32_t handle;
} rocprofiler_client_id_t;

typedef void (*rocprofiler_client_finalize_t)(rocprofiler_client_id_t);
typedef int (*rocprofiler_tool_initialize_t)(rocprofiler_client_finalize_t finalize_func,
                                             void* tool_data);
typedef void (*rocprofiler_tool_finalize_t)(void* tool_data);

typedef struct rocprofiler_tool_configure_result_t {
  size_t size;
  rocprofiler_tool_initialize_t initialize;
  rocprofiler_tool_finalize_t finalize;
  void* tool_data;
} rocprofiler_tool_configure_result_t;

typedef rocprofiler_tool_configure_result_t* (*rocprofiler_configure_func_t)(
    uint32_t version, const char* runtime_version, uint32_t priority,
    rocprofiler_client_id_t* client_id);

/* ---- callback types ---- */

typedef void (*rocprofiler_callback_tracing_cb_t)(rocprofiler_callback_tracing_record_t record,
                                                  rocprofiler_user_data_t* user_data,
                                                  void* callback_data);

typedef void (*rocprofiler_buffer_tracing_cb_t)(rocprofiler_context_id_t context,
                                                rocprofiler_buffer_id_t buffer_id,
                                                rocprofiler_record_header_t** headers,
                                                size_t num_headers, void* data,
                                                uint64_t drop_count);

typedef int (*rocprofiler_external_correlation_id_request_cb_t)(
    rocprofiler_thread_id_t thread_id, rocprofiler_context_id_t context_id,
    rocprofiler_external_correlation_id_request_kind_t kind,
    rocprofiler_tracing_operation_t operation, uint64_t internal_corr_id_value,
    rocprofiler_user_data_t* external_corr_id_value, void* data);

typedef rocprofiler_status_t (*rocprofiler_query_available_agents_cb_t)(
    rocprofiler_agent_version_t version, const void** agents, size_t num_agents,
    void* user_data);

/* ---- functions ---- */

rocprofiler_status_t rocprofiler_force_configure(rocprofiler_configure_func_t configure_func);
rocprofiler_status_t rocprofiler_is_initialized(int* status);
rocprofiler_status_t rocprofiler_is_finalized(int* status);

rocprofiler_status_t rocprofiler_create_context(rocprofiler_context_id_t* context_id);
rocprofiler_status_t rocprofiler_start_context(rocprofiler_context_id_t context_id);
rocprofiler_status_t rocprofiler_stop_context(rocprofiler_context_id_t context_id);
rocprofiler_status_t rocprofiler_context_is_active(rocprofiler_context_id_t context_id,
                                                   int* status);
rocprofiler_status_t rocprofiler_context_is_valid(rocprofiler_context_id_t context_id,
                                                  int* status);

rocprofiler_status_t rocprofiler_create_buffer(rocprofiler_context_id_t context, size_t size,
                                               size_t watermark,
                                               rocprofiler_buffer_policy_t policy,
                                               rocprofiler_buffer_tracing_cb_t callback,
                                               void* callback_data,
                                               rocprofiler_buffer_id_t* buffer_id);
rocprofiler_status_t rocprofiler_destroy_buffer(rocprofiler_buffer_id_t buffer_id);
rocprofiler_status_t rocprofiler_flush_buffer(rocprofiler_buffer_id_t buffer_id);

rocprofiler_status_t rocprofiler_configure_buffer_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_buffer_id_t buffer_id);
rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_operation_name(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_tracing_operation_t operation,
    const char** name, uint64_t* name_len);

rocprofiler_status_t rocprofiler_configure_callback_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_callback_tracing_cb_t callback, void* callback_args);
rocprofiler_status_t rocprofiler_query_callback_tracing_kind_operation_name(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t operation,
    const char** name, uint64_t* name_len);

rocprofiler_status_t rocprofiler_configure_external_correlation_id_request_service(
    rocprofiler_context_id_t context_id,
    const rocprofiler_external_correlation_id_request_kind_t* kinds, size_t kinds_count,
    rocprofiler_external_correlation_id_request_cb_t callback, void* callback_args);

rocprofiler_status_t rocprofiler_create_callback_thread(
    rocprofiler_callback_thread_t* cb_thread_id);
rocprofiler_status_t rocprofiler_assign_callback_thread(
    rocprofiler_buffer_id_t buffer_id, rocprofiler_callback_thread_t cb_thread_id);

rocprofiler_status_t rocprofiler_query_available_agents(
    rocprofiler_agent_version_t version, rocprofiler_query_available_agents_cb_t callback,
    size_t agent_size, void* user_data);

rocprofiler_status_t rocprofiler_get_timestamp(rocprofiler_timestamp_t* ts);
rocprofiler_status_t rocprofiler_get_thread_id(rocprofiler_thread_id_t* tid);
rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor,
                                             uint32_t* patch);
const char* rocprofiler_get_status_name(rocprofiler_status_t status);
const char* rocprofiler_get_status_string(rocprofiler_status_t status);

#ifdef __cplusplus
}  // extern "C"
#endif

/* Layouts of crates/rocprofiler-sdk-sys/tests/layout.rs (x86-64). */
#ifdef __cplusplus
#define ROCPROFILER_STAND_IN_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define ROCPROFILER_STAND_IN_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
ROCPROFILER_STAND_IN_ASSERT(sizeof(rocprofiler_agent_v0_t) == 312, "ROCm 7.1 agent layout");
ROCPROFILER_STAND_IN_ASSERT(sizeof(rocprofiler_kernel_dispatch_info_t) == 128,
                            "dispatch info layout");
ROCPROFILER_STAND_IN_ASSERT(sizeof(rocprofiler_status_t) == 4, "enum size");
#undef ROCPROFILER_STAND_IN_ASSERT

#endif  // ROCPROFILER_SDK_STAND_IN_ROCPROFILER_H_
