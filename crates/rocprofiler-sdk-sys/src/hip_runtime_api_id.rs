//! `rocprofiler_hip_runtime_api_id_t` (rocprofiler-sdk `hip/runtime_api_id.h`, ROCm 7.1).
//!
//! Ids 0..=441 are unconditional. Later ids are gated on HIP's `HIP_RUNTIME_API_TABLE_STEP_VERSION`;
//! ROCm 7.1.0 ships HIP step 15 (ROCm 7.0 ships step 12, i.e. ids 0..=476), so steps 1..=15 are included (step 13 adds none).

pub type rocprofiler_hip_runtime_api_id_t = i32;

pub const ROCPROFILER_HIP_RUNTIME_API_ID_NONE: rocprofiler_hip_runtime_api_id_t = -1;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipApiName: rocprofiler_hip_runtime_api_id_t = 0;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipArray3DCreate: rocprofiler_hip_runtime_api_id_t = 1;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipArray3DGetDescriptor: rocprofiler_hip_runtime_api_id_t =
    2;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipArrayCreate: rocprofiler_hip_runtime_api_id_t = 3;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipArrayDestroy: rocprofiler_hip_runtime_api_id_t = 4;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipArrayGetDescriptor: rocprofiler_hip_runtime_api_id_t =
    5;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipArrayGetInfo: rocprofiler_hip_runtime_api_id_t = 6;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipBindTexture: rocprofiler_hip_runtime_api_id_t = 7;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipBindTexture2D: rocprofiler_hip_runtime_api_id_t = 8;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipBindTextureToArray: rocprofiler_hip_runtime_api_id_t =
    9;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipBindTextureToMipmappedArray:
    rocprofiler_hip_runtime_api_id_t = 10;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipChooseDevice: rocprofiler_hip_runtime_api_id_t = 11;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipChooseDeviceR0000: rocprofiler_hip_runtime_api_id_t =
    12;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipConfigureCall: rocprofiler_hip_runtime_api_id_t = 13;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCreateSurfaceObject: rocprofiler_hip_runtime_api_id_t =
    14;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCreateTextureObject: rocprofiler_hip_runtime_api_id_t =
    15;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxCreate: rocprofiler_hip_runtime_api_id_t = 16;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxDestroy: rocprofiler_hip_runtime_api_id_t = 17;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxDisablePeerAccess: rocprofiler_hip_runtime_api_id_t =
    18;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxEnablePeerAccess: rocprofiler_hip_runtime_api_id_t =
    19;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxGetApiVersion: rocprofiler_hip_runtime_api_id_t = 20;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxGetCacheConfig: rocprofiler_hip_runtime_api_id_t =
    21;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxGetCurrent: rocprofiler_hip_runtime_api_id_t = 22;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxGetDevice: rocprofiler_hip_runtime_api_id_t = 23;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxGetFlags: rocprofiler_hip_runtime_api_id_t = 24;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxGetSharedMemConfig:
    rocprofiler_hip_runtime_api_id_t = 25;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxPopCurrent: rocprofiler_hip_runtime_api_id_t = 26;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxPushCurrent: rocprofiler_hip_runtime_api_id_t = 27;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxSetCacheConfig: rocprofiler_hip_runtime_api_id_t =
    28;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxSetCurrent: rocprofiler_hip_runtime_api_id_t = 29;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxSetSharedMemConfig:
    rocprofiler_hip_runtime_api_id_t = 30;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCtxSynchronize: rocprofiler_hip_runtime_api_id_t = 31;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDestroyExternalMemory:
    rocprofiler_hip_runtime_api_id_t = 32;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDestroyExternalSemaphore:
    rocprofiler_hip_runtime_api_id_t = 33;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDestroySurfaceObject: rocprofiler_hip_runtime_api_id_t =
    34;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDestroyTextureObject: rocprofiler_hip_runtime_api_id_t =
    35;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceCanAccessPeer: rocprofiler_hip_runtime_api_id_t =
    36;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceComputeCapability:
    rocprofiler_hip_runtime_api_id_t = 37;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceDisablePeerAccess:
    rocprofiler_hip_runtime_api_id_t = 38;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceEnablePeerAccess:
    rocprofiler_hip_runtime_api_id_t = 39;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGet: rocprofiler_hip_runtime_api_id_t = 40;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetAttribute: rocprofiler_hip_runtime_api_id_t =
    41;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetByPCIBusId: rocprofiler_hip_runtime_api_id_t =
    42;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetCacheConfig: rocprofiler_hip_runtime_api_id_t =
    43;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetDefaultMemPool:
    rocprofiler_hip_runtime_api_id_t = 44;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetGraphMemAttribute:
    rocprofiler_hip_runtime_api_id_t = 45;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetLimit: rocprofiler_hip_runtime_api_id_t = 46;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetMemPool: rocprofiler_hip_runtime_api_id_t = 47;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetName: rocprofiler_hip_runtime_api_id_t = 48;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetP2PAttribute:
    rocprofiler_hip_runtime_api_id_t = 49;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetPCIBusId: rocprofiler_hip_runtime_api_id_t =
    50;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetSharedMemConfig:
    rocprofiler_hip_runtime_api_id_t = 51;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetStreamPriorityRange:
    rocprofiler_hip_runtime_api_id_t = 52;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetUuid: rocprofiler_hip_runtime_api_id_t = 53;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGraphMemTrim: rocprofiler_hip_runtime_api_id_t =
    54;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDevicePrimaryCtxGetState:
    rocprofiler_hip_runtime_api_id_t = 55;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDevicePrimaryCtxRelease:
    rocprofiler_hip_runtime_api_id_t = 56;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDevicePrimaryCtxReset:
    rocprofiler_hip_runtime_api_id_t = 57;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDevicePrimaryCtxRetain:
    rocprofiler_hip_runtime_api_id_t = 58;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDevicePrimaryCtxSetFlags:
    rocprofiler_hip_runtime_api_id_t = 59;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceReset: rocprofiler_hip_runtime_api_id_t = 60;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSetCacheConfig: rocprofiler_hip_runtime_api_id_t =
    61;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSetGraphMemAttribute:
    rocprofiler_hip_runtime_api_id_t = 62;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSetLimit: rocprofiler_hip_runtime_api_id_t = 63;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSetMemPool: rocprofiler_hip_runtime_api_id_t = 64;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSetSharedMemConfig:
    rocprofiler_hip_runtime_api_id_t = 65;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize: rocprofiler_hip_runtime_api_id_t =
    66;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceTotalMem: rocprofiler_hip_runtime_api_id_t = 67;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDriverGetVersion: rocprofiler_hip_runtime_api_id_t = 68;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGetErrorName: rocprofiler_hip_runtime_api_id_t = 69;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGetErrorString: rocprofiler_hip_runtime_api_id_t =
    70;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGraphAddMemcpyNode:
    rocprofiler_hip_runtime_api_id_t = 71;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvMemcpy2DUnaligned: rocprofiler_hip_runtime_api_id_t =
    72;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvMemcpy3D: rocprofiler_hip_runtime_api_id_t = 73;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvMemcpy3DAsync: rocprofiler_hip_runtime_api_id_t = 74;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvPointerGetAttributes:
    rocprofiler_hip_runtime_api_id_t = 75;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreate: rocprofiler_hip_runtime_api_id_t = 76;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreateWithFlags: rocprofiler_hip_runtime_api_id_t =
    77;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventDestroy: rocprofiler_hip_runtime_api_id_t = 78;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventElapsedTime: rocprofiler_hip_runtime_api_id_t = 79;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventQuery: rocprofiler_hip_runtime_api_id_t = 80;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord: rocprofiler_hip_runtime_api_id_t = 81;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventSynchronize: rocprofiler_hip_runtime_api_id_t = 82;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtGetLinkTypeAndHopCount:
    rocprofiler_hip_runtime_api_id_t = 83;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtLaunchKernel: rocprofiler_hip_runtime_api_id_t = 84;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtLaunchMultiKernelMultiDevice:
    rocprofiler_hip_runtime_api_id_t = 85;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtMallocWithFlags: rocprofiler_hip_runtime_api_id_t =
    86;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtStreamCreateWithCUMask:
    rocprofiler_hip_runtime_api_id_t = 87;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtStreamGetCUMask: rocprofiler_hip_runtime_api_id_t =
    88;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExternalMemoryGetMappedBuffer:
    rocprofiler_hip_runtime_api_id_t = 89;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFree: rocprofiler_hip_runtime_api_id_t = 90;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFreeArray: rocprofiler_hip_runtime_api_id_t = 91;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFreeAsync: rocprofiler_hip_runtime_api_id_t = 92;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFreeHost: rocprofiler_hip_runtime_api_id_t = 93;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFreeMipmappedArray: rocprofiler_hip_runtime_api_id_t =
    94;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFuncGetAttribute: rocprofiler_hip_runtime_api_id_t = 95;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFuncGetAttributes: rocprofiler_hip_runtime_api_id_t =
    96;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFuncSetAttribute: rocprofiler_hip_runtime_api_id_t = 97;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFuncSetCacheConfig: rocprofiler_hip_runtime_api_id_t =
    98;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFuncSetSharedMemConfig:
    rocprofiler_hip_runtime_api_id_t = 99;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGLGetDevices: rocprofiler_hip_runtime_api_id_t = 100;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetChannelDesc: rocprofiler_hip_runtime_api_id_t = 101;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDevice: rocprofiler_hip_runtime_api_id_t = 102;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount: rocprofiler_hip_runtime_api_id_t = 103;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceFlags: rocprofiler_hip_runtime_api_id_t = 104;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDevicePropertiesR0600:
    rocprofiler_hip_runtime_api_id_t = 105;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDevicePropertiesR0000:
    rocprofiler_hip_runtime_api_id_t = 106;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetErrorName: rocprofiler_hip_runtime_api_id_t = 107;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetErrorString: rocprofiler_hip_runtime_api_id_t = 108;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetLastError: rocprofiler_hip_runtime_api_id_t = 109;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetMipmappedArrayLevel:
    rocprofiler_hip_runtime_api_id_t = 110;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetSymbolAddress: rocprofiler_hip_runtime_api_id_t =
    111;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetSymbolSize: rocprofiler_hip_runtime_api_id_t = 112;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetTextureAlignmentOffset:
    rocprofiler_hip_runtime_api_id_t = 113;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetTextureObjectResourceDesc:
    rocprofiler_hip_runtime_api_id_t = 114;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetTextureObjectResourceViewDesc:
    rocprofiler_hip_runtime_api_id_t = 115;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetTextureObjectTextureDesc:
    rocprofiler_hip_runtime_api_id_t = 116;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetTextureReference: rocprofiler_hip_runtime_api_id_t =
    117;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddChildGraphNode:
    rocprofiler_hip_runtime_api_id_t = 118;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddDependencies: rocprofiler_hip_runtime_api_id_t =
    119;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddEmptyNode: rocprofiler_hip_runtime_api_id_t =
    120;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddEventRecordNode:
    rocprofiler_hip_runtime_api_id_t = 121;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddEventWaitNode:
    rocprofiler_hip_runtime_api_id_t = 122;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddHostNode: rocprofiler_hip_runtime_api_id_t =
    123;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddKernelNode: rocprofiler_hip_runtime_api_id_t =
    124;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemAllocNode: rocprofiler_hip_runtime_api_id_t =
    125;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemFreeNode: rocprofiler_hip_runtime_api_id_t =
    126;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNode: rocprofiler_hip_runtime_api_id_t =
    127;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNode1D: rocprofiler_hip_runtime_api_id_t =
    128;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNodeFromSymbol:
    rocprofiler_hip_runtime_api_id_t = 129;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNodeToSymbol:
    rocprofiler_hip_runtime_api_id_t = 130;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemsetNode: rocprofiler_hip_runtime_api_id_t =
    131;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphChildGraphNodeGetGraph:
    rocprofiler_hip_runtime_api_id_t = 132;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphClone: rocprofiler_hip_runtime_api_id_t = 133;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphCreate: rocprofiler_hip_runtime_api_id_t = 134;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDebugDotPrint: rocprofiler_hip_runtime_api_id_t =
    135;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy: rocprofiler_hip_runtime_api_id_t = 136;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroyNode: rocprofiler_hip_runtime_api_id_t =
    137;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphEventRecordNodeGetEvent:
    rocprofiler_hip_runtime_api_id_t = 138;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphEventRecordNodeSetEvent:
    rocprofiler_hip_runtime_api_id_t = 139;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphEventWaitNodeGetEvent:
    rocprofiler_hip_runtime_api_id_t = 140;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphEventWaitNodeSetEvent:
    rocprofiler_hip_runtime_api_id_t = 141;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecChildGraphNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 142;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy: rocprofiler_hip_runtime_api_id_t =
    143;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecEventRecordNodeSetEvent:
    rocprofiler_hip_runtime_api_id_t = 144;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecEventWaitNodeSetEvent:
    rocprofiler_hip_runtime_api_id_t = 145;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecHostNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 146;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecKernelNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 147;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecMemcpyNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 148;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecMemcpyNodeSetParams1D:
    rocprofiler_hip_runtime_api_id_t = 149;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecMemcpyNodeSetParamsFromSymbol:
    rocprofiler_hip_runtime_api_id_t = 150;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecMemcpyNodeSetParamsToSymbol:
    rocprofiler_hip_runtime_api_id_t = 151;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecMemsetNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 152;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecUpdate: rocprofiler_hip_runtime_api_id_t = 153;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphGetEdges: rocprofiler_hip_runtime_api_id_t = 154;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphGetNodes: rocprofiler_hip_runtime_api_id_t = 155;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphGetRootNodes: rocprofiler_hip_runtime_api_id_t =
    156;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphHostNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 157;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphHostNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 158;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate: rocprofiler_hip_runtime_api_id_t =
    159;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags:
    rocprofiler_hip_runtime_api_id_t = 160;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphKernelNodeCopyAttributes:
    rocprofiler_hip_runtime_api_id_t = 161;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphKernelNodeGetAttribute:
    rocprofiler_hip_runtime_api_id_t = 162;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphKernelNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 163;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphKernelNodeSetAttribute:
    rocprofiler_hip_runtime_api_id_t = 164;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphKernelNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 165;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch: rocprofiler_hip_runtime_api_id_t = 166;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemAllocNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 167;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemFreeNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 168;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemcpyNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 169;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemcpyNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 170;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemcpyNodeSetParams1D:
    rocprofiler_hip_runtime_api_id_t = 171;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemcpyNodeSetParamsFromSymbol:
    rocprofiler_hip_runtime_api_id_t = 172;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemcpyNodeSetParamsToSymbol:
    rocprofiler_hip_runtime_api_id_t = 173;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemsetNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 174;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphMemsetNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 175;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphNodeFindInClone: rocprofiler_hip_runtime_api_id_t =
    176;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphNodeGetDependencies:
    rocprofiler_hip_runtime_api_id_t = 177;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphNodeGetDependentNodes:
    rocprofiler_hip_runtime_api_id_t = 178;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphNodeGetEnabled: rocprofiler_hip_runtime_api_id_t =
    179;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphNodeGetType: rocprofiler_hip_runtime_api_id_t =
    180;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphNodeSetEnabled: rocprofiler_hip_runtime_api_id_t =
    181;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphReleaseUserObject:
    rocprofiler_hip_runtime_api_id_t = 182;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphRemoveDependencies:
    rocprofiler_hip_runtime_api_id_t = 183;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphRetainUserObject:
    rocprofiler_hip_runtime_api_id_t = 184;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphUpload: rocprofiler_hip_runtime_api_id_t = 185;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphicsGLRegisterBuffer:
    rocprofiler_hip_runtime_api_id_t = 186;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphicsGLRegisterImage:
    rocprofiler_hip_runtime_api_id_t = 187;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphicsMapResources: rocprofiler_hip_runtime_api_id_t =
    188;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphicsResourceGetMappedPointer:
    rocprofiler_hip_runtime_api_id_t = 189;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphicsSubResourceGetMappedArray:
    rocprofiler_hip_runtime_api_id_t = 190;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphicsUnmapResources:
    rocprofiler_hip_runtime_api_id_t = 191;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphicsUnregisterResource:
    rocprofiler_hip_runtime_api_id_t = 192;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostAlloc: rocprofiler_hip_runtime_api_id_t = 193;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostFree: rocprofiler_hip_runtime_api_id_t = 194;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostGetDevicePointer: rocprofiler_hip_runtime_api_id_t =
    195;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostGetFlags: rocprofiler_hip_runtime_api_id_t = 196;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc: rocprofiler_hip_runtime_api_id_t = 197;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostRegister: rocprofiler_hip_runtime_api_id_t = 198;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostUnregister: rocprofiler_hip_runtime_api_id_t = 199;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipImportExternalMemory: rocprofiler_hip_runtime_api_id_t =
    200;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipImportExternalSemaphore:
    rocprofiler_hip_runtime_api_id_t = 201;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipInit: rocprofiler_hip_runtime_api_id_t = 202;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcCloseMemHandle: rocprofiler_hip_runtime_api_id_t =
    203;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcGetEventHandle: rocprofiler_hip_runtime_api_id_t =
    204;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcGetMemHandle: rocprofiler_hip_runtime_api_id_t = 205;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcOpenEventHandle: rocprofiler_hip_runtime_api_id_t =
    206;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcOpenMemHandle: rocprofiler_hip_runtime_api_id_t =
    207;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipKernelNameRef: rocprofiler_hip_runtime_api_id_t = 208;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipKernelNameRefByPtr: rocprofiler_hip_runtime_api_id_t =
    209;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchByPtr: rocprofiler_hip_runtime_api_id_t = 210;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchCooperativeKernel:
    rocprofiler_hip_runtime_api_id_t = 211;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchCooperativeKernelMultiDevice:
    rocprofiler_hip_runtime_api_id_t = 212;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchHostFunc: rocprofiler_hip_runtime_api_id_t = 213;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel: rocprofiler_hip_runtime_api_id_t = 214;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc: rocprofiler_hip_runtime_api_id_t = 215;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc3D: rocprofiler_hip_runtime_api_id_t = 216;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc3DArray: rocprofiler_hip_runtime_api_id_t = 217;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocArray: rocprofiler_hip_runtime_api_id_t = 218;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocAsync: rocprofiler_hip_runtime_api_id_t = 219;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocFromPoolAsync: rocprofiler_hip_runtime_api_id_t =
    220;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocHost: rocprofiler_hip_runtime_api_id_t = 221;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocManaged: rocprofiler_hip_runtime_api_id_t = 222;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocMipmappedArray: rocprofiler_hip_runtime_api_id_t =
    223;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocPitch: rocprofiler_hip_runtime_api_id_t = 224;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAddressFree: rocprofiler_hip_runtime_api_id_t = 225;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAddressReserve: rocprofiler_hip_runtime_api_id_t =
    226;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAdvise: rocprofiler_hip_runtime_api_id_t = 227;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAllocHost: rocprofiler_hip_runtime_api_id_t = 228;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAllocPitch: rocprofiler_hip_runtime_api_id_t = 229;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemCreate: rocprofiler_hip_runtime_api_id_t = 230;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemExportToShareableHandle:
    rocprofiler_hip_runtime_api_id_t = 231;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetAccess: rocprofiler_hip_runtime_api_id_t = 232;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetAddressRange: rocprofiler_hip_runtime_api_id_t =
    233;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetAllocationGranularity:
    rocprofiler_hip_runtime_api_id_t = 234;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetAllocationPropertiesFromHandle:
    rocprofiler_hip_runtime_api_id_t = 235;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetInfo: rocprofiler_hip_runtime_api_id_t = 236;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemImportFromShareableHandle:
    rocprofiler_hip_runtime_api_id_t = 237;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemMap: rocprofiler_hip_runtime_api_id_t = 238;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemMapArrayAsync: rocprofiler_hip_runtime_api_id_t =
    239;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolCreate: rocprofiler_hip_runtime_api_id_t = 240;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolDestroy: rocprofiler_hip_runtime_api_id_t = 241;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolExportPointer: rocprofiler_hip_runtime_api_id_t =
    242;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolExportToShareableHandle:
    rocprofiler_hip_runtime_api_id_t = 243;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolGetAccess: rocprofiler_hip_runtime_api_id_t =
    244;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolGetAttribute: rocprofiler_hip_runtime_api_id_t =
    245;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolImportFromShareableHandle:
    rocprofiler_hip_runtime_api_id_t = 246;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolImportPointer: rocprofiler_hip_runtime_api_id_t =
    247;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolSetAccess: rocprofiler_hip_runtime_api_id_t =
    248;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolSetAttribute: rocprofiler_hip_runtime_api_id_t =
    249;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPoolTrimTo: rocprofiler_hip_runtime_api_id_t = 250;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPrefetchAsync: rocprofiler_hip_runtime_api_id_t =
    251;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPtrGetInfo: rocprofiler_hip_runtime_api_id_t = 252;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemRangeGetAttribute: rocprofiler_hip_runtime_api_id_t =
    253;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemRangeGetAttributes:
    rocprofiler_hip_runtime_api_id_t = 254;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemRelease: rocprofiler_hip_runtime_api_id_t = 255;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemRetainAllocationHandle:
    rocprofiler_hip_runtime_api_id_t = 256;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemSetAccess: rocprofiler_hip_runtime_api_id_t = 257;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemUnmap: rocprofiler_hip_runtime_api_id_t = 258;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy: rocprofiler_hip_runtime_api_id_t = 259;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2D: rocprofiler_hip_runtime_api_id_t = 260;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DAsync: rocprofiler_hip_runtime_api_id_t = 261;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DFromArray: rocprofiler_hip_runtime_api_id_t =
    262;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DFromArrayAsync:
    rocprofiler_hip_runtime_api_id_t = 263;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DToArray: rocprofiler_hip_runtime_api_id_t = 264;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DToArrayAsync: rocprofiler_hip_runtime_api_id_t =
    265;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3D: rocprofiler_hip_runtime_api_id_t = 266;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3DAsync: rocprofiler_hip_runtime_api_id_t = 267;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync: rocprofiler_hip_runtime_api_id_t = 268;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAtoH: rocprofiler_hip_runtime_api_id_t = 269;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoD: rocprofiler_hip_runtime_api_id_t = 270;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoDAsync: rocprofiler_hip_runtime_api_id_t = 271;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH: rocprofiler_hip_runtime_api_id_t = 272;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync: rocprofiler_hip_runtime_api_id_t = 273;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromArray: rocprofiler_hip_runtime_api_id_t = 274;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromSymbol: rocprofiler_hip_runtime_api_id_t =
    275;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromSymbolAsync:
    rocprofiler_hip_runtime_api_id_t = 276;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoA: rocprofiler_hip_runtime_api_id_t = 277;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD: rocprofiler_hip_runtime_api_id_t = 278;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync: rocprofiler_hip_runtime_api_id_t = 279;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyParam2D: rocprofiler_hip_runtime_api_id_t = 280;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyParam2DAsync: rocprofiler_hip_runtime_api_id_t =
    281;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeer: rocprofiler_hip_runtime_api_id_t = 282;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeerAsync: rocprofiler_hip_runtime_api_id_t = 283;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToArray: rocprofiler_hip_runtime_api_id_t = 284;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToSymbol: rocprofiler_hip_runtime_api_id_t = 285;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToSymbolAsync: rocprofiler_hip_runtime_api_id_t =
    286;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyWithStream: rocprofiler_hip_runtime_api_id_t =
    287;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset: rocprofiler_hip_runtime_api_id_t = 288;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset2D: rocprofiler_hip_runtime_api_id_t = 289;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset2DAsync: rocprofiler_hip_runtime_api_id_t = 290;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset3D: rocprofiler_hip_runtime_api_id_t = 291;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset3DAsync: rocprofiler_hip_runtime_api_id_t = 292;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync: rocprofiler_hip_runtime_api_id_t = 293;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD16: rocprofiler_hip_runtime_api_id_t = 294;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD16Async: rocprofiler_hip_runtime_api_id_t = 295;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD32: rocprofiler_hip_runtime_api_id_t = 296;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD32Async: rocprofiler_hip_runtime_api_id_t = 297;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD8: rocprofiler_hip_runtime_api_id_t = 298;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD8Async: rocprofiler_hip_runtime_api_id_t = 299;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMipmappedArrayCreate: rocprofiler_hip_runtime_api_id_t =
    300;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMipmappedArrayDestroy:
    rocprofiler_hip_runtime_api_id_t = 301;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMipmappedArrayGetLevel:
    rocprofiler_hip_runtime_api_id_t = 302;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleGetFunction: rocprofiler_hip_runtime_api_id_t =
    303;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleGetGlobal: rocprofiler_hip_runtime_api_id_t = 304;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleGetTexRef: rocprofiler_hip_runtime_api_id_t = 305;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernel:
    rocprofiler_hip_runtime_api_id_t = 306;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernelMultiDevice:
    rocprofiler_hip_runtime_api_id_t = 307;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel: rocprofiler_hip_runtime_api_id_t =
    308;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoad: rocprofiler_hip_runtime_api_id_t = 309;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoadData: rocprofiler_hip_runtime_api_id_t = 310;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoadDataEx: rocprofiler_hip_runtime_api_id_t =
    311;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleOccupancyMaxActiveBlocksPerMultiprocessor:
    rocprofiler_hip_runtime_api_id_t = 312;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags: rocprofiler_hip_runtime_api_id_t = 313;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleOccupancyMaxPotentialBlockSize:
    rocprofiler_hip_runtime_api_id_t = 314;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleOccupancyMaxPotentialBlockSizeWithFlags:
    rocprofiler_hip_runtime_api_id_t = 315;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleUnload: rocprofiler_hip_runtime_api_id_t = 316;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipOccupancyMaxActiveBlocksPerMultiprocessor:
    rocprofiler_hip_runtime_api_id_t = 317;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags:
    rocprofiler_hip_runtime_api_id_t = 318;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipOccupancyMaxPotentialBlockSize:
    rocprofiler_hip_runtime_api_id_t = 319;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipPeekAtLastError: rocprofiler_hip_runtime_api_id_t = 320;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipPointerGetAttribute: rocprofiler_hip_runtime_api_id_t =
    321;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipPointerGetAttributes: rocprofiler_hip_runtime_api_id_t =
    322;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipPointerSetAttribute: rocprofiler_hip_runtime_api_id_t =
    323;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipProfilerStart: rocprofiler_hip_runtime_api_id_t = 324;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipProfilerStop: rocprofiler_hip_runtime_api_id_t = 325;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipRuntimeGetVersion: rocprofiler_hip_runtime_api_id_t =
    326;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice: rocprofiler_hip_runtime_api_id_t = 327;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDeviceFlags: rocprofiler_hip_runtime_api_id_t = 328;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipSetupArgument: rocprofiler_hip_runtime_api_id_t = 329;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipSignalExternalSemaphoresAsync:
    rocprofiler_hip_runtime_api_id_t = 330;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamAddCallback: rocprofiler_hip_runtime_api_id_t =
    331;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamAttachMemAsync: rocprofiler_hip_runtime_api_id_t =
    332;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture: rocprofiler_hip_runtime_api_id_t =
    333;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate: rocprofiler_hip_runtime_api_id_t = 334;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithFlags:
    rocprofiler_hip_runtime_api_id_t = 335;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithPriority:
    rocprofiler_hip_runtime_api_id_t = 336;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy: rocprofiler_hip_runtime_api_id_t = 337;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture: rocprofiler_hip_runtime_api_id_t =
    338;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetCaptureInfo: rocprofiler_hip_runtime_api_id_t =
    339;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetCaptureInfo_v2:
    rocprofiler_hip_runtime_api_id_t = 340;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetDevice: rocprofiler_hip_runtime_api_id_t = 341;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetFlags: rocprofiler_hip_runtime_api_id_t = 342;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetPriority: rocprofiler_hip_runtime_api_id_t =
    343;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamIsCapturing: rocprofiler_hip_runtime_api_id_t =
    344;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamQuery: rocprofiler_hip_runtime_api_id_t = 345;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize: rocprofiler_hip_runtime_api_id_t =
    346;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamUpdateCaptureDependencies:
    rocprofiler_hip_runtime_api_id_t = 347;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent: rocprofiler_hip_runtime_api_id_t = 348;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitValue32: rocprofiler_hip_runtime_api_id_t =
    349;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitValue64: rocprofiler_hip_runtime_api_id_t =
    350;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWriteValue32: rocprofiler_hip_runtime_api_id_t =
    351;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWriteValue64: rocprofiler_hip_runtime_api_id_t =
    352;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexObjectCreate: rocprofiler_hip_runtime_api_id_t = 353;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexObjectDestroy: rocprofiler_hip_runtime_api_id_t =
    354;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexObjectGetResourceDesc:
    rocprofiler_hip_runtime_api_id_t = 355;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexObjectGetResourceViewDesc:
    rocprofiler_hip_runtime_api_id_t = 356;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexObjectGetTextureDesc:
    rocprofiler_hip_runtime_api_id_t = 357;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetAddress: rocprofiler_hip_runtime_api_id_t =
    358;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetAddressMode: rocprofiler_hip_runtime_api_id_t =
    359;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetFilterMode: rocprofiler_hip_runtime_api_id_t =
    360;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetFlags: rocprofiler_hip_runtime_api_id_t = 361;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetFormat: rocprofiler_hip_runtime_api_id_t = 362;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetMaxAnisotropy:
    rocprofiler_hip_runtime_api_id_t = 363;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetMipMappedArray:
    rocprofiler_hip_runtime_api_id_t = 364;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetMipmapFilterMode:
    rocprofiler_hip_runtime_api_id_t = 365;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetMipmapLevelBias:
    rocprofiler_hip_runtime_api_id_t = 366;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetMipmapLevelClamp:
    rocprofiler_hip_runtime_api_id_t = 367;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetAddress: rocprofiler_hip_runtime_api_id_t =
    368;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetAddress2D: rocprofiler_hip_runtime_api_id_t =
    369;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetAddressMode: rocprofiler_hip_runtime_api_id_t =
    370;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetArray: rocprofiler_hip_runtime_api_id_t = 371;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetBorderColor: rocprofiler_hip_runtime_api_id_t =
    372;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetFilterMode: rocprofiler_hip_runtime_api_id_t =
    373;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetFlags: rocprofiler_hip_runtime_api_id_t = 374;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetFormat: rocprofiler_hip_runtime_api_id_t = 375;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetMaxAnisotropy:
    rocprofiler_hip_runtime_api_id_t = 376;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetMipmapFilterMode:
    rocprofiler_hip_runtime_api_id_t = 377;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetMipmapLevelBias:
    rocprofiler_hip_runtime_api_id_t = 378;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetMipmapLevelClamp:
    rocprofiler_hip_runtime_api_id_t = 379;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefSetMipmappedArray:
    rocprofiler_hip_runtime_api_id_t = 380;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipThreadExchangeStreamCaptureMode:
    rocprofiler_hip_runtime_api_id_t = 381;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipUnbindTexture: rocprofiler_hip_runtime_api_id_t = 382;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipUserObjectCreate: rocprofiler_hip_runtime_api_id_t =
    383;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipUserObjectRelease: rocprofiler_hip_runtime_api_id_t =
    384;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipUserObjectRetain: rocprofiler_hip_runtime_api_id_t =
    385;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipWaitExternalSemaphoresAsync:
    rocprofiler_hip_runtime_api_id_t = 386;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipCreateChannelDesc: rocprofiler_hip_runtime_api_id_t =
    387;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel:
    rocprofiler_hip_runtime_api_id_t = 388;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHccModuleLaunchKernel:
    rocprofiler_hip_runtime_api_id_t = 389;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy_spt: rocprofiler_hip_runtime_api_id_t = 390;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToSymbol_spt: rocprofiler_hip_runtime_api_id_t =
    391;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromSymbol_spt: rocprofiler_hip_runtime_api_id_t =
    392;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2D_spt: rocprofiler_hip_runtime_api_id_t = 393;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DFromArray_spt:
    rocprofiler_hip_runtime_api_id_t = 394;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3D_spt: rocprofiler_hip_runtime_api_id_t = 395;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset_spt: rocprofiler_hip_runtime_api_id_t = 396;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync_spt: rocprofiler_hip_runtime_api_id_t = 397;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset2D_spt: rocprofiler_hip_runtime_api_id_t = 398;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset2DAsync_spt: rocprofiler_hip_runtime_api_id_t =
    399;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset3DAsync_spt: rocprofiler_hip_runtime_api_id_t =
    400;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset3D_spt: rocprofiler_hip_runtime_api_id_t = 401;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync_spt: rocprofiler_hip_runtime_api_id_t = 402;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3DAsync_spt: rocprofiler_hip_runtime_api_id_t =
    403;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DAsync_spt: rocprofiler_hip_runtime_api_id_t =
    404;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromSymbolAsync_spt:
    rocprofiler_hip_runtime_api_id_t = 405;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToSymbolAsync_spt:
    rocprofiler_hip_runtime_api_id_t = 406;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromArray_spt: rocprofiler_hip_runtime_api_id_t =
    407;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DToArray_spt: rocprofiler_hip_runtime_api_id_t =
    408;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DFromArrayAsync_spt:
    rocprofiler_hip_runtime_api_id_t = 409;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DToArrayAsync_spt:
    rocprofiler_hip_runtime_api_id_t = 410;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamQuery_spt: rocprofiler_hip_runtime_api_id_t = 411;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize_spt:
    rocprofiler_hip_runtime_api_id_t = 412;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetPriority_spt:
    rocprofiler_hip_runtime_api_id_t = 413;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent_spt: rocprofiler_hip_runtime_api_id_t =
    414;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetFlags_spt: rocprofiler_hip_runtime_api_id_t =
    415;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamAddCallback_spt:
    rocprofiler_hip_runtime_api_id_t = 416;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord_spt: rocprofiler_hip_runtime_api_id_t = 417;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchCooperativeKernel_spt:
    rocprofiler_hip_runtime_api_id_t = 418;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel_spt: rocprofiler_hip_runtime_api_id_t =
    419;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch_spt: rocprofiler_hip_runtime_api_id_t = 420;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture_spt:
    rocprofiler_hip_runtime_api_id_t = 421;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture_spt: rocprofiler_hip_runtime_api_id_t =
    422;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamIsCapturing_spt:
    rocprofiler_hip_runtime_api_id_t = 423;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetCaptureInfo_spt:
    rocprofiler_hip_runtime_api_id_t = 424;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetCaptureInfo_v2_spt:
    rocprofiler_hip_runtime_api_id_t = 425;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchHostFunc_spt: rocprofiler_hip_runtime_api_id_t =
    426;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetStreamDeviceId: rocprofiler_hip_runtime_api_id_t =
    427;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGraphAddMemsetNode:
    rocprofiler_hip_runtime_api_id_t = 428;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddExternalSemaphoresWaitNode:
    rocprofiler_hip_runtime_api_id_t = 429;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddExternalSemaphoresSignalNode:
    rocprofiler_hip_runtime_api_id_t = 430;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExternalSemaphoresSignalNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 431;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExternalSemaphoresWaitNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 432;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExternalSemaphoresSignalNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 433;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExternalSemaphoresWaitNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 434;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecExternalSemaphoresSignalNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 435;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecExternalSemaphoresWaitNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 436;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddNode: rocprofiler_hip_runtime_api_id_t = 437;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithParams:
    rocprofiler_hip_runtime_api_id_t = 438;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtGetLastError: rocprofiler_hip_runtime_api_id_t = 439;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetBorderColor: rocprofiler_hip_runtime_api_id_t =
    440;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetArray: rocprofiler_hip_runtime_api_id_t = 441;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 1
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetProcAddress: rocprofiler_hip_runtime_api_id_t = 442;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 2
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCaptureToGraph:
    rocprofiler_hip_runtime_api_id_t = 443;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 3
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetFuncBySymbol: rocprofiler_hip_runtime_api_id_t = 444;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipSetValidDevices: rocprofiler_hip_runtime_api_id_t = 445;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAtoD: rocprofiler_hip_runtime_api_id_t = 446;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoA: rocprofiler_hip_runtime_api_id_t = 447;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAtoA: rocprofiler_hip_runtime_api_id_t = 448;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAtoHAsync: rocprofiler_hip_runtime_api_id_t = 449;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoAAsync: rocprofiler_hip_runtime_api_id_t = 450;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DArrayToArray: rocprofiler_hip_runtime_api_id_t =
    451;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 4
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGraphAddMemFreeNode:
    rocprofiler_hip_runtime_api_id_t = 452;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGraphExecMemcpyNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 453;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGraphExecMemsetNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 454;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecGetFlags: rocprofiler_hip_runtime_api_id_t =
    455;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphNodeSetParams: rocprofiler_hip_runtime_api_id_t =
    456;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 457;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExternalMemoryGetMappedMipmappedArray:
    rocprofiler_hip_runtime_api_id_t = 458;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGraphMemcpyNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 459;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvGraphMemcpyNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 460;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 5
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtHostAlloc: rocprofiler_hip_runtime_api_id_t = 461;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 6
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetTexture1DLinearMaxWidth:
    rocprofiler_hip_runtime_api_id_t = 462;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 7
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBatchMemOp: rocprofiler_hip_runtime_api_id_t =
    463;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 8
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddBatchMemOpNode:
    rocprofiler_hip_runtime_api_id_t = 464;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphBatchMemOpNodeGetParams:
    rocprofiler_hip_runtime_api_id_t = 465;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphBatchMemOpNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 466;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecBatchMemOpNodeSetParams:
    rocprofiler_hip_runtime_api_id_t = 467;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 9
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLinkAddData: rocprofiler_hip_runtime_api_id_t = 468;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLinkAddFile: rocprofiler_hip_runtime_api_id_t = 469;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLinkComplete: rocprofiler_hip_runtime_api_id_t = 470;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLinkCreate: rocprofiler_hip_runtime_api_id_t = 471;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLinkDestroy: rocprofiler_hip_runtime_api_id_t = 472;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 10
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecordWithFlags: rocprofiler_hip_runtime_api_id_t =
    473;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 11
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernelExC: rocprofiler_hip_runtime_api_id_t = 474;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvLaunchKernelEx: rocprofiler_hip_runtime_api_id_t =
    475;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 12
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetHandleForAddressRange:
    rocprofiler_hip_runtime_api_id_t = 476;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 14
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleGetFunctionCount:
    rocprofiler_hip_runtime_api_id_t = 477;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD2D8: rocprofiler_hip_runtime_api_id_t = 478;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD2D8Async: rocprofiler_hip_runtime_api_id_t = 479;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD2D16: rocprofiler_hip_runtime_api_id_t = 480;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD2D16Async: rocprofiler_hip_runtime_api_id_t =
    481;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD2D32: rocprofiler_hip_runtime_api_id_t = 482;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD2D32Async: rocprofiler_hip_runtime_api_id_t =
    483;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetAttribute: rocprofiler_hip_runtime_api_id_t =
    484;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSetAttribute: rocprofiler_hip_runtime_api_id_t =
    485;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoadFatBinary: rocprofiler_hip_runtime_api_id_t =
    486;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyBatchAsync: rocprofiler_hip_runtime_api_id_t =
    487;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3DBatchAsync: rocprofiler_hip_runtime_api_id_t =
    488;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3DPeer: rocprofiler_hip_runtime_api_id_t = 489;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3DPeerAsync: rocprofiler_hip_runtime_api_id_t =
    490;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDriverEntryPoint: rocprofiler_hip_runtime_api_id_t =
    491;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDriverEntryPoint_spt:
    rocprofiler_hip_runtime_api_id_t = 492;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemPrefetchAsync_v2: rocprofiler_hip_runtime_api_id_t =
    493;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAdvise_v2: rocprofiler_hip_runtime_api_id_t = 494;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetId: rocprofiler_hip_runtime_api_id_t = 495;
// HIP_RUNTIME_API_TABLE_STEP_VERSION >= 15
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLibraryLoadData: rocprofiler_hip_runtime_api_id_t = 496;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLibraryLoadFromFile: rocprofiler_hip_runtime_api_id_t =
    497;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLibraryUnload: rocprofiler_hip_runtime_api_id_t = 498;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLibraryGetKernel: rocprofiler_hip_runtime_api_id_t =
    499;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLibraryGetKernelCount:
    rocprofiler_hip_runtime_api_id_t = 500;
/// One past the last id for ROCm 7.1 (HIP runtime API table step 15).
pub const ROCPROFILER_HIP_RUNTIME_API_ID_LAST: rocprofiler_hip_runtime_api_id_t = 501;
/// `LAST` as it is for ROCm 7.0 (HIP runtime API table step 12).
pub const ROCPROFILER_HIP_RUNTIME_API_ID_LAST_ROCM_7_0: rocprofiler_hip_runtime_api_id_t = 477;

/// Operation names indexed by id (0..LAST): the plain HIP function names, as the SDK's names API reports them.
pub const HIP_RUNTIME_API_NAMES: [&str; 501] = [
    "hipApiName",
    "hipArray3DCreate",
    "hipArray3DGetDescriptor",
    "hipArrayCreate",
    "hipArrayDestroy",
    "hipArrayGetDescriptor",
    "hipArrayGetInfo",
    "hipBindTexture",
    "hipBindTexture2D",
    "hipBindTextureToArray",
    "hipBindTextureToMipmappedArray",
    "hipChooseDevice",
    "hipChooseDeviceR0000",
    "hipConfigureCall",
    "hipCreateSurfaceObject",
    "hipCreateTextureObject",
    "hipCtxCreate",
    "hipCtxDestroy",
    "hipCtxDisablePeerAccess",
    "hipCtxEnablePeerAccess",
    "hipCtxGetApiVersion",
    "hipCtxGetCacheConfig",
    "hipCtxGetCurrent",
    "hipCtxGetDevice",
    "hipCtxGetFlags",
    "hipCtxGetSharedMemConfig",
    "hipCtxPopCurrent",
    "hipCtxPushCurrent",
    "hipCtxSetCacheConfig",
    "hipCtxSetCurrent",
    "hipCtxSetSharedMemConfig",
    "hipCtxSynchronize",
    "hipDestroyExternalMemory",
    "hipDestroyExternalSemaphore",
    "hipDestroySurfaceObject",
    "hipDestroyTextureObject",
    "hipDeviceCanAccessPeer",
    "hipDeviceComputeCapability",
    "hipDeviceDisablePeerAccess",
    "hipDeviceEnablePeerAccess",
    "hipDeviceGet",
    "hipDeviceGetAttribute",
    "hipDeviceGetByPCIBusId",
    "hipDeviceGetCacheConfig",
    "hipDeviceGetDefaultMemPool",
    "hipDeviceGetGraphMemAttribute",
    "hipDeviceGetLimit",
    "hipDeviceGetMemPool",
    "hipDeviceGetName",
    "hipDeviceGetP2PAttribute",
    "hipDeviceGetPCIBusId",
    "hipDeviceGetSharedMemConfig",
    "hipDeviceGetStreamPriorityRange",
    "hipDeviceGetUuid",
    "hipDeviceGraphMemTrim",
    "hipDevicePrimaryCtxGetState",
    "hipDevicePrimaryCtxRelease",
    "hipDevicePrimaryCtxReset",
    "hipDevicePrimaryCtxRetain",
    "hipDevicePrimaryCtxSetFlags",
    "hipDeviceReset",
    "hipDeviceSetCacheConfig",
    "hipDeviceSetGraphMemAttribute",
    "hipDeviceSetLimit",
    "hipDeviceSetMemPool",
    "hipDeviceSetSharedMemConfig",
    "hipDeviceSynchronize",
    "hipDeviceTotalMem",
    "hipDriverGetVersion",
    "hipDrvGetErrorName",
    "hipDrvGetErrorString",
    "hipDrvGraphAddMemcpyNode",
    "hipDrvMemcpy2DUnaligned",
    "hipDrvMemcpy3D",
    "hipDrvMemcpy3DAsync",
    "hipDrvPointerGetAttributes",
    "hipEventCreate",
    "hipEventCreateWithFlags",
    "hipEventDestroy",
    "hipEventElapsedTime",
    "hipEventQuery",
    "hipEventRecord",
    "hipEventSynchronize",
    "hipExtGetLinkTypeAndHopCount",
    "hipExtLaunchKernel",
    "hipExtLaunchMultiKernelMultiDevice",
    "hipExtMallocWithFlags",
    "hipExtStreamCreateWithCUMask",
    "hipExtStreamGetCUMask",
    "hipExternalMemoryGetMappedBuffer",
    "hipFree",
    "hipFreeArray",
    "hipFreeAsync",
    "hipFreeHost",
    "hipFreeMipmappedArray",
    "hipFuncGetAttribute",
    "hipFuncGetAttributes",
    "hipFuncSetAttribute",
    "hipFuncSetCacheConfig",
    "hipFuncSetSharedMemConfig",
    "hipGLGetDevices",
    "hipGetChannelDesc",
    "hipGetDevice",
    "hipGetDeviceCount",
    "hipGetDeviceFlags",
    "hipGetDevicePropertiesR0600",
    "hipGetDevicePropertiesR0000",
    "hipGetErrorName",
    "hipGetErrorString",
    "hipGetLastError",
    "hipGetMipmappedArrayLevel",
    "hipGetSymbolAddress",
    "hipGetSymbolSize",
    "hipGetTextureAlignmentOffset",
    "hipGetTextureObjectResourceDesc",
    "hipGetTextureObjectResourceViewDesc",
    "hipGetTextureObjectTextureDesc",
    "hipGetTextureReference",
    "hipGraphAddChildGraphNode",
    "hipGraphAddDependencies",
    "hipGraphAddEmptyNode",
    "hipGraphAddEventRecordNode",
    "hipGraphAddEventWaitNode",
    "hipGraphAddHostNode",
    "hipGraphAddKernelNode",
    "hipGraphAddMemAllocNode",
    "hipGraphAddMemFreeNode",
    "hipGraphAddMemcpyNode",
    "hipGraphAddMemcpyNode1D",
    "hipGraphAddMemcpyNodeFromSymbol",
    "hipGraphAddMemcpyNodeToSymbol",
    "hipGraphAddMemsetNode",
    "hipGraphChildGraphNodeGetGraph",
    "hipGraphClone",
    "hipGraphCreate",
    "hipGraphDebugDotPrint",
    "hipGraphDestroy",
    "hipGraphDestroyNode",
    "hipGraphEventRecordNodeGetEvent",
    "hipGraphEventRecordNodeSetEvent",
    "hipGraphEventWaitNodeGetEvent",
    "hipGraphEventWaitNodeSetEvent",
    "hipGraphExecChildGraphNodeSetParams",
    "hipGraphExecDestroy",
    "hipGraphExecEventRecordNodeSetEvent",
    "hipGraphExecEventWaitNodeSetEvent",
    "hipGraphExecHostNodeSetParams",
    "hipGraphExecKernelNodeSetParams",
    "hipGraphExecMemcpyNodeSetParams",
    "hipGraphExecMemcpyNodeSetParams1D",
    "hipGraphExecMemcpyNodeSetParamsFromSymbol",
    "hipGraphExecMemcpyNodeSetParamsToSymbol",
    "hipGraphExecMemsetNodeSetParams",
    "hipGraphExecUpdate",
    "hipGraphGetEdges",
    "hipGraphGetNodes",
    "hipGraphGetRootNodes",
    "hipGraphHostNodeGetParams",
    "hipGraphHostNodeSetParams",
    "hipGraphInstantiate",
    "hipGraphInstantiateWithFlags",
    "hipGraphKernelNodeCopyAttributes",
    "hipGraphKernelNodeGetAttribute",
    "hipGraphKernelNodeGetParams",
    "hipGraphKernelNodeSetAttribute",
    "hipGraphKernelNodeSetParams",
    "hipGraphLaunch",
    "hipGraphMemAllocNodeGetParams",
    "hipGraphMemFreeNodeGetParams",
    "hipGraphMemcpyNodeGetParams",
    "hipGraphMemcpyNodeSetParams",
    "hipGraphMemcpyNodeSetParams1D",
    "hipGraphMemcpyNodeSetParamsFromSymbol",
    "hipGraphMemcpyNodeSetParamsToSymbol",
    "hipGraphMemsetNodeGetParams",
    "hipGraphMemsetNodeSetParams",
    "hipGraphNodeFindInClone",
    "hipGraphNodeGetDependencies",
    "hipGraphNodeGetDependentNodes",
    "hipGraphNodeGetEnabled",
    "hipGraphNodeGetType",
    "hipGraphNodeSetEnabled",
    "hipGraphReleaseUserObject",
    "hipGraphRemoveDependencies",
    "hipGraphRetainUserObject",
    "hipGraphUpload",
    "hipGraphicsGLRegisterBuffer",
    "hipGraphicsGLRegisterImage",
    "hipGraphicsMapResources",
    "hipGraphicsResourceGetMappedPointer",
    "hipGraphicsSubResourceGetMappedArray",
    "hipGraphicsUnmapResources",
    "hipGraphicsUnregisterResource",
    "hipHostAlloc",
    "hipHostFree",
    "hipHostGetDevicePointer",
    "hipHostGetFlags",
    "hipHostMalloc",
    "hipHostRegister",
    "hipHostUnregister",
    "hipImportExternalMemory",
    "hipImportExternalSemaphore",
    "hipInit",
    "hipIpcCloseMemHandle",
    "hipIpcGetEventHandle",
    "hipIpcGetMemHandle",
    "hipIpcOpenEventHandle",
    "hipIpcOpenMemHandle",
    "hipKernelNameRef",
    "hipKernelNameRefByPtr",
    "hipLaunchByPtr",
    "hipLaunchCooperativeKernel",
    "hipLaunchCooperativeKernelMultiDevice",
    "hipLaunchHostFunc",
    "hipLaunchKernel",
    "hipMalloc",
    "hipMalloc3D",
    "hipMalloc3DArray",
    "hipMallocArray",
    "hipMallocAsync",
    "hipMallocFromPoolAsync",
    "hipMallocHost",
    "hipMallocManaged",
    "hipMallocMipmappedArray",
    "hipMallocPitch",
    "hipMemAddressFree",
    "hipMemAddressReserve",
    "hipMemAdvise",
    "hipMemAllocHost",
    "hipMemAllocPitch",
    "hipMemCreate",
    "hipMemExportToShareableHandle",
    "hipMemGetAccess",
    "hipMemGetAddressRange",
    "hipMemGetAllocationGranularity",
    "hipMemGetAllocationPropertiesFromHandle",
    "hipMemGetInfo",
    "hipMemImportFromShareableHandle",
    "hipMemMap",
    "hipMemMapArrayAsync",
    "hipMemPoolCreate",
    "hipMemPoolDestroy",
    "hipMemPoolExportPointer",
    "hipMemPoolExportToShareableHandle",
    "hipMemPoolGetAccess",
    "hipMemPoolGetAttribute",
    "hipMemPoolImportFromShareableHandle",
    "hipMemPoolImportPointer",
    "hipMemPoolSetAccess",
    "hipMemPoolSetAttribute",
    "hipMemPoolTrimTo",
    "hipMemPrefetchAsync",
    "hipMemPtrGetInfo",
    "hipMemRangeGetAttribute",
    "hipMemRangeGetAttributes",
    "hipMemRelease",
    "hipMemRetainAllocationHandle",
    "hipMemSetAccess",
    "hipMemUnmap",
    "hipMemcpy",
    "hipMemcpy2D",
    "hipMemcpy2DAsync",
    "hipMemcpy2DFromArray",
    "hipMemcpy2DFromArrayAsync",
    "hipMemcpy2DToArray",
    "hipMemcpy2DToArrayAsync",
    "hipMemcpy3D",
    "hipMemcpy3DAsync",
    "hipMemcpyAsync",
    "hipMemcpyAtoH",
    "hipMemcpyDtoD",
    "hipMemcpyDtoDAsync",
    "hipMemcpyDtoH",
    "hipMemcpyDtoHAsync",
    "hipMemcpyFromArray",
    "hipMemcpyFromSymbol",
    "hipMemcpyFromSymbolAsync",
    "hipMemcpyHtoA",
    "hipMemcpyHtoD",
    "hipMemcpyHtoDAsync",
    "hipMemcpyParam2D",
    "hipMemcpyParam2DAsync",
    "hipMemcpyPeer",
    "hipMemcpyPeerAsync",
    "hipMemcpyToArray",
    "hipMemcpyToSymbol",
    "hipMemcpyToSymbolAsync",
    "hipMemcpyWithStream",
    "hipMemset",
    "hipMemset2D",
    "hipMemset2DAsync",
    "hipMemset3D",
    "hipMemset3DAsync",
    "hipMemsetAsync",
    "hipMemsetD16",
    "hipMemsetD16Async",
    "hipMemsetD32",
    "hipMemsetD32Async",
    "hipMemsetD8",
    "hipMemsetD8Async",
    "hipMipmappedArrayCreate",
    "hipMipmappedArrayDestroy",
    "hipMipmappedArrayGetLevel",
    "hipModuleGetFunction",
    "hipModuleGetGlobal",
    "hipModuleGetTexRef",
    "hipModuleLaunchCooperativeKernel",
    "hipModuleLaunchCooperativeKernelMultiDevice",
    "hipModuleLaunchKernel",
    "hipModuleLoad",
    "hipModuleLoadData",
    "hipModuleLoadDataEx",
    "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
    "hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "hipModuleOccupancyMaxPotentialBlockSize",
    "hipModuleOccupancyMaxPotentialBlockSizeWithFlags",
    "hipModuleUnload",
    "hipOccupancyMaxActiveBlocksPerMultiprocessor",
    "hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "hipOccupancyMaxPotentialBlockSize",
    "hipPeekAtLastError",
    "hipPointerGetAttribute",
    "hipPointerGetAttributes",
    "hipPointerSetAttribute",
    "hipProfilerStart",
    "hipProfilerStop",
    "hipRuntimeGetVersion",
    "hipSetDevice",
    "hipSetDeviceFlags",
    "hipSetupArgument",
    "hipSignalExternalSemaphoresAsync",
    "hipStreamAddCallback",
    "hipStreamAttachMemAsync",
    "hipStreamBeginCapture",
    "hipStreamCreate",
    "hipStreamCreateWithFlags",
    "hipStreamCreateWithPriority",
    "hipStreamDestroy",
    "hipStreamEndCapture",
    "hipStreamGetCaptureInfo",
    "hipStreamGetCaptureInfo_v2",
    "hipStreamGetDevice",
    "hipStreamGetFlags",
    "hipStreamGetPriority",
    "hipStreamIsCapturing",
    "hipStreamQuery",
    "hipStreamSynchronize",
    "hipStreamUpdateCaptureDependencies",
    "hipStreamWaitEvent",
    "hipStreamWaitValue32",
    "hipStreamWaitValue64",
    "hipStreamWriteValue32",
    "hipStreamWriteValue64",
    "hipTexObjectCreate",
    "hipTexObjectDestroy",
    "hipTexObjectGetResourceDesc",
    "hipTexObjectGetResourceViewDesc",
    "hipTexObjectGetTextureDesc",
    "hipTexRefGetAddress",
    "hipTexRefGetAddressMode",
    "hipTexRefGetFilterMode",
    "hipTexRefGetFlags",
    "hipTexRefGetFormat",
    "hipTexRefGetMaxAnisotropy",
    "hipTexRefGetMipMappedArray",
    "hipTexRefGetMipmapFilterMode",
    "hipTexRefGetMipmapLevelBias",
    "hipTexRefGetMipmapLevelClamp",
    "hipTexRefSetAddress",
    "hipTexRefSetAddress2D",
    "hipTexRefSetAddressMode",
    "hipTexRefSetArray",
    "hipTexRefSetBorderColor",
    "hipTexRefSetFilterMode",
    "hipTexRefSetFlags",
    "hipTexRefSetFormat",
    "hipTexRefSetMaxAnisotropy",
    "hipTexRefSetMipmapFilterMode",
    "hipTexRefSetMipmapLevelBias",
    "hipTexRefSetMipmapLevelClamp",
    "hipTexRefSetMipmappedArray",
    "hipThreadExchangeStreamCaptureMode",
    "hipUnbindTexture",
    "hipUserObjectCreate",
    "hipUserObjectRelease",
    "hipUserObjectRetain",
    "hipWaitExternalSemaphoresAsync",
    "hipCreateChannelDesc",
    "hipExtModuleLaunchKernel",
    "hipHccModuleLaunchKernel",
    "hipMemcpy_spt",
    "hipMemcpyToSymbol_spt",
    "hipMemcpyFromSymbol_spt",
    "hipMemcpy2D_spt",
    "hipMemcpy2DFromArray_spt",
    "hipMemcpy3D_spt",
    "hipMemset_spt",
    "hipMemsetAsync_spt",
    "hipMemset2D_spt",
    "hipMemset2DAsync_spt",
    "hipMemset3DAsync_spt",
    "hipMemset3D_spt",
    "hipMemcpyAsync_spt",
    "hipMemcpy3DAsync_spt",
    "hipMemcpy2DAsync_spt",
    "hipMemcpyFromSymbolAsync_spt",
    "hipMemcpyToSymbolAsync_spt",
    "hipMemcpyFromArray_spt",
    "hipMemcpy2DToArray_spt",
    "hipMemcpy2DFromArrayAsync_spt",
    "hipMemcpy2DToArrayAsync_spt",
    "hipStreamQuery_spt",
    "hipStreamSynchronize_spt",
    "hipStreamGetPriority_spt",
    "hipStreamWaitEvent_spt",
    "hipStreamGetFlags_spt",
    "hipStreamAddCallback_spt",
    "hipEventRecord_spt",
    "hipLaunchCooperativeKernel_spt",
    "hipLaunchKernel_spt",
    "hipGraphLaunch_spt",
    "hipStreamBeginCapture_spt",
    "hipStreamEndCapture_spt",
    "hipStreamIsCapturing_spt",
    "hipStreamGetCaptureInfo_spt",
    "hipStreamGetCaptureInfo_v2_spt",
    "hipLaunchHostFunc_spt",
    "hipGetStreamDeviceId",
    "hipDrvGraphAddMemsetNode",
    "hipGraphAddExternalSemaphoresWaitNode",
    "hipGraphAddExternalSemaphoresSignalNode",
    "hipGraphExternalSemaphoresSignalNodeSetParams",
    "hipGraphExternalSemaphoresWaitNodeSetParams",
    "hipGraphExternalSemaphoresSignalNodeGetParams",
    "hipGraphExternalSemaphoresWaitNodeGetParams",
    "hipGraphExecExternalSemaphoresSignalNodeSetParams",
    "hipGraphExecExternalSemaphoresWaitNodeSetParams",
    "hipGraphAddNode",
    "hipGraphInstantiateWithParams",
    "hipExtGetLastError",
    "hipTexRefGetBorderColor",
    "hipTexRefGetArray",
    "hipGetProcAddress",
    "hipStreamBeginCaptureToGraph",
    "hipGetFuncBySymbol",
    "hipSetValidDevices",
    "hipMemcpyAtoD",
    "hipMemcpyDtoA",
    "hipMemcpyAtoA",
    "hipMemcpyAtoHAsync",
    "hipMemcpyHtoAAsync",
    "hipMemcpy2DArrayToArray",
    "hipDrvGraphAddMemFreeNode",
    "hipDrvGraphExecMemcpyNodeSetParams",
    "hipDrvGraphExecMemsetNodeSetParams",
    "hipGraphExecGetFlags",
    "hipGraphNodeSetParams",
    "hipGraphExecNodeSetParams",
    "hipExternalMemoryGetMappedMipmappedArray",
    "hipDrvGraphMemcpyNodeGetParams",
    "hipDrvGraphMemcpyNodeSetParams",
    "hipExtHostAlloc",
    "hipDeviceGetTexture1DLinearMaxWidth",
    "hipStreamBatchMemOp",
    "hipGraphAddBatchMemOpNode",
    "hipGraphBatchMemOpNodeGetParams",
    "hipGraphBatchMemOpNodeSetParams",
    "hipGraphExecBatchMemOpNodeSetParams",
    "hipLinkAddData",
    "hipLinkAddFile",
    "hipLinkComplete",
    "hipLinkCreate",
    "hipLinkDestroy",
    "hipEventRecordWithFlags",
    "hipLaunchKernelExC",
    "hipDrvLaunchKernelEx",
    "hipMemGetHandleForAddressRange",
    "hipModuleGetFunctionCount",
    "hipMemsetD2D8",
    "hipMemsetD2D8Async",
    "hipMemsetD2D16",
    "hipMemsetD2D16Async",
    "hipMemsetD2D32",
    "hipMemsetD2D32Async",
    "hipStreamGetAttribute",
    "hipStreamSetAttribute",
    "hipModuleLoadFatBinary",
    "hipMemcpyBatchAsync",
    "hipMemcpy3DBatchAsync",
    "hipMemcpy3DPeer",
    "hipMemcpy3DPeerAsync",
    "hipGetDriverEntryPoint",
    "hipGetDriverEntryPoint_spt",
    "hipMemPrefetchAsync_v2",
    "hipMemAdvise_v2",
    "hipStreamGetId",
    "hipLibraryLoadData",
    "hipLibraryLoadFromFile",
    "hipLibraryUnload",
    "hipLibraryGetKernel",
    "hipLibraryGetKernelCount",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_values() {
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_NONE, -1);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipApiName, 0);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize, 66);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord, 81);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipExtLaunchKernel, 84);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipFree, 90);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch, 166);
        assert_eq!(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchCooperativeKernel,
            211
        );
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel, 214);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, 215);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy, 259);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync, 268);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoD, 270);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoDAsync, 271);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH, 272);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync, 273);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD, 278);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync, 279);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeerAsync, 283);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyWithStream, 287);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset, 288);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync, 293);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel, 308);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate, 334);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy, 337);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize, 346);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent, 348);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel, 388);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetArray, 441);
        assert_eq!(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetHandleForAddressRange,
            476
        );
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_hipLibraryGetKernelCount, 500);
        assert_eq!(ROCPROFILER_HIP_RUNTIME_API_ID_LAST, 501);
    }

    #[test]
    fn names_match_ids() {
        assert_eq!(
            HIP_RUNTIME_API_NAMES.len(),
            ROCPROFILER_HIP_RUNTIME_API_ID_LAST as usize
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipApiName as usize],
            "hipApiName"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize as usize],
            "hipDeviceSynchronize"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord as usize],
            "hipEventRecord"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipFree as usize],
            "hipFree"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel as usize],
            "hipLaunchKernel"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc as usize],
            "hipMalloc"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy as usize],
            "hipMemcpy"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync as usize],
            "hipMemcpyAsync"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync as usize],
            "hipMemsetAsync"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel as usize],
            "hipModuleLaunchKernel"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize as usize],
            "hipStreamSynchronize"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel as usize],
            "hipExtModuleLaunchKernel"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipTexRefGetArray as usize],
            "hipTexRefGetArray"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipGetProcAddress as usize],
            "hipGetProcAddress"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES
                [ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetHandleForAddressRange as usize],
            "hipMemGetHandleForAddressRange"
        );
        assert_eq!(
            HIP_RUNTIME_API_NAMES[ROCPROFILER_HIP_RUNTIME_API_ID_hipLibraryGetKernelCount as usize],
            "hipLibraryGetKernelCount"
        );
    }

    #[test]
    fn names_unique() {
        extern crate std;
        let mut seen = std::collections::HashSet::new();
        for (id, name) in HIP_RUNTIME_API_NAMES.iter().enumerate() {
            assert!(!name.is_empty(), "empty name at {id}");
            assert!(seen.insert(*name), "duplicate name {name} at {id}");
        }
    }
}
