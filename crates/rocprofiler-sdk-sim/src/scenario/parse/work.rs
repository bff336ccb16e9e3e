//! The steps that submit device work (SCENARIOS.md "Steps"): `launch`, `graph` (its nodes are
//! launches), `memcpy` and `memset`, with their streams, kernels, sizes and durations.
use super::raw::{RawNode, RawStep};
use super::{byte_count, ns, Validator};
use crate::hip::driver::{CopyKind, HostMemory};
use crate::scenario::error::ScenarioError;
use crate::scenario::model::{default_copy_ns, default_memset_ns, GraphNode, Step};
use std::ops::Range;
use toml::Spanned;

/// A kernel's duration without `duration_us`: 10 µs.
pub(super) const DEFAULT_KERNEL_NS: u64 = 10_000;

pub(super) struct NodeParts {
    pub(super) grid: Option<[u32; 3]>,
    pub(super) block: Option<[u32; 3]>,
    pub(super) duration_us: Option<f64>,
    pub(super) private_segment_size: Option<u32>,
    pub(super) group_segment_size: Option<u32>,
}

/// A copy direction as steps spell it.
pub(super) fn copy_kind(direction: &str) -> Option<CopyKind> {
    Some(match direction {
        "h2d" => CopyKind::HostToDevice,
        "d2h" => CopyKind::DeviceToHost,
        "d2d" => CopyKind::DeviceToDevice,
        "h2h" => CopyKind::HostToHost,
        _ => return None,
    })
}

/// The `hipGraphExec_t` of the executable named `name`: FNV-1a of the name in the simulated
/// runtime's executable handle range (`hip-runtime-sim` `graphs.rs`), 16-byte aligned.
pub(crate) fn exec_handle(name: &str) -> u64 {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    0x5900_0000_0000 | ((hash & 0xff_ffff_ffff) << 4)
}

impl Validator<'_> {
    /// A `launch`, `graph`, `memcpy` or `memset` step; `None` for any other action.
    pub(super) fn work_step(
        &self,
        s: &mut RawStep,
        device: u32,
        span: &Range<usize>,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Option<Step>, ScenarioError> {
        if let Some(kernel) = &s.launch {
            let (stream, on) = self.stream_or_null(&s.stream, device)?;
            let parts = NodeParts {
                grid: s.grid,
                block: s.block,
                duration_us: s.duration_us,
                private_segment_size: s.private_segment_size,
                group_segment_size: s.group_segment_size,
            };
            let node = self.node(kernel, on, parts, span.clone())?;
            let module = s.module.unwrap_or(false);
            return Ok(Some(Step::Launch {
                stream,
                node,
                module,
            }));
        }
        if let Some(nodes) = s.graph.take() {
            let exec = s.exec.take();
            return self
                .graph_step(nodes, &s.stream, exec, device, err)
                .map(Some);
        }
        if let Some(direction) = &s.memcpy {
            return self.memcpy_step(direction, s, device, err).map(Some);
        }
        if let Some(bytes) = s.memset {
            let bytes = byte_count("memset", bytes).map_err(err)?;
            let duration_ns =
                ns("duration_us", s.duration_us, default_memset_ns(bytes)).map_err(err)?;
            return Ok(Some(Step::Memset {
                stream: self.optional_stream(&s.stream, device)?,
                bytes,
                duration_ns,
            }));
        }
        Ok(None)
    }

    pub(super) fn node(
        &self,
        kernel: &Spanned<String>,
        device: u32,
        parts: NodeParts,
        span: Range<usize>,
    ) -> Result<GraphNode, ScenarioError> {
        match self.kernels.get(kernel.get_ref()) {
            None => {
                let mut known: Vec<_> = self.kernels.keys().map(String::as_str).collect();
                known.sort();
                return Err(self.at.error(
                    kernel.span(),
                    format!(
                        "unknown kernel `{}` (known: {})",
                        kernel.get_ref(),
                        known.join(", ")
                    ),
                ));
            }
            Some(devices) if !devices.contains(&device) => {
                return Err(self.at.error(
                    kernel.span(),
                    format!(
                        "kernel `{}` is not loaded on device {device}",
                        kernel.get_ref()
                    ),
                ))
            }
            Some(_) => {}
        }
        let duration_ns = ns("duration_us", parts.duration_us, DEFAULT_KERNEL_NS)
            .map_err(|m| self.at.error(span.clone(), m))?;
        let grid = parts.grid.unwrap_or([256, 1, 1]);
        let block = parts.block.unwrap_or([256, 1, 1]);
        if grid.contains(&0) || block.contains(&0) {
            return Err(self.at.error(span, "grid and block sizes must be >= 1"));
        }
        Ok(GraphNode {
            kernel: kernel.get_ref().clone(),
            grid,
            block,
            private_segment_size: parts.private_segment_size.unwrap_or(0),
            group_segment_size: parts.group_segment_size.unwrap_or(0),
            duration_ns,
        })
    }

    fn graph_step(
        &self,
        nodes: Vec<Spanned<RawNode>>,
        stream: &Option<Spanned<String>>,
        exec: Option<String>,
        device: u32,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Step, ScenarioError> {
        let (stream, on) = self.stream_or_null(stream, device)?;
        // The executable's name: given, or the graph's kernels (the same kernels, the same
        // executable); its `hipGraphExec_t` is made from the name, so a replay's handles (and
        // the SDK's exec ids, given in launch order) are the same every run.
        let exec_name = exec.unwrap_or_else(|| {
            nodes
                .iter()
                .map(|n| n.get_ref().kernel.get_ref().as_str())
                .collect::<Vec<_>>()
                .join(",")
        });
        if nodes.is_empty() {
            return Err(err("graph needs at least one kernel".into()));
        }
        let nodes = nodes
            .into_iter()
            .map(|n| {
                let nspan = n.span();
                let n = n.into_inner();
                let parts = NodeParts {
                    grid: n.grid,
                    block: n.block,
                    duration_us: n.duration_us,
                    private_segment_size: n.private_segment_size,
                    group_segment_size: n.group_segment_size,
                };
                self.node(&n.kernel, on, parts, nspan)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Step::Graph {
            stream,
            nodes,
            exec: exec_handle(&exec_name),
        })
    }

    fn memcpy_step(
        &self,
        direction: &Spanned<String>,
        s: &RawStep,
        device: u32,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Step, ScenarioError> {
        let kind = copy_kind(direction.get_ref()).ok_or_else(|| {
            self.at.error(
                direction.span(),
                format!(
                    "unknown copy direction `{}` (expected h2d, d2h, d2d, h2h)",
                    direction.get_ref()
                ),
            )
        })?;
        let bytes = s.bytes.ok_or_else(|| err("memcpy needs `bytes`".into()))?;
        let bytes = byte_count("bytes", bytes).map_err(err)?;
        let device_of = |d: &Option<Spanned<u32>>| d.as_ref().map(|d| self.device(Some(d)));
        let duration_ns = ns("duration_us", s.duration_us, default_copy_ns(bytes)).map_err(err)?;
        let host = match s.host.as_ref().map(|h| (h.get_ref().as_str(), h.span())) {
            None | Some(("pinned", _)) => HostMemory::Pinned,
            Some(("pageable", _)) => HostMemory::Pageable,
            Some((other, span)) => {
                return Err(self.at.error(
                    span,
                    format!("unknown host memory `{other}` (expected pinned, pageable)"),
                ))
            }
        };
        Ok(Step::Memcpy {
            host,
            stream: self.optional_stream(&s.stream, device)?,
            kind,
            bytes,
            src_device: device_of(&s.src_device).transpose()?,
            dst_device: device_of(&s.dst_device).transpose()?,
            duration_ns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};
    use crate::hip::driver::{CopyKind, HostMemory};
    use crate::scenario::model::{Step, StreamRef};

    const K: &str =
        "[machine]\ngpus = 2\n[[code_object]]\nkernels = { k = \"_Z1kv\" }\n[streams]\ns = {}";

    fn steps(steps: &str) -> Vec<Step> {
        parsed(&with_steps(K, steps)).threads.remove(0).steps
    }

    fn refused_step(steps: &str) -> String {
        refused(&with_steps(K, steps))
    }

    #[test]
    fn launches_take_defaults_and_modifiers() {
        let got = steps(
            "{ launch = \"k\" },\n{ launch = \"k\", stream = \"s\", grid = [512, 2, 1], block = [64, 1, 1], \
             duration_us = 2.5, private_segment_size = 16, group_segment_size = 32, module = true }",
        );
        let [Step::Launch {
            stream: StreamRef::Null,
            node: a,
            module: false,
        }, Step::Launch {
            stream: StreamRef::Named(_),
            node: b,
            module: true,
        }] = &got[..]
        else {
            panic!("{got:?}")
        };
        assert_eq!(
            (a.grid, a.block, a.duration_ns),
            ([256, 1, 1], [256, 1, 1], 10_000)
        );
        assert_eq!(
            (b.grid, b.block, b.duration_ns),
            ([512, 2, 1], [64, 1, 1], 2500)
        );
        assert_eq!((b.private_segment_size, b.group_segment_size), (16, 32));
    }

    #[test]
    fn kernels_must_be_known_on_the_device() {
        assert_eq!(
            refused_step("{ launch = \"x\" }"),
            "9:12: unknown kernel `x` (known: k)"
        );
        assert_eq!(
            refused_step("{ set_device = 1 }, { launch = \"k\" }"),
            "9:32: kernel `k` is not loaded on device 1"
        );
        assert_eq!(
            refused_step("{ launch = \"k\", grid = [0, 1, 1] }"),
            "9:1: grid and block sizes must be >= 1"
        );
    }

    #[test]
    fn graphs_are_launches_in_one_call() {
        let got = steps(
            "{ graph = [{ kernel = \"k\" }, { kernel = \"k\", duration_us = 1 }], stream = \"s\" }",
        );
        assert!(
            matches!(&got[..], [Step::Graph { nodes, stream: StreamRef::Named(_), .. }] if nodes.len() == 2)
        );
        // An executable is named, or named after its kernels: one name, one handle.
        let named = steps(
            "{ graph = [{ kernel = \"k\" }], exec = \"step\" },\n\
             { graph = [{ kernel = \"k\" }], exec = \"step\" },\n\
             { graph = [{ kernel = \"k\" }] }",
        );
        let execs: Vec<u64> = named
            .iter()
            .map(|s| match s {
                Step::Graph { exec, .. } => *exec,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(execs[0], execs[1]);
        assert_eq!(execs[0], super::exec_handle("step"));
        assert_eq!(execs[2], super::exec_handle("k"));
        assert_ne!(execs[0], execs[2]);
        assert_eq!(
            refused_step("{ graph = [] }"),
            "9:1: graph needs at least one kernel"
        );
        let message = refused_step("{ graph = [{ kernel = \"k\", colour = 1 }] }");
        assert!(message.contains("unknown field `colour`"), "{message}");
    }

    #[test]
    fn copies_take_direction_size_and_host_memory() {
        let got = steps(
            "{ memcpy = \"h2d\", bytes = 4096, stream = \"s\", host = \"pageable\" },\n\
             { memcpy = \"d2d\", bytes = 1, src_device = 0, dst_device = 1, duration_us = 3 }",
        );
        let [Step::Memcpy {
            stream: Some(_),
            kind: CopyKind::HostToDevice,
            bytes: 4096,
            host: HostMemory::Pageable,
            ..
        }, Step::Memcpy {
            stream: None,
            kind: CopyKind::DeviceToDevice,
            src_device: Some(0),
            dst_device: Some(1),
            duration_ns: 3000,
            host: HostMemory::Pinned,
            ..
        }] = &got[..]
        else {
            panic!("{got:?}")
        };
        let cases = [
            (
                "{ memcpy = \"up\", bytes = 1 }",
                "9:12: unknown copy direction `up` (expected h2d, d2h, d2d, h2h)",
            ),
            ("{ memcpy = \"h2d\" }", "9:1: memcpy needs `bytes`"),
            (
                "{ memcpy = \"h2d\", bytes = 1, host = \"x\" }",
                "9:37: unknown host memory `x` (expected pinned, pageable)",
            ),
            (
                "{ memcpy = \"h2d\", bytes = 1099511627777 }",
                "9:1: bytes = 1099511627777 is too large",
            ),
            (
                "{ memcpy = \"d2h\", bytes = 1, src_device = 2 }",
                "9:43: device 2 does not exist",
            ),
            (
                "{ memcpy = \"d2h\", bytes = 1, duration_us = -1.0 }",
                "9:1: duration_us = -1 must be a non-negative number",
            ),
        ];
        for (step, expected) in cases {
            let message = refused_step(step);
            assert!(message.starts_with(expected), "{step}: {message}");
        }
    }

    #[test]
    fn memsets_with_and_without_a_stream() {
        let got = steps("{ memset = 64 }, { memset = 64, stream = \"s\", duration_us = 1 }");
        assert!(matches!(
            &got[..],
            [
                Step::Memset {
                    stream: None,
                    bytes: 64,
                    ..
                },
                Step::Memset {
                    stream: Some(_),
                    duration_ns: 1000,
                    ..
                }
            ]
        ));
        assert!(refused_step("{ memset = 1099511627777 }")
            .starts_with("9:1: memset = 1099511627777 is too large"));
    }
}
