//! The prost types generated from `cpp/standalone/tsl/profiler/protobuf/xplane.proto`
//! (package `tensorflow.profiler`) by the root `build.rs`.
#![allow(missing_docs, clippy::all)]
include!(concat!(env!("OUT_DIR"), "/tensorflow.profiler.rs"));
