//! The code objects `hipModuleLoadData` / `hipModuleLoad` accept: a real AMDGPU ELF (what
//! XLA's compiler emits), a clang offload bundle holding one, or the simulator's stand-in image
//! naming kernels. From a real one come the kernels and the resources their descriptors
//! declare, which the simulated SDK reports as the real one does (docs/simulator-fidelity.md#code-objects).

pub(crate) mod elf;
pub(crate) mod kernel_descriptor;
pub(crate) mod offload_bundle;
pub mod stand_in;

use crate::error::{HipError, HIP_ERROR_INVALID_IMAGE, HIP_ERROR_INVALID_VALUE};
pub use kernel_descriptor::KernelResources;

/// One kernel of a code object; `resources` is `None` when the image does not declare them
/// (the stand-in image).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSymbol {
    pub name: String,
    pub resources: Option<KernelResources>,
}

/// A data symbol of a code object (`hipModuleGetGlobal`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalSymbol {
    pub name: String,
    pub size: usize,
}

/// What a code object holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeObjectContents {
    pub kernels: Vec<KernelSymbol>,
    pub globals: Vec<GlobalSymbol>,
}

/// Parses a complete image held in `bytes` (a file `hipModuleLoad` read).
pub fn parse(bytes: &[u8]) -> Result<CodeObjectContents, HipError> {
    if bytes.starts_with(elf::MAGIC) {
        return elf::parse(bytes);
    }
    if bytes.starts_with(offload_bundle::MAGIC) {
        return elf::parse(offload_bundle::amdgcn_code_object(bytes)?);
    }
    if bytes.starts_with(stand_in::MAGIC) {
        let kernels = stand_in::kernel_names(bytes)?
            .into_iter()
            .map(|name| KernelSymbol {
                name,
                resources: None,
            })
            .collect();
        return Ok(CodeObjectContents {
            kernels,
            globals: Vec::new(),
        });
    }
    Err(HipError(HIP_ERROR_INVALID_IMAGE))
}

/// Parses an image given only its address, as `hipModuleLoadData` is: the image's own headers
/// say how long it is.
///
/// # Safety
/// `image` must be null or point to a complete image of one of the accepted kinds (each is at
/// least 8 bytes long).
pub unsafe fn parse_in_memory(image: *const u8) -> Result<CodeObjectContents, HipError> {
    if image.is_null() {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    // SAFETY: every accepted image starts with at least 8 readable bytes (caller contract).
    let head = unsafe { std::slice::from_raw_parts(image, 8) };
    // SAFETY: caller contract: a complete image of the kind its magic names.
    let len = unsafe {
        if head.starts_with(elf::MAGIC) {
            elf::extent_in_memory(image)?
        } else if head == &offload_bundle::MAGIC[..8] {
            offload_bundle::extent_in_memory(image)?
        } else if head == stand_in::MAGIC {
            stand_in::extent_in_memory(image)?
        } else {
            return Err(HipError(HIP_ERROR_INVALID_IMAGE));
        }
    };
    // SAFETY: the image's headers (caller contract: truthful) say it spans `len` bytes.
    parse(unsafe { std::slice::from_raw_parts(image, len) })
}
