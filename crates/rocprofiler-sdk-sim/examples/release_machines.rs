//! Prints one `ROCSIM_MACHINE` value per line: each ROCm release, then each unpinned shape of
//! it (docs/simulator-fidelity.md, the ledger). `tests/releases/run.sh` runs the product on
//! every line, so the list of machines has one source: `RocmRelease::unpinned`.
//!
//!   cargo run -q -p rocprofiler-sdk-sim --example release_machines [RELEASE ...]
use rocprofiler_sdk_sim::machine::RocmRelease;

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    if let Some(unknown) = wanted
        .iter()
        .find(|w| !RocmRelease::ALL.iter().any(|r| r.as_str() == w.as_str()))
    {
        let known: Vec<_> = RocmRelease::ALL.iter().map(|r| r.as_str()).collect();
        eprintln!(
            "release_machines: no release {unknown:?} (known: {})",
            known.join(", ")
        );
        std::process::exit(2);
    }
    for rocm in RocmRelease::ALL {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == rocm.as_str()) {
            continue;
        }
        let release = format!("rocm = \"{}\"", rocm.as_str());
        println!("{release}");
        for shape in rocm.unpinned() {
            println!("{release}, {}", shape.overlay);
        }
    }
}
