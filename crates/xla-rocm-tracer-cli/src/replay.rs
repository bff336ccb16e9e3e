//! `replay`: to be wired to the simulator and the tracer.
use std::path::PathBuf;

use anyhow::Result;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A scenario file (`scenarios/*.toml`).
    pub scenario: PathBuf,
    /// Where to write the `.xplane.pb` trace.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Name lanes like XLA's CUPTI collector: "Stream #0(Kernel,MemcpyH2D)".
    #[arg(long)]
    pub cuda_style_lanes: bool,
}

pub fn run(_args: ReplayArgs) -> Result<()> {
    anyhow::bail!("replay is not wired yet")
}
