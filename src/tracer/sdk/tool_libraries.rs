//! Whether `ROCP_TOOL_LIBRARIES` names the shared object this tracer was loaded from.
//!
//! The SDK's first initialization, whoever starts it (HIP's first call, or a tool's forced
//! configuration), loads every library that variable names and configures it in the same pass.
//! A tracer named there that forces the SDK itself at load, before the process loaded its
//! other tools, makes a pass that holds only the tools loaded so far, and an SDK without
//! anytime initialization (before ROCm 10.1) refuses every tool forced after it: XLA's, when
//! JAX loads its plugin later (docs/jax-rocm.md#pgle).
use std::ffi::{c_void, CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const TOOL_LIBRARIES_ENV: &str = "ROCP_TOOL_LIBRARIES";

/// Whether one of `ROCP_TOOL_LIBRARIES`' colon-separated entries is this object: the same
/// file for an entry with a `/` (the dynamic loader opens it as a path), the same file name
/// for a bare name (the loader searches its path for it).
pub(crate) fn names_this_library() -> bool {
    let Some(listed) = std::env::var_os(TOOL_LIBRARIES_ENV) else {
        return false;
    };
    let Some(own) = own_object_path() else {
        return false;
    };
    names(listed.as_bytes(), &own)
}

fn names(listed: &[u8], own: &Path) -> bool {
    let own_file = file_id(own);
    listed
        .split(|byte| *byte == b':')
        .filter(|entry| !entry.is_empty())
        .any(|entry| {
            if entry.contains(&b'/') {
                own_file.is_some() && file_id(Path::new(OsStr::from_bytes(entry))) == own_file
            } else {
                own.file_name() == Some(OsStr::from_bytes(entry))
            }
        })
}

/// The path the dynamic loader opened this code from (the executable's for a static link).
fn own_object_path() -> Option<PathBuf> {
    // SAFETY: an all-zero Dl_info is valid (null pointers), and dladdr only writes it.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let address = names_this_library as *const () as *const c_void;
    // SAFETY: `address` is code of this object; `info` is writable.
    if unsafe { libc::dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr's file name is a NUL-terminated string that lives as long as the object.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    Some(PathBuf::from(OsStr::from_bytes(name.to_bytes())))
}

fn file_id(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_names_the_same_file_by_path_or_its_file_name() {
        let dir = std::env::temp_dir().join(format!("xrt-tool-libraries-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let own = dir.join("libtool.so");
        let other = dir.join("libother.so");
        std::fs::write(&own, b"a").unwrap();
        std::fs::write(&other, b"b").unwrap();
        let link = dir.join("liblink.so");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&own, &link).unwrap();

        let path = |p: &Path| p.as_os_str().as_bytes().to_vec();
        assert!(names(&path(&own), &own));
        assert!(
            names(&path(&link), &own),
            "a symlink to it is the same file"
        );
        assert!(names(&[path(&other), path(&own)].join(&b':'), &own));
        assert!(
            names(b"libtool.so", &own),
            "a bare name is searched for by the loader"
        );
        assert!(!names(&path(&other), &own));
        assert!(!names(b"", &own));
        assert!(!names(b"::libother.so", &own));
        assert!(!names(&path(&dir.join("missing.so")), &own));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
