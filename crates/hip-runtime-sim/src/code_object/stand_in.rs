//! The simulator's stand-in code-object image, for programs that cannot produce a real AMDGPU
//! ELF: the 8 bytes `ROCSIMCO`, then each mangled kernel name NUL-terminated, then an empty
//! name. It names kernels only (no descriptors).

use crate::error::{HipError, HIP_ERROR_INVALID_IMAGE};

pub const MAGIC: &[u8; 8] = b"ROCSIMCO";
/// Upper bound on names read from one image, so a malformed image cannot make us read forever.
const MAX_KERNELS: usize = 4096;
/// Upper bound on one name's length.
const MAX_NAME: usize = 64 * 1024;

/// The image's length in bytes, found by walking its names to the empty one.
///
/// # Safety
/// `image` must point to a readable stand-in image: the magic, then NUL-terminated strings up
/// to and including the terminating empty one.
pub unsafe fn extent_in_memory(image: *const u8) -> Result<usize, HipError> {
    let mut at = MAGIC.len();
    for _ in 0..=MAX_KERNELS {
        // SAFETY: each entry is NUL-terminated per the contract.
        let len = unsafe { std::ffi::CStr::from_ptr(image.add(at).cast()) }
            .to_bytes()
            .len();
        if len > MAX_NAME {
            return Err(HipError(HIP_ERROR_INVALID_IMAGE));
        }
        at += len + 1;
        if len == 0 {
            return Ok(at);
        }
    }
    Err(HipError(HIP_ERROR_INVALID_IMAGE))
}

/// The kernel names of a complete image.
pub fn kernel_names(image: &[u8]) -> Result<Vec<String>, HipError> {
    let body = image
        .strip_prefix(MAGIC.as_slice())
        .ok_or(HipError(HIP_ERROR_INVALID_IMAGE))?;
    let mut names = Vec::new();
    let mut rest = body;
    loop {
        let nul = rest
            .iter()
            .position(|b| *b == 0)
            .ok_or(HipError(HIP_ERROR_INVALID_IMAGE))?;
        if nul == 0 {
            break;
        }
        if names.len() == MAX_KERNELS {
            return Err(HipError(HIP_ERROR_INVALID_IMAGE));
        }
        let name =
            std::str::from_utf8(&rest[..nul]).map_err(|_| HipError(HIP_ERROR_INVALID_IMAGE))?;
        names.push(name.to_owned());
        rest = &rest[nul + 1..];
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
        let image = b"ROCSIMCO_Z3addPfi\0_Z5scalePff\0\0trailing";
        // SAFETY: a complete image.
        let len = unsafe { extent_in_memory(image.as_ptr()) }.unwrap();
        assert_eq!(len, image.len() - "trailing".len());
        let names = kernel_names(&image[..len]).unwrap();
        assert_eq!(names, ["_Z3addPfi", "_Z5scalePff"]);
        let elf = b"\x7fELF\x02\x01\x01\0\0\0";
        assert_eq!(kernel_names(elf), Err(HipError(HIP_ERROR_INVALID_IMAGE)));
        assert_eq!(
            kernel_names(b"ROCSIMCO\0"),
            Err(HipError(HIP_ERROR_INVALID_IMAGE))
        );
        // Truncated: no terminating empty name.
        assert_eq!(
            kernel_names(b"ROCSIMCOabc\0de"),
            Err(HipError(HIP_ERROR_INVALID_IMAGE))
        );
    }
}
