//! A small `XPlaneBuilder`: hands out event and stat metadata ids by name, in creation order
//! from 1 as tsl's builder does, so the same sequence of calls gives the same plane.
// Fx, not SipHash: the names are ours (no untrusted keys), and SipHashing a name per stat was
// about a sixth of export's instructions (benches/run.sh, export_instructions).
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;

use rustc_hash::{FxBuildHasher, FxHashMap};

use super::details_input::DetailsInput;
use super::xplane_proto::{x_stat, XEventMetadata, XPlane, XStat};
use super::xspace_sink::{shown_event_name, stat_metadata_of, XSpaceSink};

pub(crate) struct PlaneBuilder {
    plane: XPlane,
    event_metadata_ids: FxHashMap<String, i64>,
    /// Stat metadata names, id `i` at `i - 1`: a plane can have a name per distinct
    /// annotation, so each is held once, until the sink takes them.
    stat_names: Vec<Arc<str>>,
    /// The positions in `stat_names` by the name's hash.
    stat_metadata_ids: HashTable<u32>,
    /// The details stats already made on this plane, by what they were made from.
    details_stats: FxHashMap<DetailsInput, Vec<XStat>>,
    /// The last details looked up: consecutive events of a line mostly share their inputs,
    /// and comparing an input is cheaper than hashing it.
    last_details: Option<(DetailsInput, Vec<XStat>)>,
    /// The metadata ids of the stats most events carry, once handed out (0: not yet), so
    /// that their names are not hashed per event.
    per_event_stat_ids: [i64; PerEventStat::COUNT],
    /// How many event and stat metadata names a sink was told ([`PlaneBuilder::tell_names`]).
    told: (usize, usize),
}

/// The stats most events carry: `device_id`, `correlation_id`, `scope_range_id`.
#[derive(Copy, Clone, Debug)]
pub(crate) enum PerEventStat {
    Device,
    Correlation,
    ScopeRange,
}

impl PerEventStat {
    const COUNT: usize = 3;

    fn name(self) -> &'static str {
        match self {
            PerEventStat::Device => "device_id",
            PerEventStat::Correlation => "correlation_id",
            PerEventStat::ScopeRange => "scope_range_id",
        }
    }
}

impl PlaneBuilder {
    pub(crate) fn new(id: i64, name: impl Into<String>) -> PlaneBuilder {
        PlaneBuilder {
            plane: XPlane {
                id,
                name: name.into(),
                ..XPlane::default()
            },
            event_metadata_ids: FxHashMap::default(),
            stat_names: Vec::new(),
            stat_metadata_ids: HashTable::new(),
            details_stats: FxHashMap::default(),
            last_details: None,
            per_event_stat_ids: [0; PerEventStat::COUNT],
            told: (0, 0),
        }
    }

    pub(crate) fn event_metadata_id(&mut self, name: &str) -> i64 {
        if let Some(&id) = self.event_metadata_ids.get(name) {
            return id;
        }
        let id = self.plane.event_metadata.len() as i64 + 1;
        self.plane.event_metadata.insert(
            id,
            XEventMetadata {
                id,
                name: name.to_owned(),
                ..XEventMetadata::default()
            },
        );
        self.event_metadata_ids.insert(name.to_owned(), id);
        id
    }

    pub(crate) fn stat_metadata_id(&mut self, name: &str) -> i64 {
        let hash = FxBuildHasher.hash_one(name);
        let names = &self.stat_names;
        if let Some(&at) = self
            .stat_metadata_ids
            .find(hash, |&at| *names[at as usize] == *name)
        {
            return i64::from(at) + 1;
        }
        let at = self.stat_names.len() as u32;
        self.stat_names.push(Arc::from(name));
        let names = &self.stat_names;
        self.stat_metadata_ids
            .insert_unique(hash, at, |&at| FxBuildHasher.hash_one(&*names[at as usize]));
        i64::from(at) + 1
    }

    /// [`PlaneBuilder::stat_metadata_id`] of `stat`'s name (the same id, in the same order).
    pub(crate) fn per_event_stat_id(&mut self, stat: PerEventStat) -> i64 {
        let known = self.per_event_stat_ids[stat as usize];
        if known != 0 {
            return known;
        }
        let id = self.stat_metadata_id(stat.name());
        self.per_event_stat_ids[stat as usize] = id;
        id
    }

    pub(crate) fn stat(&mut self, name: &str, value: x_stat::Value) -> XStat {
        XStat {
            metadata_id: self.stat_metadata_id(name),
            value: Some(value),
        }
    }

    pub(crate) fn uint64_stat(&mut self, name: &str, value: u64) -> XStat {
        self.stat(name, x_stat::Value::Uint64Value(value))
    }

    pub(crate) fn int64_stat(&mut self, name: &str, value: i64) -> XStat {
        self.stat(name, x_stat::Value::Int64Value(value))
    }

    pub(crate) fn str_stat(&mut self, name: &str, value: &str) -> XStat {
        self.stat(name, x_stat::Value::StrValue(value.to_owned()))
    }

    /// A string stored once as the name of a stat metadata and referenced by id, as tsl does
    /// for repeated strings (kernel details, tf_op).
    pub(crate) fn ref_stat(&mut self, name: &str, value: &str) -> XStat {
        let value_id = self.stat_metadata_id(value) as u64;
        self.stat(name, x_stat::Value::RefValue(value_id))
    }

    /// tsl's `ParseAndAddStatValue`: an int64, else a uint64, else a double, else a ref string.
    pub(crate) fn parsed_stat(&mut self, name: &str, value: &str) -> XStat {
        let trimmed = value.trim_ascii();
        if let Ok(number) = trimmed.parse::<i64>() {
            self.int64_stat(name, number)
        } else if let Ok(number) = trimmed.parse::<u64>() {
            self.uint64_stat(name, number)
        } else if let Ok(number) = trimmed.parse::<f64>() {
            self.stat(name, x_stat::Value::DoubleValue(number))
        } else {
            self.ref_stat(name, value)
        }
    }

    pub(crate) fn details_stats(&mut self, input: &DetailsInput) -> Option<&[XStat]> {
        let is_last = matches!(&self.last_details, Some((last, _)) if last == input);
        if !is_last {
            let known = self.details_stats.get(input)?;
            let (last_input, last_stats) = self
                .last_details
                .get_or_insert_with(|| (*input, Vec::new()));
            *last_input = *input;
            last_stats.clone_from(known);
        }
        self.last_details
            .as_ref()
            .map(|(_, stats)| stats.as_slice())
    }

    pub(crate) fn remember_details_stats(&mut self, input: DetailsInput, stats: Vec<XStat>) {
        self.details_stats.insert(input, stats);
    }

    /// Tells `sink` the names of the metadata handed out since the last call (ids are handed
    /// out in order from 1), so that it knows them before the events that use them.
    pub(crate) fn tell_names(&mut self, sink: &mut impl XSpaceSink) {
        let (events, stats) = self.told;
        if events == self.plane.event_metadata.len() && stats == self.stat_names.len() {
            return;
        }
        for id in events + 1..=self.plane.event_metadata.len() {
            if let Some(metadata) = self.plane.event_metadata.get(&(id as i64)) {
                sink.name_event_metadata(metadata.id, shown_event_name(metadata));
            }
        }
        for (index, name) in self.stat_names.iter().enumerate().skip(stats) {
            sink.name_stat_metadata(index as i64 + 1, name);
        }
        self.told = (self.plane.event_metadata.len(), self.stat_names.len());
    }

    pub(crate) fn add_plane_stat(&mut self, stat: XStat) {
        self.plane.stats.push(stat);
    }

    /// The plane without lines (they went to a sink): id, name, metadata and stats.
    pub(crate) fn finish(self) -> XPlane {
        let mut plane = self.plane;
        plane.stat_metadata = stat_metadata_of(self.stat_names);
        plane
    }

    /// Hands the plane without lines (they went to `sink`) to `sink`: id, name, metadata and
    /// stats.
    pub(crate) fn finish_into(self, sink: &mut impl XSpaceSink) {
        drop(self.stat_metadata_ids);
        sink.finish_plane_with_stat_names(self.plane, self.stat_names);
    }
}
