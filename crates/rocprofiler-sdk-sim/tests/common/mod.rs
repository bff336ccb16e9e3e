//! The recording tool now lives in the `sim-test-kit` crate (`sim_test_kit::recording`), shared
//! with hip-runtime-sim's tests; this module keeps `mod common; use common::*;` working.
#![allow(unused_imports)]

pub use sim_test_kit::recording::*;
