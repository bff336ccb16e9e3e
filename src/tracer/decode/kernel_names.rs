//! Kernel id -> demangled kernel name and the symbol's resources (registers, static LDS),
//! filled by the utility context's CODE_OBJECT DEVICE_KERNEL_SYMBOL_REGISTER callback
//! (docs/xla-interface.md#kernel-names, #kernel-resources-and-occupancy).
//!
//! XLA writes its map under a lock from the code-object thread but reads it without the lock
//! in the buffer callback (docs/xla-interface.md#xla-edge-3); here both sides go through one `RwLock`, and a
//! name is an `Arc<str>` shared by every event of that kernel. UNLOAD is ignored on purpose:
//! buffer records of a kernel can arrive after its code object was unloaded.
use std::ffi::{c_void, CStr};
use std::sync::Arc;

use parking_lot::RwLock;
use rocprofiler_sdk_sys as sys;

use crate::tracer::sdk::id_map::SdkIdMap;

/// The name XLA gives a kernel whose symbol was never registered.
pub(crate) const UNKNOWN_KERNEL_NAME: &str = "??";

/// What a kernel symbol says about every dispatch of the kernel, copied into each dispatch's
/// `KernelDetails`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    pub sgpr_count: u32,
    /// Static LDS bytes per workgroup.
    pub group_segment_size: u32,
}

#[derive(Default)]
pub struct KernelNames {
    names: RwLock<SdkIdMap<(Arc<str>, KernelResources)>>,
}

impl KernelNames {
    pub fn insert(&self, kernel_id: u64, mangled: &str) {
        self.insert_with_resources(kernel_id, mangled, KernelResources::default());
    }

    pub fn insert_with_resources(&self, kernel_id: u64, mangled: &str, resources: KernelResources) {
        let name: Arc<str> = Arc::from(demangle(mangled));
        self.names.write().insert(kernel_id, (name, resources));
    }

    pub fn get(&self, kernel_id: u64) -> Option<Arc<str>> {
        self.names
            .read()
            .get(&kernel_id)
            .map(|(name, _)| name.clone())
    }

    /// The kernel's name and resources, under one lock.
    pub fn symbol(&self, kernel_id: u64) -> Option<(Arc<str>, KernelResources)> {
        self.names.read().get(&kernel_id).cloned()
    }

    pub fn len(&self) -> usize {
        self.names.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Handles one CODE_OBJECT callback record; anything but a well-formed kernel symbol
    /// registration at phase LOAD is ignored.
    ///
    /// # Safety
    /// `record.payload` is null or points to the payload the SDK defines for the record's
    /// kind and operation, valid for the duration of the call.
    pub(crate) unsafe fn on_code_object_record(
        &self,
        record: &sys::rocprofiler_callback_tracing_record_t,
    ) {
        type SymbolData =
            sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;
        if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT
            || record.operation != sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER
            || record.phase != sys::ROCPROFILER_CALLBACK_PHASE_LOAD
            || record.payload.is_null()
        {
            return;
        }
        let payload = record.payload as *const SymbolData;
        // SAFETY: non-null payload of this operation (see above); `size` is read first.
        let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
        let needed = std::mem::offset_of!(SymbolData, kernel_name) + std::mem::size_of::<usize>();
        if size < needed as u64 {
            return;
        }
        // SAFETY: the payload covers `kernel_id` and `kernel_name`.
        let (kernel_id, name_ptr) = unsafe {
            (
                std::ptr::addr_of!((*payload).kernel_id).read_unaligned(),
                std::ptr::addr_of!((*payload).kernel_name).read_unaligned(),
            )
        };
        if name_ptr.is_null() {
            return;
        }
        // SAFETY: the SDK's kernel name is NUL-terminated and valid until unload.
        let mangled = unsafe { CStr::from_ptr(name_ptr) }.to_string_lossy();
        // An older, shorter payload without the register fields gives no resources.
        let resources_end =
            std::mem::offset_of!(SymbolData, accum_vgpr_count) + std::mem::size_of::<u32>();
        let resources = if size >= resources_end as u64 {
            // SAFETY: the payload covers the fields up to `accum_vgpr_count`.
            unsafe {
                KernelResources {
                    arch_vgpr_count: std::ptr::addr_of!((*payload).arch_vgpr_count)
                        .read_unaligned(),
                    accum_vgpr_count: std::ptr::addr_of!((*payload).accum_vgpr_count)
                        .read_unaligned(),
                    sgpr_count: std::ptr::addr_of!((*payload).sgpr_count).read_unaligned(),
                    group_segment_size: std::ptr::addr_of!((*payload).group_segment_size)
                        .read_unaligned(),
                }
            }
        } else {
            KernelResources::default()
        };
        self.insert_with_resources(kernel_id, &mangled, resources);
    }
}

/// Demangles an Itanium C++ symbol; anything else (hipBLASLt/Tensile kernels, XLA fusions,
/// `extern "C"` kernels) is returned as is, like tsl's `MaybeAbiDemangle`.
pub(crate) fn demangle(name: &str) -> String {
    if !name.starts_with("_Z") {
        return name.to_owned();
    }
    cpp_demangle::Symbol::new(name.as_bytes())
        .ok()
        .and_then(|symbol| symbol.demangle().ok())
        .unwrap_or_else(|| name.to_owned())
}

/// The utility context's CODE_OBJECT callback, on the SDK's code-object thread. `names` is
/// the callback data the tracer registered it with: its [`KernelNames`].
///
/// # Safety
/// `names` points to a `'static` [`KernelNames`] (`sdk/setup.rs` registers the tracer's).
pub(crate) unsafe extern "C" fn code_object_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    names: *mut c_void,
) {
    // SAFETY: the callback data set up by `sdk/setup.rs` (this function's contract).
    let Some(names) = (unsafe { (names as *const KernelNames).as_ref() }) else {
        return;
    };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the SDK's record, whose payload is valid during this call.
        unsafe { names.on_code_object_record(&record) }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_itanium_names_and_keeps_others() {
        assert_eq!(demangle("_Z3fooi"), "foo(int)");
        assert_eq!(
            demangle("_ZN7rocprim6detail11scan_kernelIfEEvPfS2_"),
            "void rocprim::detail::scan_kernel<float>(float*, float*)"
        );
        assert_eq!(demangle("loop_multiply_fusion"), "loop_multiply_fusion");
        assert_eq!(
            demangle("Cijk_Alik_Bljk_BBS_BH_MT128x128x64"),
            "Cijk_Alik_Bljk_BBS_BH_MT128x128x64"
        );
        assert_eq!(demangle("_Znot a symbol"), "_Znot a symbol");
    }

    #[test]
    fn names_are_shared_and_looked_up_by_id() {
        let names = KernelNames::default();
        assert!(names.get(1).is_none());
        names.insert(1, "_Z3fooi");
        let a = names.get(1).unwrap();
        let b = names.get(1).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, "foo(int)");
    }
}
