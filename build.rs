//! Compiles the project's `xplane.proto` into prost types with a pure-Rust protobuf compiler
//! (protox), so no `protoc` is needed (docs/build-facts.md#protobuf-in-rust).

fn main() {
    compile_xplane_proto();
    compile_cxx_bridge();
}

fn compile_xplane_proto() {
    const PROTO_ROOT: &str = "cpp/standalone";
    const XPLANE_PROTO: &str = "tsl/profiler/protobuf/xplane.proto";
    println!("cargo:rerun-if-changed={PROTO_ROOT}/{XPLANE_PROTO}");

    let descriptors = match protox::compile([XPLANE_PROTO], [PROTO_ROOT]) {
        Ok(descriptors) => descriptors,
        Err(error) => panic!("cannot parse {PROTO_ROOT}/{XPLANE_PROTO}: {error}"),
    };
    let mut config = prost_build::Config::new();
    // BTreeMap keeps the metadata maps in key order, so the same trace encodes to the same bytes.
    config.btree_map(["."]);
    if let Err(error) = config.compile_fds(descriptors) {
        panic!("cannot generate Rust code for {XPLANE_PROTO}: {error}");
    }
}

/// The cxx bridges of `src/ffi/`, one per concern.
const CXX_BRIDGES: &[&str] = &[
    "src/ffi/status.rs",
    "src/ffi/flat_xspace.rs",
    "src/ffi/tracer.rs",
    "src/ffi/collector.rs",
    "src/ffi/host.rs",
];

/// The C++ side of the cxx bridges (generated glue plus weak defaults of the C++ callbacks);
/// the headers land in `$CARGO_TARGET_DIR/cxxbridge/` for the C++ shims' build. The bridges
/// carry the C ABI's `XrtEvent`, so `include/` (its header) is on the include path.
fn compile_cxx_bridge() {
    for bridge in CXX_BRIDGES {
        println!("cargo:rerun-if-changed={bridge}");
    }
    println!("cargo:rerun-if-changed=cpp/bridge_callbacks.h");
    println!("cargo:rerun-if-changed=cpp/bridge_defaults.cc");
    println!("cargo:rerun-if-changed=include/xla_rocm_tracer.h");
    cxx_build::bridges(CXX_BRIDGES)
        .file("cpp/bridge_defaults.cc")
        .include("include")
        .std("c++17")
        .compile("xla-rocm-tracer-bridge");
}
