//! The child-process re-run now lives in `sim_test_kit::child`; this file keeps
//! `#[path = "common/child.rs"] mod child;` working.
#![allow(unused_imports)]

pub use sim_test_kit::child::*;
