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

/// The C++ side of `src/ffi/bridge.rs` (generated glue plus weak defaults of the C++ callbacks);
/// the headers land in `$CARGO_TARGET_DIR/cxxbridge/` for the C++ shims' build.
fn compile_cxx_bridge() {
    println!("cargo:rerun-if-changed=src/ffi/bridge.rs");
    println!("cargo:rerun-if-changed=cpp/bridge_callbacks.h");
    println!("cargo:rerun-if-changed=cpp/bridge_defaults.cc");
    cxx_build::bridge("src/ffi/bridge.rs")
        .file("cpp/bridge_defaults.cc")
        .std("c++17")
        .compile("xla-rocm-tracer-bridge");
}
