//! XPlane's protobuf encoding written by hand, as prost writes it (xspace_encoder.rs streams an
//! XSpace with these): the field numbers of `xplane.proto` a plane and a line are split at,
//! and the lengths and map entries of a plane's fields after its lines. prost leaves out fields
//! of default value, so these do too.
use prost::encoding::{encode_key, encode_varint, int64, message, WireType};
use prost::Message;

use super::xplane_proto::{XPlane, XStatMetadata};

/// `XSpace.planes`, `XPlane.lines` and `XLine.events`.
pub(super) const SPACE_PLANES_TAG: u32 = 1;
pub(super) const PLANE_LINES_TAG: u32 = 3;
pub(super) const LINE_EVENTS_TAG: u32 = 4;
/// `XPlane`'s fields: before its lines, and after them.
pub(super) const PLANE_ID_TAG: u32 = 1;
pub(super) const PLANE_NAME_TAG: u32 = 2;
pub(super) const PLANE_EVENT_METADATA_TAG: u32 = 4;
pub(super) const PLANE_STAT_METADATA_TAG: u32 = 5;
pub(super) const PLANE_STATS_TAG: u32 = 6;

/// `metadata` made stat metadata `id` named `name` (its buffer reused).
pub(super) fn name_stat_metadata(metadata: &mut XStatMetadata, id: i64, name: &str) {
    metadata.id = id;
    metadata.name.clear();
    metadata.name.push_str(name);
}

/// The length of `plane`'s fields after its lines, as `XSpaceEncoder::write_plane` writes
/// them.
pub(super) fn plane_tail_len(plane: &XPlane) -> usize {
    let entries = |tag: u32, len: usize| encoded_len_delimited(tag, len);
    plane
        .event_metadata
        .iter()
        .map(|(id, metadata)| entries(PLANE_EVENT_METADATA_TAG, map_entry_len(*id, metadata)))
        .sum::<usize>()
        + plane
            .stat_metadata
            .iter()
            .map(|(id, metadata)| entries(PLANE_STAT_METADATA_TAG, map_entry_len(*id, metadata)))
            .sum::<usize>()
        + message::encoded_len_repeated(PLANE_STATS_TAG, &plane.stats)
}

pub(super) fn encoded_len_delimited(tag: u32, len: usize) -> usize {
    prost::encoding::key_len(tag) + prost::encoding::encoded_len_varint(len as u64) + len
}

/// The length of a map entry `{1: id, 2: value}` without its key and length, leaving out
/// fields of default value as prost does.
pub(super) fn map_entry_len<M: Message + PartialEq + Default>(id: i64, value: &M) -> usize {
    let key = if id == 0 {
        0
    } else {
        int64::encoded_len(1, &id)
    };
    let value = if *value == M::default() {
        0
    } else {
        message::encoded_len(2, value)
    };
    key + value
}

/// One entry of a protobuf map field `tag` from `i64` to a message, as prost encodes it.
pub(super) fn encode_map_entry<M: Message + PartialEq + Default>(
    tag: u32,
    id: i64,
    value: &M,
    buffer: &mut Vec<u8>,
) {
    encode_key(tag, WireType::LengthDelimited, buffer);
    encode_varint(map_entry_len(id, value) as u64, buffer);
    if id != 0 {
        int64::encode(1, &id, buffer);
    }
    if *value != M::default() {
        message::encode(2, value, buffer);
    }
}
