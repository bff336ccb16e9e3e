//! What the details stats of an event are made from. Events with equal inputs on one plane get
//! equal stats, so the export formats each input once per plane (`memoized_details` in
//! event_stats.rs, the memo in plane_builder.rs): formatting a kernel's details string,
//! occupancy included, cost more instructions than the rest of the event's export
//! (benches/run.sh, `xla_export_instructions`).

use crate::event::{MemoryKind, KERNEL_WORDS};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DetailsInput {
    /// A kernel's fields (`KernelDetails::to_array`) and its device.
    Kernel {
        fields: [u32; KERNEL_WORDS],
        gfx_target_version: u32,
        cu_count: u32,
    },
    /// A copy, whether the SDK recorded it as a copy or as the blit kernel that did it: the
    /// fields of its `memcpy_details`.
    Copy {
        num_bytes: u64,
        destination: u32,
        is_async: bool,
        src_kind: MemoryKind,
        dst_kind: MemoryKind,
    },
}
