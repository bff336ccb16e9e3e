//! The scenario file as serde reads it: one raw type per table (`[machine]`, `[[code_object]]`,
//! `[streams]`, `[profiler]`, `[[thread]]` and its steps), every value with its span so that
//! the validation in the sibling files can name the line of a mistake. Shape errors (unknown
//! or repeated keys, wrong types) are serde's, raised here.
use super::MAX_GROUP_DEPTH;
use serde::Deserialize;
use std::cell::Cell;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    /// `[machine]`: keys of [`Machine`], each checked at its own line.
    #[serde(default)]
    pub(super) machine: BTreeMap<Spanned<String>, toml::Value>,
    #[serde(default)]
    pub(super) code_object: Vec<Spanned<RawCodeObject>>,
    #[serde(default)]
    pub(super) streams: BTreeMap<Spanned<String>, Spanned<RawStream>>,
    #[serde(default)]
    pub(super) thread: Vec<Spanned<RawThread>>,
    pub(super) profiler: Option<RawProfiler>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawProfiler {
    pub(super) max_callback_api_events: Option<u64>,
    pub(super) max_activity_api_events: Option<u64>,
    pub(super) max_annotation_strings: Option<u64>,
    pub(super) disable_wait_ms: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRandom {
    pub(super) seed: u64,
    pub(super) count: u64,
    pub(super) streams: Option<Vec<Spanned<String>>>,
    pub(super) kernels: Option<Vec<Spanned<String>>>,
    pub(super) copies: Option<Vec<Spanned<String>>>,
    pub(super) bytes: Option<[u64; 2]>,
    pub(super) duration_us: Option<[f64; 2]>,
    pub(super) weights: Option<RawWeights>,
    pub(super) grid: Option<[u32; 3]>,
    pub(super) block: Option<[u32; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWeights {
    pub(super) launch: Option<u32>,
    pub(super) memcpy: Option<u32>,
    pub(super) memset: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCodeObject {
    pub(super) device: Option<Spanned<u32>>,
    pub(super) kernels: BTreeMap<Spanned<String>, Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStream {
    pub(super) device: Option<Spanned<u32>>,
    pub(super) queue: Option<String>,
    /// The scenario thread that creates the stream.
    pub(super) thread: Option<Spanned<String>>,
    pub(super) roctx_name: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawThread {
    pub(super) name: Option<String>,
    pub(super) steps: Vec<StepAt>,
}

/// A step and where it is. Boxed: serde's and the TOML reader's generic frames hold a
/// `Spanned<RawStep>` by value, some 1.5 KB, several times for every level of `steps` groups;
/// boxed, the stack a 32-deep scenario needs to parse halves (about 750 KiB in a debug build,
/// 250 KiB in a release one).
pub(super) type StepAt = Spanned<Box<RawStep>>;

/// Declares [`RawStep`] with a hand-written `Deserialize` that reads each key in a function
/// of its own. The derived one keeps every field's temporaries in one frame (some 36 KB in a
/// debug build), and nested `steps` groups recurse through that frame: 32 groups then outgrow
/// a 2 MiB thread stack. Same rules as the derive with `deny_unknown_fields`: every field
/// optional, unknown and repeated keys refused with serde's messages.
macro_rules! raw_step {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        #[derive(Default)]
        pub(super) struct RawStep {
            $($(#[$doc])* pub(super) $field: $ty,)*
        }

        impl<'de> Deserialize<'de> for RawStep {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$(stringify!($field)),*];
                struct StepVisitor;
                impl<'de> serde::de::Visitor<'de> for StepVisitor {
                    type Value = RawStep;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a step table")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<RawStep, A::Error> {
                        let mut step = RawStep::default();
                        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                            // One result for every arm: a `?` per arm is a slot per arm.
                            let read = match key.as_ref() {
                                $(stringify!($field) => {
                                    read_field(&mut map, &mut step.$field, stringify!($field))
                                })*
                                other => Err(serde::de::Error::unknown_field(other, FIELDS)),
                            };
                            read?;
                        }
                        Ok(step)
                    }
                }
                deserializer.deserialize_struct("RawStep", FIELDS, StepVisitor)
            }
        }
    };
}

/// Reads the value of `name` into `slot`, refusing a second one.
#[inline(never)]
fn read_field<'de, A: serde::de::MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

raw_step! {
    // actions (exactly one per step)
    launch: Option<Spanned<String>>,
    graph: Option<Vec<Spanned<RawNode>>>,
    memcpy: Option<Spanned<String>>,
    memset: Option<u64>,
    sync_stream: Option<Spanned<String>>,
    sync_device: Option<bool>,
    set_device: Option<Spanned<u32>>,
    sleep_us: Option<u64>,
    bind: Option<Spanned<String>>,
    api: Option<Spanned<String>>,
    steps: Option<RawGroup>,
    enable: Option<bool>,
    disable: Option<bool>,
    set_enter: Option<Spanned<String>>,
    set_exit: Option<bool>,
    create_stream: Option<Spanned<String>>,
    random: Option<RawRandom>,
    roctx_push: Option<String>,
    roctx_pop: Option<bool>,
    roctx_mark: Option<String>,
    roctx_start: Option<String>,
    roctx_stop: Option<String>,
    // modifiers
    stream: Option<Spanned<String>>,
    module: Option<bool>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    duration_us: Option<f64>,
    private_segment_size: Option<u32>,
    group_segment_size: Option<u32>,
    bytes: Option<u64>,
    src_device: Option<Spanned<u32>>,
    dst_device: Option<Spanned<u32>>,
    host: Option<Spanned<String>>,
    queue: Option<String>,
    annotate: Option<String>,
    repeat: Option<u32>,
    event: Option<Spanned<String>>,
    exec: Option<String>,
}

/// A step's `steps = [...]`: a group. Each group holds the frames of the steps around it on
/// the parsing thread's stack (some 8 KB a level in a release build, 16 KB in a debug one),
/// and the TOML parser lets a file nest some 120 groups (its limits on a header's dotted path
/// and on inline nesting apply separately), so the depth is counted here, as groups are read,
/// and a group past [`MAX_GROUP_DEPTH`] is refused before its steps are: checked after
/// parsing, the nesting would already have overflowed the stack of the caller's thread.
pub(super) struct RawGroup(pub(super) Vec<StepAt>);

thread_local! {
    /// Groups around the step being read on this thread (only while a scenario parses).
    static GROUP_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// One level of [`GROUP_DEPTH`] while a group is read; dropping it, also on an error or an
/// unwind, gives the level back.
struct GroupLevel;

impl GroupLevel {
    fn enter() -> Result<GroupLevel, String> {
        GROUP_DEPTH.with(|depth| {
            if depth.get() >= MAX_GROUP_DEPTH {
                return Err(format!(
                    "`steps` groups nest at most {MAX_GROUP_DEPTH} deep"
                ));
            }
            depth.set(depth.get() + 1);
            Ok(GroupLevel)
        })
    }
}

impl Drop for GroupLevel {
    fn drop(&mut self) {
        GROUP_DEPTH.with(|depth| depth.set(depth.get() - 1));
    }
}

impl<'de> Deserialize<'de> for RawGroup {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let _level = GroupLevel::enter().map_err(serde::de::Error::custom)?;
        Vec::deserialize(deserializer).map(RawGroup)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNode {
    pub(super) kernel: Spanned<String>,
    pub(super) grid: Option<[u32; 3]>,
    pub(super) block: Option<[u32; 3]>,
    pub(super) duration_us: Option<f64>,
    pub(super) private_segment_size: Option<u32>,
    pub(super) group_segment_size: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::super::{refused, with_steps};

    #[test]
    fn a_step_refuses_unknown_and_repeated_keys_with_serdes_messages() {
        let message = refused(&with_steps("", "{ sync_device = true, colour = 1 }"));
        assert!(
            message.starts_with("4:1: unknown field `colour`, expected one of `launch`"),
            "{message}"
        );
        let message = refused(&with_steps("", "{ sleep_us = 1, sleep_us = 2 }"));
        assert!(message.contains("duplicate key"), "{message}");
        let message = refused(&with_steps("", "{ sleep_us = \"1\" }"));
        assert!(message.contains("invalid type: string \"1\""), "{message}");
    }

    #[test]
    fn tables_refuse_unknown_keys() {
        for (tables, key) in [
            ("[[code_object]]\nkernels = {}\nfile = \"x\"", "file"),
            ("[streams]\ns = { colour = 1 }", "colour"),
            ("[profiler]\nwait = 1", "wait"),
        ] {
            let message = refused(&with_steps(tables, "{ sync_device = true }"));
            assert!(
                message.contains(&format!("unknown field `{key}`")),
                "{message}"
            );
        }
        let message = refused("[[thread]]\nsteps = [{ sync_device = true }]\nstack = 1\n");
        assert!(message.contains("unknown field `stack`"), "{message}");
    }
}
