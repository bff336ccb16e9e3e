//! What a profiler session does to the tracer's host plane before writing the file: tsl's
//! `PostProcessSingleHostXSpace` merges the GPU API planes (`/host:CUPTI`, `/host:ROCTRACER`)
//! into `/host:CPU`, and xprof's trace viewer shows host threads only from that plane.
//! The standalone writer applies the same merge so that its files look like JAX's.
use std::collections::HashMap;

use super::plane_names::{HOST_CPU_PLANE_NAME, HOST_PLANE_NAME};
use super::xplane_proto::{x_event, x_stat, XEventMetadata, XPlane, XSpace, XStat, XStatMetadata};

/// Moves `/host:ROCTRACER` into `/host:CPU` (renaming it when there is no `/host:CPU` yet).
pub fn merge_host_api_plane(space: &mut XSpace) {
    let Some(source_index) = space
        .planes
        .iter()
        .position(|plane| plane.name == HOST_PLANE_NAME)
    else {
        return;
    };
    let mut source = space.planes.remove(source_index);
    match space
        .planes
        .iter_mut()
        .find(|plane| plane.name == HOST_CPU_PLANE_NAME)
    {
        Some(destination) => merge_plane(source, destination),
        None => {
            source.name = HOST_CPU_PLANE_NAME.to_owned();
            space.planes.insert(source_index, source);
        }
    }
}

/// The next id after `*last` that `taken` does not claim. Ids of a foreign XSpace can be
/// anything, up to `i64::MAX`: wrap instead of overflowing, and skip ids in use.
fn unused_id(last: &mut i64, taken: impl Fn(i64) -> bool) -> i64 {
    loop {
        *last = last.wrapping_add(1);
        if !taken(*last) {
            return *last;
        }
    }
}

/// Gives each source metadata the destination id of the same name, adding missing names.
fn remap_stat_metadata(source: &XPlane, destination: &mut XPlane) -> HashMap<i64, i64> {
    let mut by_name: HashMap<String, i64> = destination
        .stat_metadata
        .values()
        .map(|m| (m.name.clone(), m.id))
        .collect();
    let mut next_id = destination.stat_metadata.keys().max().copied().unwrap_or(0);
    let mut remap = HashMap::new();
    for metadata in source.stat_metadata.values() {
        let id = *by_name.entry(metadata.name.clone()).or_insert_with(|| {
            let id = unused_id(&mut next_id, |id| {
                destination.stat_metadata.contains_key(&id)
            });
            destination.stat_metadata.insert(
                id,
                XStatMetadata {
                    id,
                    ..metadata.clone()
                },
            );
            id
        });
        remap.insert(metadata.id, id);
    }
    remap
}

fn remap_stats(stats: &mut [XStat], stat_ids: &HashMap<i64, i64>) {
    for stat in stats {
        stat.metadata_id = stat_ids
            .get(&stat.metadata_id)
            .copied()
            .unwrap_or(stat.metadata_id);
        if let Some(x_stat::Value::RefValue(reference)) = &mut stat.value {
            if let Some(&id) = i64::try_from(*reference)
                .ok()
                .and_then(|r| stat_ids.get(&r))
            {
                *reference = id as u64;
            }
        }
    }
}

/// Merges `source` into `destination` (metadata by name, lines by id, offsets rebased).
pub fn merge_plane(mut source: XPlane, destination: &mut XPlane) {
    let stat_ids = remap_stat_metadata(&source, destination);
    let mut event_by_name: HashMap<String, i64> = destination
        .event_metadata
        .values()
        .map(|m| (m.name.clone(), m.id))
        .collect();
    let mut next_event_id = destination
        .event_metadata
        .keys()
        .max()
        .copied()
        .unwrap_or(0);
    let mut event_ids = HashMap::new();
    for metadata in source.event_metadata.values() {
        let id = *event_by_name
            .entry(metadata.name.clone())
            .or_insert_with(|| {
                let id = unused_id(&mut next_event_id, |id| {
                    destination.event_metadata.contains_key(&id)
                });
                let mut copy = XEventMetadata {
                    id,
                    ..metadata.clone()
                };
                remap_stats(&mut copy.stats, &stat_ids);
                destination.event_metadata.insert(id, copy);
                id
            });
        event_ids.insert(metadata.id, id);
    }
    remap_stats(&mut source.stats, &stat_ids);
    destination.stats.append(&mut source.stats);
    for mut line in source.lines {
        for event in &mut line.events {
            event.metadata_id = event_ids
                .get(&event.metadata_id)
                .copied()
                .unwrap_or(event.metadata_id);
            remap_stats(&mut event.stats, &stat_ids);
        }
        match destination
            .lines
            .iter_mut()
            .find(|existing| existing.id == line.id)
        {
            Some(existing) => {
                // Offsets are relative to the line start; rebase onto the existing line's.
                let shift_ps = line
                    .timestamp_ns
                    .saturating_sub(existing.timestamp_ns)
                    .saturating_mul(1000);
                for mut event in line.events {
                    if let Some(x_event::Data::OffsetPs(offset)) = &mut event.data {
                        *offset = offset.saturating_add(shift_ps);
                    }
                    existing.events.push(event);
                }
            }
            None => destination.lines.push(line),
        }
    }
}
