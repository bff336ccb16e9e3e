//! Kernel registration: what hipcc-generated host code registers (`__hipRegisterFatBinary`,
//! `__hipRegisterFunction`) and what `hipModuleLoadData` loads, resolved at launch to the
//! simulated SDK's kernel ids.
//!
//! Like HIP's deferred loading, a fat binary's code object is loaded onto a device the first
//! time one of its kernels is launched there; the load is what makes the SDK deliver
//! CODE_OBJECT DEVICE_KERNEL_SYMBOL_REGISTER for every kernel of it (before any dispatch).

use crate::abi::KernelHostBody;
use crate::code_object::{CodeObjectContents, GlobalSymbol, KernelResources, KernelSymbol};
use crate::driver;
use crate::error::{HipError, HIP_ERROR_INVALID_DEVICE_FUNCTION, HIP_ERROR_INVALID_HANDLE};
use crate::handles::HandleSpace;
use parking_lot::Mutex;
use std::collections::HashMap;

/// One loaded code object: its SDK id and kernel name -> SDK kernel id.
#[derive(Debug)]
struct LoadedCodeObject {
    id: u64,
    kernels: HashMap<String, u64>,
}

#[derive(Debug, Default)]
struct CodeObject {
    /// Kernels (mangled names) in registration order.
    kernels: Vec<KernelSymbol>,
    globals: Vec<GlobalSymbol>,
    loaded: HashMap<u32, LoadedCodeObject>,
}

impl CodeObject {
    fn has_kernel(&self, name: &str) -> bool {
        self.kernels.iter().any(|k| k.name == name)
    }

    fn resources(&self, name: &str) -> Option<KernelResources> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .and_then(|k| k.resources)
    }

    fn kernel_id(&mut self, device: u32, name: &str) -> Result<u64, HipError> {
        if !self.loaded.contains_key(&device) {
            let (id, ids) = driver::load_code_object(device, &self.kernels)?;
            let kernels = self
                .kernels
                .iter()
                .map(|k| k.name.clone())
                .zip(ids)
                .collect();
            self.loaded.insert(device, LoadedCodeObject { id, kernels });
        }
        self.loaded[&device]
            .kernels
            .get(name)
            .copied()
            .ok_or(HipError(HIP_ERROR_INVALID_DEVICE_FUNCTION))
    }

    fn unload(&mut self) {
        for (_, loaded) in self.loaded.drain() {
            // Unloading after the SDK finalized (at exit) has nothing left to report.
            let _ = driver::unload_code_object(loaded.id);
        }
    }
}

/// A kernel as a launch needs it.
#[derive(Clone, Copy, Debug)]
pub struct ResolvedKernel {
    pub kernel_id: u64,
    /// What the kernel's descriptor declares (`None`: registered by name only).
    pub resources: Option<KernelResources>,
    pub host_body: Option<KernelHostBody>,
    pub modelled_duration_ns: u64,
}

#[derive(Debug)]
struct Function {
    /// Handle of the fat binary or module holding the kernel.
    owner: u64,
    name: String,
    host_body: Option<KernelHostBody>,
    modelled_duration_ns: u64,
}

#[derive(Default)]
struct Registry {
    /// Fat binaries and modules, by handle.
    code_objects: HashMap<u64, CodeObject>,
    /// Registered host stubs (`hipLaunchKernel` addresses) and `hipFunction_t`s, by address.
    functions: HashMap<u64, Function>,
}

// The lock is held across code-object loads: the SDK's load callbacks go to the tool, which
// never calls back into HIP.
static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn with_registry<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    f(REGISTRY.lock().get_or_insert_with(Registry::default))
}

static FAT_BINARIES: HandleSpace = HandleSpace::new(0x5f00_0000_0000);
static MODULES: HandleSpace = HandleSpace::new(0x5e00_0000_0000);
static MODULE_FUNCTIONS: HandleSpace = HandleSpace::new(0x5d00_0000_0000);

/// `__hipRegisterFatBinary`: a new, empty code object; its handle is what hipcc code keeps.
pub fn register_fat_binary() -> u64 {
    let handle = FAT_BINARIES.next();
    with_registry(|r| r.code_objects.insert(handle, CodeObject::default()));
    handle
}

/// `__hipRegisterFunction`: `host_stub` launches kernel `name` of fat binary `handle`.
pub fn register_function(handle: u64, host_stub: u64, name: &str) -> Result<(), HipError> {
    with_registry(|r| {
        let code_object = r
            .code_objects
            .get_mut(&handle)
            .ok_or(HipError(HIP_ERROR_INVALID_HANDLE))?;
        if !code_object.has_kernel(name) {
            code_object.kernels.push(KernelSymbol {
                name: name.to_owned(),
                resources: None,
            });
        }
        r.functions.insert(
            host_stub,
            Function {
                owner: handle,
                name: name.to_owned(),
                host_body: None,
                modelled_duration_ns: 0,
            },
        );
        Ok(())
    })
}

/// `__hipUnregisterFatBinary` / `hipModuleUnload`: unloads from every device and forgets the
/// kernels.
pub fn unregister(handle: u64) -> Result<(), HipError> {
    with_registry(|r| {
        let mut code_object = r
            .code_objects
            .remove(&handle)
            .ok_or(HipError(HIP_ERROR_INVALID_HANDLE))?;
        code_object.unload();
        r.functions.retain(|_, f| f.owner != handle);
        Ok(())
    })
}

/// Simulator extension: a host body and modelled duration for a registered kernel.
pub fn set_host_body(
    function: u64,
    body: Option<KernelHostBody>,
    modelled_duration_ns: u64,
) -> Result<(), HipError> {
    with_registry(|r| {
        let f = r
            .functions
            .get_mut(&function)
            .ok_or(HipError(HIP_ERROR_INVALID_DEVICE_FUNCTION))?;
        f.host_body = body;
        f.modelled_duration_ns = modelled_duration_ns;
        Ok(())
    })
}

/// `hipModuleLoadData` on `device`: loads at once (no deferral for modules).
pub fn load_module(device: u32, contents: CodeObjectContents) -> u64 {
    let handle = MODULES.next();
    with_registry(|r| {
        let mut code_object = CodeObject {
            kernels: contents.kernels,
            globals: contents.globals,
            loaded: HashMap::new(),
        };
        if let Some(first) = code_object.kernels.first().map(|k| k.name.clone()) {
            let _ = code_object.kernel_id(device, &first);
        }
        r.code_objects.insert(handle, code_object);
    });
    handle
}

/// The size of data symbol `name` of a module (`hipModuleGetGlobal`).
pub fn module_global_size(module: u64, name: &str) -> Result<usize, HipError> {
    with_registry(|r| {
        let code_object = r
            .code_objects
            .get(&module)
            .ok_or(HipError(HIP_ERROR_INVALID_HANDLE))?;
        code_object
            .globals
            .iter()
            .find(|g| g.name == name)
            .map(|g| g.size)
            .ok_or(HipError(crate::error::HIP_ERROR_NOT_FOUND))
    })
}

/// `hipModuleGetFunction`.
pub fn module_function(module: u64, name: &str) -> Result<u64, HipError> {
    with_registry(|r| {
        let code_object = r
            .code_objects
            .get(&module)
            .ok_or(HipError(HIP_ERROR_INVALID_HANDLE))?;
        if !code_object.has_kernel(name) {
            return Err(HipError(crate::error::HIP_ERROR_NOT_FOUND));
        }
        if let Some((&handle, _)) = r
            .functions
            .iter()
            .find(|(_, f)| f.owner == module && f.name == name)
        {
            return Ok(handle);
        }
        let handle = MODULE_FUNCTIONS.next();
        r.functions.insert(
            handle,
            Function {
                owner: module,
                name: name.to_owned(),
                host_body: None,
                modelled_duration_ns: 0,
            },
        );
        Ok(handle)
    })
}

/// The kernel behind a host stub or `hipFunction_t`, loaded on `device`.
pub fn resolve(function: u64, device: u32) -> Result<ResolvedKernel, HipError> {
    with_registry(|r| {
        let f = r
            .functions
            .get(&function)
            .ok_or(HipError(HIP_ERROR_INVALID_DEVICE_FUNCTION))?;
        let code_object = r
            .code_objects
            .get_mut(&f.owner)
            .ok_or(HipError(HIP_ERROR_INVALID_DEVICE_FUNCTION))?;
        Ok(ResolvedKernel {
            kernel_id: code_object.kernel_id(device, &f.name)?,
            resources: code_object.resources(&f.name),
            host_body: f.host_body,
            modelled_duration_ns: f.modelled_duration_ns,
        })
    })
}

/// Whether `function` names a registered kernel (for attribute and occupancy queries).
pub fn is_registered(function: u64) -> bool {
    with_registry(|r| r.functions.contains_key(&function))
}

/// What the descriptor of a registered kernel declares; `Ok(None)` when it was registered by
/// name only.
pub fn resources_of(function: u64) -> Result<Option<KernelResources>, HipError> {
    with_registry(|r| {
        let f = r
            .functions
            .get(&function)
            .ok_or(HipError(HIP_ERROR_INVALID_DEVICE_FUNCTION))?;
        Ok(r.code_objects
            .get(&f.owner)
            .and_then(|c| c.resources(&f.name)))
    })
}
