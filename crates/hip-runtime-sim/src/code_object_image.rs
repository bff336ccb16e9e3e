//! The code-object images `hipModuleLoadData` accepts in the simulator. A real image is an
//! AMDGPU ELF; the simulator cannot run one, so its stand-in image names the kernels instead:
//! the 8 bytes `ROCSIMCO`, then each mangled kernel name NUL-terminated, then an empty name.

use crate::error::{HipError, HIP_ERROR_INVALID_IMAGE, HIP_ERROR_INVALID_VALUE};
use std::ffi::CStr;

pub const MAGIC: &[u8; 8] = b"ROCSIMCO";
/// Upper bound on names read from one image, so a malformed image cannot make us read forever.
const MAX_KERNELS: usize = 4096;

/// Parses the kernel names of an image.
///
/// # Safety
/// `image` must be null or point to a readable image: the magic, then NUL-terminated strings
/// up to and including the terminating empty one.
pub unsafe fn kernel_names(image: *const u8) -> Result<Vec<String>, HipError> {
    if image.is_null() {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    // SAFETY: the image starts with at least 8 readable bytes per the contract (a real ELF
    // image is longer than that, too).
    let magic = unsafe { std::slice::from_raw_parts(image, MAGIC.len()) };
    if magic != MAGIC {
        return Err(HipError(HIP_ERROR_INVALID_IMAGE));
    }
    let mut names = Vec::new();
    // SAFETY: in bounds of the image per the contract.
    let mut cursor = unsafe { image.add(MAGIC.len()) };
    loop {
        // SAFETY: each entry is NUL-terminated per the contract.
        let name = unsafe { CStr::from_ptr(cursor.cast()) };
        if name.is_empty() {
            break;
        }
        if names.len() == MAX_KERNELS {
            return Err(HipError(HIP_ERROR_INVALID_IMAGE));
        }
        let text = name
            .to_str()
            .map_err(|_| HipError(HIP_ERROR_INVALID_IMAGE))?;
        names.push(text.to_owned());
        // SAFETY: the next entry follows the NUL.
        cursor = unsafe { cursor.add(name.to_bytes_with_nul().len()) };
    }
    if names.is_empty() {
        return Err(HipError(HIP_ERROR_INVALID_IMAGE));
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_rejects_foreign_images() {
        let image = b"ROCSIMCO_Z3addPfi\0_Z5scalePff\0\0";
        // SAFETY: a complete image.
        let names = unsafe { kernel_names(image.as_ptr()) }.unwrap();
        assert_eq!(names, ["_Z3addPfi", "_Z5scalePff"]);
        let elf = b"\x7fELF\x02\x01\x01\0\0\0";
        assert_eq!(
            // SAFETY: 10 readable bytes.
            unsafe { kernel_names(elf.as_ptr()) },
            Err(HipError(HIP_ERROR_INVALID_IMAGE))
        );
        let empty = b"ROCSIMCO\0";
        assert_eq!(
            // SAFETY: a complete image.
            unsafe { kernel_names(empty.as_ptr()) },
            Err(HipError(HIP_ERROR_INVALID_IMAGE))
        );
        assert_eq!(
            // SAFETY: null is allowed.
            unsafe { kernel_names(std::ptr::null()) },
            Err(HipError(HIP_ERROR_INVALID_VALUE))
        );
    }
}
