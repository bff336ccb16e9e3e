//! What a caller may choose about an export: how device lines are named, and what a device lane
//! stands for (docs/xla-interface.md#stream-lanes).

/// Choices that change the exported trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Name device lines like XLA's CUPTI collector, `"Stream #0(Kernel,MemcpyH2D)"`, instead
    /// of the ROCm collector's plain `"Stream #0"`.
    pub cuda_style_line_names: bool,
    /// One device lane per HIP stream (the default) or per HSA queue.
    pub group_by: GroupBy,
}

/// What a device lane stands for (docs/xla-interface.md#stream-lanes).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum GroupBy {
    /// One lane per HIP stream, `Stream #n`, as XLA's collector does.
    #[default]
    Stream,
    /// One lane per HSA queue, `Queue #n` (rocprofv3's `--group-by-queue`): which hardware
    /// queue the runtime put each stream's work on. Copies have no queue and get one lane.
    Queue,
}

impl GroupBy {
    /// Parses `stream` or `queue` (any case, surrounding spaces ignored).
    pub fn parse(text: &str) -> Option<GroupBy> {
        match text.trim().to_ascii_lowercase().as_str() {
            "stream" => Some(GroupBy::Stream),
            "queue" => Some(GroupBy::Queue),
            _ => None,
        }
    }
}
