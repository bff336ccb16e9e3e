//! The battery: a fixed list of HIP calls that needs no compiled GPU code, run under the
//! recording tool. Each step is numbered so the tool can attribute what the SDK does to it.

use crate::libs::{Hip, HipError, HipStream, Sdk};
use crate::tool;
use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

/// What the battery itself saw of one step: its HIP calls with their return codes, whether it
/// was skipped and why, and observations only the program can make (address reuse).
#[derive(Clone, Debug, Default)]
pub struct StepOutcome {
    pub name: String,
    pub skipped: Option<String>,
    pub calls: Vec<String>,
    pub notes: Vec<String>,
}

/// `hipErrorNotSupported`.
const HIP_ERROR_NOT_SUPPORTED: HipError = 801;
const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
/// Copy sizes: 16 and 32 KiB bracket ROCclr's blit size (`GPU_FORCE_BLIT_COPY_SIZE`, 16 KiB),
/// so the report shows the release's small-copy shape and threshold (`ledger.rs`).
pub const COPY_SIZES: [(usize, &str); 5] = [
    (4 * KIB, "4k"),
    (16 * KIB, "16k"),
    (32 * KIB, "32k"),
    (MIB, "1m"),
    (64 * MIB, "64m"),
];

// hipMemcpyKind
const H2H: c_int = 0;
const H2D: c_int = 1;
const D2H: c_int = 2;
const D2D: c_int = 3;

/// `hipStreamLegacy` and `hipStreamPerThread` as HIP's headers define them.
const STREAM_LEGACY: HipStream = 1 as HipStream;
const STREAM_PER_THREAD: HipStream = 2 as HipStream;

/// The value `external_id_pushed` pushes; callbacks that carry it show `ext=77`.
const PUSHED_EXTERNAL_ID: u64 = 77;

/// How long the battery waits for records that are still on their way (a lagging completion
/// after a synchronize): virtual time on the simulator, real time on a real SDK.
const SETTLE_NS: u64 = 500_000_000;

pub struct Battery {
    hip: Hip,
    sdk: Sdk,
    pub steps: Vec<StepOutcome>,
    dev_a: *mut c_void,
    dev_b: *mut c_void,
    pinned: *mut c_void,
    pageable: Vec<u8>,
    stream: HipStream,
}

impl Battery {
    pub fn new(hip: Hip, sdk: Sdk) -> Self {
        Battery {
            hip,
            sdk,
            steps: Vec::new(),
            dev_a: null_mut(),
            dev_b: null_mut(),
            pinned: null_mut(),
            pageable: Vec::new(),
            stream: null_mut(),
        }
    }

    fn begin(&mut self, name: &str) {
        tool::set_step(self.steps.len());
        self.steps.push(StepOutcome {
            name: name.to_string(),
            ..Default::default()
        });
    }

    fn current(&mut self) -> &mut StepOutcome {
        self.steps.last_mut().expect("a step was begun")
    }

    fn call(&mut self, name: &str, rc: HipError) -> bool {
        self.current()
            .calls
            .push(format!("{name} -> {}", hip_status(rc)));
        rc == 0
    }

    fn skip(&mut self, name: &str, why: String) {
        self.begin(name);
        self.current().skipped = Some(why);
    }

    /// Lets records that lag behind their call arrive: the simulator's own wait moves its
    /// virtual clock; against a real SDK the probe sleeps.
    pub fn settle(&self) {
        match self.sdk.sim_host_sleep_ns {
            // SAFETY: `rocsim_host_sleep_ns(u64)` of the simulated SDK.
            Some(sleep) => unsafe { sleep(SETTLE_NS) },
            None => std::thread::sleep(std::time::Duration::from_nanos(SETTLE_NS)),
        }
    }

    /// The step's synchronizing call returned: mark it, then flush at once, so the report can
    /// tell records that were there when the program could first look from those that came
    /// later.
    fn synced(&mut self) {
        tool::mark("sync");
        tool::flush("after sync");
        tool::mark("flushed");
    }

    pub fn run(&mut self) {
        let h = self.hip;
        self.begin("setup");
        // SAFETY: (this holds for every HIP call in this file) the function pointers have the
        // HIP runtime's C signatures; out-parameters are valid locals; buffers are at least as
        // large as the sizes passed (64 MiB each, the largest copy).
        unsafe {
            let rc = (h.set_device)(0);
            self.call("hipSetDevice", rc);
            let mut p = null_mut();
            let rc = (h.malloc)(&mut p, 64 * MIB);
            self.call("hipMalloc", rc);
            self.dev_a = p;
            let mut p = null_mut();
            let rc = (h.malloc)(&mut p, 64 * MIB);
            self.call("hipMalloc", rc);
            self.dev_b = p;
            let mut p = null_mut();
            let rc = (h.host_malloc)(&mut p, 64 * MIB, 0);
            self.call("hipHostMalloc", rc);
            self.pinned = p;
            self.pageable = vec![7u8; 64 * MIB];
            let mut s = null_mut();
            let rc = (h.stream_create)(&mut s);
            self.call("hipStreamCreate", rc);
            self.stream = s;
        }
        if self.dev_a.is_null() || self.dev_b.is_null() || self.pinned.is_null() {
            self.current()
                .notes
                .push("allocation failed; the remaining steps were not run".into());
            return;
        }
        self.streams();
        self.on_stream("null_stream", null_mut());
        self.memset();
        self.pushed_external_id();
        self.copies();
        self.graph();
        self.two_threads();
        self.disable_after_sync();
        self.teardown();
    }

    fn streams(&mut self) {
        let h = self.hip;
        self.begin("stream_create_destroy");
        // SAFETY: see `run`.
        unsafe {
            let mut first = null_mut();
            let rc = (h.stream_create)(&mut first);
            self.call("hipStreamCreate", rc);
            let rc = (h.stream_destroy)(first);
            self.call("hipStreamDestroy", rc);
            let mut second = null_mut();
            let rc = (h.stream_create)(&mut second);
            self.call("hipStreamCreate", rc);
            let reused = if first == second { "yes" } else { "no" };
            self.current().notes.push(format!(
                "the second stream has the destroyed first stream's address: {reused}"
            ));
            let rc = (h.memset_async)(self.dev_a, 0, 4 * KIB, second);
            self.call("hipMemsetAsync", rc);
            let rc = (h.stream_synchronize)(second);
            self.call("hipStreamSynchronize", rc);
            self.synced();
            let rc = (h.stream_destroy)(second);
            self.call("hipStreamDestroy", rc);
        }
    }

    fn on_stream(&mut self, name: &str, stream: HipStream) {
        let h = self.hip;
        self.begin(name);
        // SAFETY: see `run`.
        unsafe {
            let rc = (h.memset_async)(self.dev_a, 1, 4 * KIB, stream);
            self.call("hipMemsetAsync", rc);
            let rc = (h.stream_synchronize)(stream);
            self.call("hipStreamSynchronize", rc);
        }
        self.synced();
    }

    /// `legacy` or `per-thread` alone: the setup it needs, then a memset and a synchronize on
    /// it, nothing else. The main battery never touches these two streams: SDK 1.0.x's stream
    /// map aborts the process on a HIP_STREAM SET for a stream it never saw created
    /// (std::out_of_range; docs/sdk-facts.md, SCENARIOS.md "Stream map"), and no tree of a
    /// later release says for certain it does not, so each runs in a child process of its own
    /// on every SDK version (docs/probe.md "Child processes").
    pub fn alone(&mut self, stream: &str) {
        let h = self.hip;
        let (name, s) = if stream == "legacy" {
            ("legacy_stream", STREAM_LEGACY)
        } else {
            ("per_thread_stream", STREAM_PER_THREAD)
        };
        self.begin("setup");
        // SAFETY: see `run`.
        unsafe {
            let rc = (h.set_device)(0);
            self.call("hipSetDevice", rc);
            let mut p = null_mut();
            let rc = (h.malloc)(&mut p, 4 * KIB);
            self.call("hipMalloc", rc);
            self.dev_a = p;
        }
        if self.dev_a.is_null() {
            return;
        }
        self.on_stream(name, s);
        self.settle();
        tool::flush("final");
    }

    fn memset(&mut self) {
        let h = self.hip;
        let s = self.stream;
        self.begin("memset_async");
        // SAFETY: see `run`.
        unsafe {
            let rc = (h.memset_async)(self.dev_a, 2, MIB, s);
            self.call("hipMemsetAsync", rc);
            let rc = (h.stream_synchronize)(s);
            self.call("hipStreamSynchronize", rc);
        }
        self.synced();
    }

    /// A memset with an external correlation id pushed on the callback context: which
    /// callbacks carry it (the SDK leaves it off HIP_STREAM SET ENTER; no machine key).
    fn pushed_external_id(&mut self) {
        let h = self.hip;
        let s = self.stream;
        self.begin("external_id_pushed");
        tool::push_external(PUSHED_EXTERNAL_ID);
        // SAFETY: see `run`.
        unsafe {
            let rc = (h.memset_async)(self.dev_a, 3, 4 * KIB, s);
            self.call("hipMemsetAsync", rc);
            let rc = (h.stream_synchronize)(s);
            self.call("hipStreamSynchronize", rc);
        }
        self.synced();
        tool::pop_external();
    }

    fn copies(&mut self) {
        let h = self.hip;
        let s = self.stream;
        for (dir, kind) in [("h2d", H2D), ("d2h", D2H), ("d2d", D2D), ("h2h", H2H)] {
            let memories: &[&str] = if kind == D2D {
                &["device"]
            } else {
                &["pinned", "pageable"]
            };
            // Host-to-host copies are CPU copies whatever their size: one size shows it.
            let sizes = if kind == H2H {
                &[(MIB, "1m")][..]
            } else {
                &COPY_SIZES[..]
            };
            for &memory in memories {
                for &(size, size_name) in sizes {
                    for mode in ["sync", "async"] {
                        let host = match memory {
                            "pinned" => self.pinned,
                            "pageable" => self.pageable.as_mut_ptr().cast(),
                            _ => self.dev_b,
                        };
                        let (dst, src) = match kind {
                            D2H => (host, self.dev_a),
                            // From `memory` into the other kind of host memory.
                            H2H if memory == "pinned" => (self.pageable.as_mut_ptr().cast(), host),
                            H2H => (self.pinned, host),
                            _ => (self.dev_a, host),
                        };
                        self.begin(&format!("copy_{dir}_{memory}_{size_name}_{mode}"));
                        // SAFETY: see `run`.
                        unsafe {
                            if mode == "sync" {
                                let rc = (h.memcpy)(dst, src, size, kind);
                                self.call("hipMemcpy", rc);
                            } else {
                                let rc = (h.memcpy_async)(dst, src, size, kind, s);
                                self.call("hipMemcpyAsync", rc);
                                let rc = (h.stream_synchronize)(s);
                                self.call("hipStreamSynchronize", rc);
                            }
                        }
                        self.synced();
                    }
                }
            }
        }
    }

    fn graph(&mut self) {
        let h = self.hip;
        let (
            Some(begin),
            Some(end),
            Some(instantiate),
            Some(launch),
            Some(exec_destroy),
            Some(destroy),
        ) = (
            h.stream_begin_capture,
            h.stream_end_capture,
            h.graph_instantiate,
            h.graph_launch,
            h.graph_exec_destroy,
            h.graph_destroy,
        )
        else {
            self.skip(
                "graph_capture_launch",
                "skipped: the HIP runtime does not export stream capture (hipStreamBeginCapture, \
                 hipStreamEndCapture) and the graph calls"
                    .into(),
            );
            return;
        };
        self.begin("graph_capture_launch");
        // SAFETY: see `run`; the graph handles come from the runtime.
        unsafe {
            let mut s = null_mut();
            let rc = (h.stream_create)(&mut s);
            self.call("hipStreamCreate", rc);
            // hipStreamCaptureModeGlobal
            let rc = begin(s, 0);
            self.call("hipStreamBeginCapture", rc);
            if rc == HIP_ERROR_NOT_SUPPORTED {
                // A runtime that exports stream capture without modelling it (the simulated
                // one): nothing was captured, so there is no graph to launch.
                let rc = (h.stream_destroy)(s);
                self.call("hipStreamDestroy", rc);
                return;
            }
            let rc = (h.memset_async)(self.dev_a, 4, 4 * KIB, s);
            self.call("hipMemsetAsync", rc);
            let mut graph = null_mut();
            let rc = end(s, &mut graph);
            self.call("hipStreamEndCapture", rc);
            let mut exec = null_mut();
            let rc = instantiate(&mut exec, graph, null_mut(), null_mut(), 0);
            self.call("hipGraphInstantiate", rc);
            let rc = launch(exec, s);
            self.call("hipGraphLaunch", rc);
            let rc = (h.stream_synchronize)(s);
            self.call("hipStreamSynchronize", rc);
            self.synced();
            let rc = exec_destroy(exec);
            self.call("hipGraphExecDestroy", rc);
            let rc = destroy(graph);
            self.call("hipGraphDestroy", rc);
            let rc = (h.stream_destroy)(s);
            self.call("hipStreamDestroy", rc);
        }
    }

    /// Two threads, one after the other (so the report does not depend on scheduling), each
    /// with its own stream: the callbacks of each thread's calls must arrive on that thread.
    fn two_threads(&mut self) {
        self.begin("two_threads");
        let dev = self.dev_a as usize;
        for worker in ["worker-1", "worker-2"] {
            let h = self.hip;
            let calls = std::thread::scope(|scope| {
                scope
                    .spawn(move || {
                        tool::set_thread_label(worker);
                        let mut calls = Vec::new();
                        // SAFETY: see `run`.
                        unsafe {
                            let mut s = null_mut();
                            let rc = (h.stream_create)(&mut s);
                            calls.push(format!("{worker}: hipStreamCreate -> {}", hip_status(rc)));
                            let rc = (h.memset_async)(dev as *mut c_void, 5, 4 * KIB, s);
                            calls.push(format!("{worker}: hipMemsetAsync -> {}", hip_status(rc)));
                            let rc = (h.stream_synchronize)(s);
                            calls.push(format!(
                                "{worker}: hipStreamSynchronize -> {}",
                                hip_status(rc)
                            ));
                            tool::mark("sync");
                            tool::flush("after sync");
                            tool::mark("flushed");
                            let rc = (h.stream_destroy)(s);
                            calls.push(format!("{worker}: hipStreamDestroy -> {}", hip_status(rc)));
                        }
                        calls
                    })
                    .join()
            });
            match calls {
                Ok(calls) => self.current().calls.extend(calls),
                Err(_) => self.current().notes.push(format!("{worker} panicked")),
            }
        }
    }

    /// The last traced step: stop both contexts right after the synchronize returned, as a
    /// profiler session's end does, then see what still arrives.
    fn disable_after_sync(&mut self) {
        let h = self.hip;
        let s = self.stream;
        self.begin("disable_after_sync");
        // SAFETY: see `run`.
        unsafe {
            let rc = (h.memset_async)(self.dev_a, 6, MIB, s);
            self.call("hipMemsetAsync", rc);
            let rc = (h.stream_synchronize)(s);
            self.call("hipStreamSynchronize", rc);
        }
        tool::mark("sync");
        tool::stop();
        tool::mark("stopped");
        self.settle();
        tool::flush("after stop");
        tool::mark("flushed");
        tool::stop_edges();
    }

    /// Frees everything with the contexts stopped (nothing of it is reported).
    fn teardown(&mut self) {
        let h = self.hip;
        self.begin("teardown");
        // SAFETY: see `run`; each pointer came from the matching allocation.
        unsafe {
            (h.stream_destroy)(self.stream);
            (h.device_synchronize)();
            (h.free)(self.dev_a);
            (h.free)(self.dev_b);
            (h.host_free)(self.pinned);
        }
        self.settle();
        tool::flush("final");
    }
}

pub fn hip_status(rc: HipError) -> String {
    if rc == 0 {
        "hipSuccess".into()
    } else {
        format!("hipError {rc}")
    }
}
