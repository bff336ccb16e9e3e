//! Seeded random workloads: a `random = { seed, count, ... }` step stands for `count`
//! launches, copies and memsets drawn from a ChaCha8 stream seeded by `seed`. The steps are
//! generated one at a time while the replay runs, so a step of any count costs the memory of
//! one step; the same seed gives the same steps on every run and build. Run again (in a
//! `repeat` group), the step continues its sequence: run `k` (from 0) is steps
//! `k * count .. (k + 1) * count` of it.
//!
//! The draw for each step (documented in SCENARIOS.md, and fixed: changing it changes every
//! seeded workload): the stream, then the action by weight, then the kernel (launch) or
//! direction (copy), then the size or duration. Each draw of `0..n` is the high 64 bits of
//! `next_u64() * n`.
use super::model::{default_copy_ns, default_memset_ns, GraphNode, RandomSpec, Step};
use crate::hip::driver::HostMemory;
use chacha20::rand_core::{Rng, SeedableRng};
use chacha20::ChaCha8Rng;

impl RandomSpec {
    /// The steps of the first run, in order.
    pub fn steps(&self) -> RandomSteps<'_> {
        RandomSteps {
            spec: self,
            draws: self.draws(),
            left: self.count,
        }
    }

    /// The step's whole sequence of draws (as long as asked for), from its first step.
    pub fn draws(&self) -> RandomDraws {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&self.seed.to_le_bytes());
        RandomDraws {
            rng: ChaCha8Rng::from_seed(key),
        }
    }
}

/// Iterator over one run of a [`RandomSpec`]'s steps.
pub struct RandomSteps<'a> {
    spec: &'a RandomSpec,
    draws: RandomDraws,
    left: u64,
}

impl Iterator for RandomSteps<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(self.draws.next_step(self.spec))
    }
}

/// Where a [`RandomSpec`]'s sequence of steps has got to.
pub struct RandomDraws {
    rng: ChaCha8Rng,
}

impl RandomDraws {
    /// Uniform in `0..n` (`n` >= 1).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.rng.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    fn within(&mut self, [lo, hi]: [u64; 2]) -> u64 {
        match (hi - lo).checked_add(1) {
            Some(span) => lo + self.below(span),
            None => self.rng.next_u64(),
        }
    }

    fn pick<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// The next step of `spec`'s sequence (`spec` being the one these draws came from).
    pub fn next_step(&mut self, spec: &RandomSpec) -> Step {
        let stream = self.pick(&spec.streams).clone();
        let [launch, copy, _] = spec.weights;
        let action = self.below(spec.weights.iter().sum());
        if action < launch {
            let kernel = self.pick(&spec.kernels).clone();
            let duration_ns = self.within(spec.kernel_ns);
            Step::Launch {
                stream,
                node: GraphNode {
                    kernel,
                    grid: spec.grid,
                    block: spec.block,
                    private_segment_size: 0,
                    group_segment_size: 0,
                    duration_ns,
                },
                module: false,
            }
        } else if action < launch + copy {
            let kind = *self.pick(&spec.copies);
            let bytes = self.within(spec.bytes);
            Step::Memcpy {
                stream: Some(stream),
                kind,
                bytes,
                src_device: None,
                dst_device: None,
                duration_ns: default_copy_ns(bytes),
                host: HostMemory::Pinned,
            }
        } else {
            let bytes = self.within(spec.bytes);
            Step::Memset {
                stream: Some(stream),
                bytes,
                duration_ns: default_memset_ns(bytes),
            }
        }
    }
}
