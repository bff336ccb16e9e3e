//! Compiles the project's `xplane.proto` into prost types with a pure-Rust protobuf compiler
//! (protox), so no `protoc` is needed (build-and-tools.md §8).

fn main() {
    compile_xplane_proto();
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
