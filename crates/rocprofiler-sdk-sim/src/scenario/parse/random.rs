//! `random = { seed, count, ... }` steps (SCENARIOS.md "Seeded random steps"): what a seeded
//! generator may draw from (streams, kernels, copy directions, byte and duration ranges) and
//! how often it draws each kind of step; `scenario/random.rs` expands them at replay.
use super::raw::{RawRandom, RawWeights};
use super::work::{copy_kind, NodeParts, DEFAULT_KERNEL_NS};
use super::{byte_count, ns, Validator, MAX_TOTAL_STEPS};
use crate::hip::driver::CopyKind;
use crate::scenario::model::{RandomSpec, StreamRef};
use toml::Spanned;

impl Validator<'_> {
    /// A `random = { ... }` step.
    pub(super) fn random(&self, r: RawRandom, device: u32) -> Result<RandomSpec, String> {
        if r.count == 0 {
            return Err("random: count must be >= 1".into());
        }
        if u128::from(r.count) > MAX_TOTAL_STEPS {
            return Err(format!(
                "random: count = {} is more than the limit of {MAX_TOTAL_STEPS} steps per scenario",
                r.count
            ));
        }
        let (streams, devices) = self.random_streams(r.streams, device)?;
        let kernels =
            self.random_kernels(r.kernels.unwrap_or_default(), &devices, [r.grid, r.block])?;
        let copies = random_copies(r.copies.unwrap_or_default())?;
        let weights = random_weights(r.weights.as_ref(), &kernels, &copies)?;
        let bytes = match r.bytes {
            Some([lo, hi]) => {
                byte_count("random: bytes", hi)?;
                if lo > hi {
                    return Err(format!("random: bytes = [{lo}, {hi}] must be [min, max]"));
                }
                [lo, hi]
            }
            None if weights[1] + weights[2] > 0 => {
                return Err("random: copies and memsets need `bytes = [min, max]`".into())
            }
            None => [0, 0],
        };
        let kernel_ns = match r.duration_us {
            Some([lo, hi]) => {
                let lo = ns("random: duration_us", Some(lo), 0)?;
                let hi = ns("random: duration_us", Some(hi), 0)?;
                if lo > hi {
                    return Err("random: duration_us must be [min, max]".into());
                }
                [lo, hi]
            }
            None => [DEFAULT_KERNEL_NS, DEFAULT_KERNEL_NS],
        };
        Ok(RandomSpec {
            seed: r.seed,
            count: r.count,
            streams,
            kernels,
            copies,
            bytes,
            kernel_ns,
            weights,
            grid: r.grid.unwrap_or([256, 1, 1]),
            block: r.block.unwrap_or([256, 1, 1]),
        })
    }

    /// The streams to draw from (default: the null stream), with the device of each.
    fn random_streams(
        &self,
        names: Option<Vec<Spanned<String>>>,
        device: u32,
    ) -> Result<(Vec<StreamRef>, Vec<u32>), String> {
        if names.as_ref().is_some_and(Vec::is_empty) {
            return Err(
                "random: `streams = []` names no stream (omit it for the null stream)".into(),
            );
        }
        let mut streams = Vec::new();
        let mut devices = Vec::new();
        for name in &names.unwrap_or_default() {
            let (stream, on) = self.stream(name, device).map_err(|e| e.message)?;
            streams.push(stream);
            devices.push(on);
        }
        if streams.is_empty() {
            streams.push(StreamRef::Null);
            devices.push(device);
        }
        Ok((streams, devices))
    }

    /// The kernels to draw from: each must be loaded on the device of every stream.
    fn random_kernels(
        &self,
        names: Vec<Spanned<String>>,
        devices: &[u32],
        [grid, block]: [Option<[u32; 3]>; 2],
    ) -> Result<Vec<String>, String> {
        let mut kernels = Vec::new();
        for kernel in names {
            for &on in devices {
                let parts = NodeParts {
                    grid,
                    block,
                    duration_us: None,
                    private_segment_size: None,
                    group_segment_size: None,
                };
                self.node(&kernel, on, parts, kernel.span())
                    .map_err(|e| format!("random: {}", e.message))?;
            }
            kernels.push(kernel.into_inner());
        }
        Ok(kernels)
    }
}

/// The copy directions to draw from.
fn random_copies(directions: Vec<Spanned<String>>) -> Result<Vec<CopyKind>, String> {
    directions
        .iter()
        .map(|direction| {
            copy_kind(direction.get_ref()).ok_or_else(|| {
                format!(
                    "random: unknown copy direction `{}` (expected h2d, d2h, d2d, h2h)",
                    direction.get_ref()
                )
            })
        })
        .collect()
}

/// Launch, memcpy and memset weights: by default 1 for what the step can draw, 0 for memsets.
fn random_weights(
    weights: Option<&RawWeights>,
    kernels: &[String],
    copies: &[CopyKind],
) -> Result<[u64; 3], String> {
    let weight = |w: Option<u32>, default: bool| u64::from(w.unwrap_or(u32::from(default)));
    let weights = [
        weight(weights.and_then(|w| w.launch), !kernels.is_empty()),
        weight(weights.and_then(|w| w.memcpy), !copies.is_empty()),
        weight(weights.and_then(|w| w.memset), false),
    ];
    if weights[0] > 0 && kernels.is_empty() {
        return Err("random: a launch weight needs `kernels`".into());
    }
    if weights[1] > 0 && copies.is_empty() {
        return Err("random: a memcpy weight needs `copies`".into());
    }
    if weights.iter().sum::<u64>() == 0 {
        return Err(
            "random: nothing to generate (give `kernels`, `copies` or a memset weight)".into(),
        );
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};
    use crate::hip::driver::CopyKind;
    use crate::scenario::model::{Step, StreamRef};

    const K: &str = "[[code_object]]\nkernels = { k = \"_Z1kv\" }\n[streams]\ns = {}";

    fn random(spec: &str) -> Result<crate::scenario::model::RandomSpec, String> {
        let text = with_steps(K, &format!("{{ random = {{ seed = 7, {spec} }} }}"));
        match super::super::parse(&text, std::path::Path::new("t.toml")) {
            Ok(mut s) => match s.threads.remove(0).steps.remove(0) {
                Step::Random(spec) => Ok(*spec),
                other => panic!("{other:?}"),
            },
            Err(e) => Err(e.message),
        }
    }

    #[test]
    fn a_random_step_keeps_its_pools_and_defaults() {
        let spec = random("count = 5, kernels = [\"k\"], copies = [\"h2d\", \"d2d\"], bytes = [1, 9], streams = [\"s\"]")
            .unwrap();
        assert_eq!((spec.seed, spec.count), (7, 5));
        assert!(matches!(&spec.streams[..], [StreamRef::Named(n)] if n == "s"));
        assert_eq!(spec.kernels, ["k"]);
        assert_eq!(
            spec.copies,
            [CopyKind::HostToDevice, CopyKind::DeviceToDevice]
        );
        assert_eq!(spec.weights, [1, 1, 0]);
        assert_eq!((spec.bytes, spec.kernel_ns), ([1, 9], [10_000, 10_000]));
        let spec =
            random("count = 1, weights = { memset = 2 }, bytes = [4, 4], duration_us = [1, 2]")
                .unwrap();
        assert!(matches!(&spec.streams[..], [StreamRef::Null]));
        assert_eq!((spec.weights, spec.kernel_ns), ([0, 0, 2], [1000, 2000]));
        let s = parsed(&with_steps(
            K,
            "{ random = { seed = 1, count = 3, kernels = [\"k\"] } }",
        ));
        assert!(matches!(&s.threads[0].steps[..], [Step::Random(_)]));
    }

    #[test]
    fn random_step_errors() {
        let cases = [
            (
                "count = 0, kernels = [\"k\"]",
                "random: count must be >= 1".to_owned(),
            ),
            (
                "count = 100000001, kernels = [\"k\"]",
                "random: count = 100000001 is more than the limit of 100000000 steps per scenario"
                    .to_owned(),
            ),
            (
                "count = 1, streams = [], kernels = [\"k\"]",
                "random: `streams = []` names no stream (omit it for the null stream)".to_owned(),
            ),
            (
                "count = 1, streams = [\"t\"], kernels = [\"k\"]",
                "unknown stream `t` (known: s, null, legacy, per_thread)".to_owned(),
            ),
            (
                "count = 1, kernels = [\"x\"]",
                "random: unknown kernel `x` (known: k)".to_owned(),
            ),
            (
                "count = 1, copies = [\"up\"], bytes = [1, 1]",
                "random: unknown copy direction `up` (expected h2d, d2h, d2d, h2h)".to_owned(),
            ),
            (
                "count = 1, weights = { launch = 1 }",
                "random: a launch weight needs `kernels`".to_owned(),
            ),
            (
                "count = 1, kernels = [\"k\"], weights = { memcpy = 1 }",
                "random: a memcpy weight needs `copies`".to_owned(),
            ),
            (
                "count = 1",
                "random: nothing to generate (give `kernels`, `copies` or a memset weight)"
                    .to_owned(),
            ),
            (
                "count = 1, copies = [\"h2d\"]",
                "random: copies and memsets need `bytes = [min, max]`".to_owned(),
            ),
            (
                "count = 1, copies = [\"h2d\"], bytes = [2, 1]",
                "random: bytes = [2, 1] must be [min, max]".to_owned(),
            ),
            (
                "count = 1, kernels = [\"k\"], duration_us = [2, 1]",
                "random: duration_us must be [min, max]".to_owned(),
            ),
        ];
        for (spec, expected) in cases {
            assert_eq!(random(spec).err(), Some(expected), "{spec}");
        }
        let message = refused(&with_steps(K, "{ random = { count = 1 } }"));
        assert!(message.contains("missing field `seed`"), "{message}");
    }
}
