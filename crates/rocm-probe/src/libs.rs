//! Library loading: finds `libamdhip64.so` and `librocprofiler-sdk.so` (real or simulated) and
//! opens them with `dlopen`, resolving every function the probe calls into a table of function
//! pointers. The probe links neither library, so the same binary runs against either set.

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
use std::ffi::{c_char, c_int, c_uint, c_void, OsStr};
use std::path::{Path, PathBuf};

/// Where a pair of libraries came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Real,
    Simulated,
}

impl Origin {
    pub fn name(&self) -> &'static str {
        match self {
            Origin::Real => "real",
            Origin::Simulated => "simulated",
        }
    }
}

/// The HIP runtime and SDK library files of one run.
#[derive(Clone, Debug)]
pub struct LibraryPair {
    pub origin: Origin,
    pub hip: PathBuf,
    pub sdk: PathBuf,
}

/// The file names of the simulated libraries as cargo builds them.
pub const SIM_HIP_FILE: &str = "libamdhip64.so";
pub const SIM_SDK_FILE: &str = "librocprofiler_sdk_sim.so";

/// The folders the real libraries are looked for in, in order: `rocm_lib` alone if given, else
/// `$ROCM_PATH/lib`, each `LD_LIBRARY_PATH` entry, then `/opt/rocm/lib`. `LD_LIBRARY_PATH` comes
/// before the default install because the dynamic loader searches it first: a program on this
/// host that runs another ROCm through it is profiled on that ROCm, so the probe checks that one.
pub fn real_library_dirs(
    rocm_lib: Option<&Path>,
    rocm_path: Option<&OsStr>,
    ld_library_path: Option<&OsStr>,
) -> Vec<PathBuf> {
    if let Some(dir) = rocm_lib {
        return vec![dir.to_path_buf()];
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(root) = rocm_path {
        dirs.push(PathBuf::from(root).join("lib"));
    }
    if let Some(paths) = ld_library_path {
        dirs.extend(std::env::split_paths(paths).filter(|p| !p.as_os_str().is_empty()));
    }
    dirs.push(PathBuf::from("/opt/rocm/lib"));
    dirs
}

/// The real libraries: the first folder of [`real_library_dirs`] holding both files wins.
pub fn find_real(rocm_lib: Option<&Path>) -> Option<LibraryPair> {
    let dirs = real_library_dirs(
        rocm_lib,
        std::env::var_os("ROCM_PATH").as_deref(),
        std::env::var_os("LD_LIBRARY_PATH").as_deref(),
    );
    // The unversioned names come with ROCm's development packages; the SONAMEs always.
    let first =
        |dir: &Path, names: &[&str]| names.iter().map(|n| dir.join(n)).find(|p| p.is_file());
    dirs.into_iter().find_map(|dir| {
        let hip = first(
            &dir,
            &["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"],
        )?;
        let sdk = first(
            &dir,
            &[
                "librocprofiler-sdk.so",
                "librocprofiler-sdk.so.1",
                "librocprofiler-sdk.so.0",
            ],
        )?;
        Some(LibraryPair {
            origin: Origin::Real,
            hip,
            sdk,
        })
    })
}

/// The simulated libraries: in `sim_dir` if given, else beside the probe binary or in its
/// `deps/` folder (where cargo leaves them when they are built as test dependencies).
pub fn find_simulated(sim_dir: Option<&Path>) -> Option<LibraryPair> {
    let dirs: Vec<PathBuf> = match sim_dir {
        Some(dir) => vec![dir.to_path_buf()],
        None => {
            let exe = std::env::current_exe().ok()?;
            let dir = exe.parent()?.to_path_buf();
            vec![dir.clone(), dir.join("deps")]
        }
    };
    // Both folders can hold a copy (a workspace build and a dependency build with other
    // features); the newer SDK library is the one the last build made.
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    dirs.into_iter()
        .filter_map(|dir| {
            let hip = dir.join(SIM_HIP_FILE);
            let sdk = dir.join(SIM_SDK_FILE);
            (hip.is_file() && sdk.is_file()).then_some(LibraryPair {
                origin: Origin::Simulated,
                hip,
                sdk,
            })
        })
        .max_by_key(|pair| modified(&pair.sdk))
}

/// `hipStream_t` and friends as the probe passes them: opaque pointers.
pub type HipStream = *mut c_void;
pub type HipError = c_int;

/// The HIP runtime functions of the battery. Optional ones are absent from some runtimes (the
/// simulated one has no stream capture); the battery skips their step and says so.
#[derive(Clone, Copy)]
pub struct Hip {
    pub runtime_get_version: unsafe extern "C" fn(*mut c_int) -> HipError,
    pub get_device_count: unsafe extern "C" fn(*mut c_int) -> HipError,
    pub set_device: unsafe extern "C" fn(c_int) -> HipError,
    pub malloc: unsafe extern "C" fn(*mut *mut c_void, usize) -> HipError,
    pub free: unsafe extern "C" fn(*mut c_void) -> HipError,
    pub host_malloc: unsafe extern "C" fn(*mut *mut c_void, usize, c_uint) -> HipError,
    pub host_free: unsafe extern "C" fn(*mut c_void) -> HipError,
    pub memcpy: unsafe extern "C" fn(*mut c_void, *const c_void, usize, c_int) -> HipError,
    pub memcpy_async:
        unsafe extern "C" fn(*mut c_void, *const c_void, usize, c_int, HipStream) -> HipError,
    pub memset_async: unsafe extern "C" fn(*mut c_void, c_int, usize, HipStream) -> HipError,
    pub stream_create: unsafe extern "C" fn(*mut HipStream) -> HipError,
    pub stream_destroy: unsafe extern "C" fn(HipStream) -> HipError,
    pub stream_synchronize: unsafe extern "C" fn(HipStream) -> HipError,
    pub device_synchronize: unsafe extern "C" fn() -> HipError,
    pub stream_begin_capture: Option<unsafe extern "C" fn(HipStream, c_int) -> HipError>,
    pub stream_end_capture: Option<unsafe extern "C" fn(HipStream, *mut *mut c_void) -> HipError>,
    pub graph_instantiate: Option<
        unsafe extern "C" fn(
            *mut *mut c_void,
            *mut c_void,
            *mut *mut c_void,
            *mut c_char,
            usize,
        ) -> HipError,
    >,
    pub graph_launch: Option<unsafe extern "C" fn(*mut c_void, HipStream) -> HipError>,
    pub graph_exec_destroy: Option<unsafe extern "C" fn(*mut c_void) -> HipError>,
    pub graph_destroy: Option<unsafe extern "C" fn(*mut c_void) -> HipError>,
}

/// Why the libraries could not be used: each is one line for the user.
#[derive(Debug)]
pub struct LoadError(pub String);

fn open(path: &Path, what: &str) -> Result<&'static Library, LoadError> {
    // SAFETY: loading runs the library's initialisers; both are the ROCm (or simulated) runtime
    // libraries the user pointed the probe at, which is what the probe is for. RTLD_GLOBAL lets
    // the simulated HIP runtime resolve its `rocsim_*` symbols from the simulated SDK.
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| {
        LoadError(format!(
            "no {what} found: cannot load {}: {e}",
            path.display()
        ))
    })?;
    // Never unloaded: the SDK keeps threads and callbacks into this process until exit.
    Ok(Box::leak(Box::new(lib)))
}

fn required<T: Copy>(lib: &Library, path: &Path, name: &str) -> Result<T, LoadError> {
    // SAFETY: every `T` used with this function is the C signature of `name` in the HIP or
    // rocprofiler-sdk headers.
    unsafe { lib.get::<T>(name) }.map(|s| *s).map_err(|_| {
        LoadError(format!(
            "{} does not export {name}: not a usable library",
            path.display()
        ))
    })
}

fn optional<T: Copy>(lib: &Library, name: &str) -> Option<T> {
    // SAFETY: as in `required`.
    unsafe { lib.get::<T>(name) }.ok().map(|s| *s)
}

/// The SDK's function table, shared with the simulators' test kit (which fills it from linked
/// symbols); the probe fills it here, from `dlsym`.
pub use sdk_recorder::Sdk;

/// Opens the SDK first (the simulated HIP runtime needs its symbols).
pub fn load_sdk(pair: &LibraryPair) -> Result<Sdk, LoadError> {
    let p = &pair.sdk;
    let lib = open(p, "rocprofiler-sdk library")?;
    Ok(Sdk {
        get_version: required(lib, p, "rocprofiler_get_version")?,
        force_configure: required(lib, p, "rocprofiler_force_configure")?,
        create_context: required(lib, p, "rocprofiler_create_context")?,
        start_context: required(lib, p, "rocprofiler_start_context")?,
        stop_context: required(lib, p, "rocprofiler_stop_context")?,
        create_buffer: required(lib, p, "rocprofiler_create_buffer")?,
        flush_buffer: required(lib, p, "rocprofiler_flush_buffer")?,
        configure_buffer_tracing: required(lib, p, "rocprofiler_configure_buffer_tracing_service")?,
        configure_callback_tracing: required(
            lib,
            p,
            "rocprofiler_configure_callback_tracing_service",
        )?,
        configure_external_correlation: required(
            lib,
            p,
            "rocprofiler_configure_external_correlation_id_request_service",
        )?,
        query_available_agents: required(lib, p, "rocprofiler_query_available_agents")?,
        callback_operation_name: required(
            lib,
            p,
            "rocprofiler_query_callback_tracing_kind_operation_name",
        )?,
        buffer_operation_name: required(
            lib,
            p,
            "rocprofiler_query_buffer_tracing_kind_operation_name",
        )?,
        status_name: required(lib, p, "rocprofiler_get_status_name")?,
        get_thread_id: required(lib, p, "rocprofiler_get_thread_id")?,
        push_external_correlation_id: required(lib, p, "rocprofiler_push_external_correlation_id")?,
        pop_external_correlation_id: required(lib, p, "rocprofiler_pop_external_correlation_id")?,
        sim_host_sleep_ns: optional(lib, "rocsim_host_sleep_ns"),
    })
}

pub fn load_hip(pair: &LibraryPair) -> Result<Hip, LoadError> {
    let p = &pair.hip;
    let lib = open(p, "HIP runtime")?;
    Ok(Hip {
        runtime_get_version: required(lib, p, "hipRuntimeGetVersion")?,
        get_device_count: required(lib, p, "hipGetDeviceCount")?,
        set_device: required(lib, p, "hipSetDevice")?,
        malloc: required(lib, p, "hipMalloc")?,
        free: required(lib, p, "hipFree")?,
        host_malloc: required(lib, p, "hipHostMalloc")?,
        host_free: required(lib, p, "hipHostFree")?,
        memcpy: required(lib, p, "hipMemcpy")?,
        memcpy_async: required(lib, p, "hipMemcpyAsync")?,
        memset_async: required(lib, p, "hipMemsetAsync")?,
        stream_create: required(lib, p, "hipStreamCreate")?,
        stream_destroy: required(lib, p, "hipStreamDestroy")?,
        stream_synchronize: required(lib, p, "hipStreamSynchronize")?,
        device_synchronize: required(lib, p, "hipDeviceSynchronize")?,
        stream_begin_capture: optional(lib, "hipStreamBeginCapture"),
        stream_end_capture: optional(lib, "hipStreamEndCapture"),
        graph_instantiate: optional(lib, "hipGraphInstantiate"),
        graph_launch: optional(lib, "hipGraphLaunch"),
        graph_exec_destroy: optional(lib, "hipGraphExecDestroy"),
        graph_destroy: optional(lib, "hipGraphDestroy"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ld_library_path_comes_before_the_default_install() {
        let dirs = real_library_dirs(
            None,
            Some(OsStr::new("/rocm-7.1")),
            Some(OsStr::new("/a/lib::/b/lib")),
        );
        let expected = ["/rocm-7.1/lib", "/a/lib", "/b/lib", "/opt/rocm/lib"];
        assert_eq!(dirs, expected.map(PathBuf::from));
        let dirs = real_library_dirs(None, None, Some(OsStr::new("/a/lib")));
        assert_eq!(dirs, ["/a/lib", "/opt/rocm/lib"].map(PathBuf::from));
    }

    #[test]
    fn a_chosen_folder_is_the_only_one() {
        let dirs = real_library_dirs(
            Some(Path::new("/mine")),
            Some(OsStr::new("/rocm")),
            Some(OsStr::new("/a/lib")),
        );
        assert_eq!(dirs, vec![PathBuf::from("/mine")]);
    }
}
