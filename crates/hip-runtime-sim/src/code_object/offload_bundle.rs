//! Clang offload bundles (uncompressed), as hipcc embeds device code: the 24-byte magic
//! `__CLANG_OFFLOAD_BUNDLE__`, the entry count (u64), then per entry its offset and size
//! (u64, from the bundle's start), the target triple's length (u64) and the triple. The AMDGPU
//! entries' triples contain `amdgcn-amd-amdhsa`; the first is the code object loaded.

use crate::error::{HipError, HIP_ERROR_INVALID_IMAGE, HIP_ERROR_NO_BINARY_FOR_GPU};

pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
const AMDGCN: &[u8] = b"amdgcn-amd-amdhsa";
/// A bundle has a handful of entries; more is a malformed count.
const MAX_ENTRIES: u64 = 1024;
const MAX_TRIPLE: u64 = 4096;

fn invalid() -> HipError {
    HipError(HIP_ERROR_INVALID_IMAGE)
}

struct Entry<'a> {
    offset: u64,
    size: u64,
    triple: &'a [u8],
}

fn u64_at(d: &[u8], at: usize) -> Result<u64, HipError> {
    let b = d
        .get(at..at.checked_add(8).ok_or_else(invalid)?)
        .ok_or_else(invalid)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Ok(u64::from_le_bytes(a))
}

/// Walks the entry table of `header` (which must hold the whole table).
fn entries(header: &[u8]) -> Result<Vec<Entry<'_>>, HipError> {
    if !header.starts_with(MAGIC) {
        return Err(invalid());
    }
    let count = u64_at(header, MAGIC.len())?;
    if count == 0 || count > MAX_ENTRIES {
        return Err(invalid());
    }
    let mut at = MAGIC.len() + 8;
    let mut out = Vec::new();
    for _ in 0..count {
        let offset = u64_at(header, at)?;
        let size = u64_at(header, at + 8)?;
        let triple_len = u64_at(header, at + 16)?;
        if triple_len > MAX_TRIPLE {
            return Err(invalid());
        }
        let start = at + 24;
        let end = start + triple_len as usize;
        let triple = header.get(start..end).ok_or_else(invalid)?;
        out.push(Entry {
            offset,
            size,
            triple,
        });
        at = end;
    }
    Ok(out)
}

/// The first AMDGPU code object of a complete bundle.
pub fn amdgcn_code_object(bundle: &[u8]) -> Result<&[u8], HipError> {
    let entry = entries(bundle)?
        .into_iter()
        .find(|e| e.triple.windows(AMDGCN.len()).any(|w| w == AMDGCN) && e.size > 0)
        .ok_or(HipError(HIP_ERROR_NO_BINARY_FOR_GPU))?;
    let start = usize::try_from(entry.offset).map_err(|_| invalid())?;
    let len = usize::try_from(entry.size).map_err(|_| invalid())?;
    bundle
        .get(start..start.checked_add(len).ok_or_else(invalid)?)
        .ok_or_else(invalid)
}

/// The bundle's length: the furthest end of its table and entries.
///
/// # Safety
/// `image` must point to a complete bundle whose table is truthful about its layout.
pub unsafe fn extent_in_memory(image: *const u8) -> Result<usize, HipError> {
    // SAFETY: a bundle holds at least its magic and count (caller contract).
    let head = unsafe { std::slice::from_raw_parts(image, MAGIC.len() + 8) };
    let count = u64_at(head, MAGIC.len())?;
    if count == 0 || count > MAX_ENTRIES {
        return Err(invalid());
    }
    // Read the table entry by entry: each triple's length says where the next entry starts.
    let mut table_end = MAGIC.len() + 8;
    let mut end = 0u64;
    for _ in 0..count {
        // SAFETY: the entry's fixed fields are inside the bundle (caller contract).
        let fixed = unsafe { std::slice::from_raw_parts(image.add(table_end), 24) };
        let (offset, size, triple_len) = (u64_at(fixed, 0)?, u64_at(fixed, 8)?, u64_at(fixed, 16)?);
        if triple_len > MAX_TRIPLE {
            return Err(invalid());
        }
        table_end += 24 + triple_len as usize;
        end = end.max(offset.checked_add(size).ok_or_else(invalid)?);
    }
    let end = end.max(table_end as u64);
    if end > 1 << 32 {
        return Err(invalid());
    }
    usize::try_from(end).map_err(|_| invalid())
}

/// Wraps code objects in a bundle (for tests): a host entry, then each `(triple, object)`.
#[cfg(test)]
pub fn bundle(objects: &[(&str, &[u8])]) -> Vec<u8> {
    let mut entries: Vec<(&str, &[u8])> = vec![("host-x86_64-unknown-linux-gnu-", &[])];
    entries.extend_from_slice(objects);
    let table_len: usize = entries.iter().map(|(t, _)| 24 + t.len()).sum();
    let mut offset = (MAGIC.len() + 8 + table_len) as u64;
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (triple, object) in &entries {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(object.len() as u64).to_le_bytes());
        out.extend_from_slice(&(triple.len() as u64).to_le_bytes());
        out.extend_from_slice(triple.as_bytes());
        offset += object.len() as u64;
    }
    for (_, object) in &entries {
        out.extend_from_slice(object);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any corruption of a bundle's table is refused or yields a slice inside the bundle.
        #[test]
        fn corrupted_bundles_never_panic(
            edits in proptest::collection::vec((0usize..160, any::<u8>()), 1..12),
        ) {
            let mut b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", b"\x7fELF-object")]);
            for (at, byte) in edits {
                let n = b.len();
                b[at % n] = byte;
            }
            if let Ok(inner) = amdgcn_code_object(&b) {
                prop_assert!(inner.len() <= b.len());
            }
        }
    }

    #[test]
    fn finds_the_amdgcn_entry() {
        let elf = b"\x7fELF-pretend-object";
        let b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", elf)]);
        assert_eq!(amdgcn_code_object(&b), Ok(&elf[..]));
        // SAFETY: a complete bundle.
        assert_eq!(unsafe { extent_in_memory(b.as_ptr()) }, Ok(b.len()));
        let host_only = bundle(&[]);
        assert_eq!(
            amdgcn_code_object(&host_only),
            Err(HipError(HIP_ERROR_NO_BINARY_FOR_GPU))
        );
        assert_eq!(amdgcn_code_object(&b[..b.len() - 1]), Err(invalid()));
    }
}
