"""Bazel rules that put the Rust ROCm tracer in place of XLA's rocm_tracer.cc / rocm_collector.cc.

Only `genrule`, `cc_import` and `cc_library` are used, loaded from `@rules_cc//cc:defs.bzl`,
so the same text works with Bazel 4.2.3 (WORKSPACE, rules_cc stand-in) through Bazel 8.x
(WORKSPACE or Bzlmod, real rules_cc). rules_rust is not needed (docs/build-facts.md#rust-under-bazel).

Public macros:
  * `xla_rocm_tracer_cc_libraries`: the three targets XLA's `xla/backends/profiler/gpu`
    package defines (`rocm_tracer_utils`, `rocm_collector`, `rocm_tracer`), same names, tags
    and visibility, built from this project's C++ shims over the Rust staticlib.
  * `cargo_staticlib`: a genrule that runs cargo, offline, on the crates that
    `@xla_rocm_tracer_crates` vendored in the fetch phase (bazel/crates.bzl), and exposes the
    staticlib plus the cxx bridge headers as a `cc_library`.
  * `rust_staticlib_cc_library`: the same `cc_library` shape around a prebuilt `.a`.
"""

load("@rules_cc//cc:defs.bzl", "cc_import", "cc_library")

# The Rust staticlib as a cc_library, built by cargo inside Bazel (see //bazel:BUILD.bazel).
# Label() resolves against this repository, whatever name the consumer gave it.
DEFAULT_RUST_LIB = Label("//bazel:xla_rocm_tracer")

# The C++ shims. They include XLA's own headers, so they are compiled in the consumer's
# package, next to XLA's rocm_tracer.h / rocm_collector.h / rocm_tracer_utils.h.
DEFAULT_UTILS_SRCS = [Label("//:cpp/rocm_tracer_utils.cc")]
DEFAULT_COLLECTOR_SRCS = [Label("//:cpp/rocm_collector.cc")]
DEFAULT_TRACER_SRCS = [Label("//:cpp/rocm_tracer.cc")]
DEFAULT_SHIM_SUPPORT = Label("//:shim_support")

# The crates of Cargo.lock, vendored by the repository rule of bazel/crates.bzl, and a file
# inside their folder (whose real path the cargo action reads).
DEFAULT_VENDOR = Label("@xla_rocm_tracer_crates//:vendor")
DEFAULT_VENDOR_MARKER = Label("@xla_rocm_tracer_crates//:vendor/.xla_rocm_tracer_vendored")

# XLA's dependency lists for the three targets (docs/xla-interface.md#bazel-targets), minus what the
# macro adds itself (the sibling targets, the ROCm labels and the Rust library).
XLA_ROCM_TRACER_UTILS_DEPS = [
    "@com_google_absl//absl/base:core_headers",
    "@com_google_absl//absl/container:flat_hash_map",
    "@com_google_absl//absl/container:node_hash_set",
    "@com_google_absl//absl/log",
    "@com_google_absl//absl/log:check",
    "@com_google_absl//absl/strings:string_view",
    "@com_google_absl//absl/synchronization",
    "@com_google_absl//absl/types:span",
]

XLA_ROCM_COLLECTOR_DEPS = [
    "//xla/stream_executor/rocm:roctracer_wrapper",
    "//xla/tsl/platform:status",
    "//xla/tsl/profiler/utils:parse_annotation",
    "//xla/tsl/profiler/utils:trace_utils",
    "//xla/tsl/profiler/utils:xplane_builder",
    "//xla/tsl/profiler/utils:xplane_schema",
    "//xla/tsl/profiler/utils:xplane_utils",
    "@com_google_absl//absl/container:flat_hash_map",
    "@com_google_absl//absl/container:flat_hash_set",
    "@com_google_absl//absl/container:node_hash_map",
    "@com_google_absl//absl/log",
    "@com_google_absl//absl/log:check",
    "@com_google_absl//absl/strings",
    "@com_google_absl//absl/synchronization",
    "@tsl//tsl/platform:abi",
    "@tsl//tsl/profiler/protobuf:xplane_proto_cc",
]

XLA_ROCM_TRACER_DEPS = [
    "//xla/stream_executor/rocm:roctracer_wrapper",
    "//xla/tsl/platform:errors",
    "//xla/tsl/profiler/backends/cpu:annotation_stack",
    "@com_google_absl//absl/container:inlined_vector",
    # For cpp/log.h, which logs through absl/log where it exists (not in XLA's list).
    "@com_google_absl//absl/log",
    "@com_google_absl//absl/status",
    "@com_google_absl//absl/status:status_macros",
    "@com_google_absl//absl/strings",
    "@com_google_absl//absl/strings:str_format",
    "@com_google_absl//absl/synchronization",
    "@com_google_absl//absl/types:optional",
    "@com_google_absl//absl/types:span",
    "@tsl//tsl/platform:abi",
]

# XLA's tags (docs/xla-interface.md#bazel-targets). XLA adds if_google(["manual"]) to rocm_collector; pass it through
# `collector_tags` to stay exact.
XLA_ROCM_TAGS = ["gpu", "rocm-only"]

def xla_rocm_tracer_cc_libraries(
        rust_lib = DEFAULT_RUST_LIB,
        rocprofiler_sdk = "@local_config_rocm//rocm:rocprofiler_sdk",
        rocm_headers = "@local_config_rocm//rocm:rocm_headers",
        hip_runtime = "@local_config_rocm//rocm:hip_runtime",
        utils_hdrs = ["rocm_tracer_utils.h"],
        collector_hdrs = ["rocm_collector.h"],
        tracer_hdrs = ["rocm_tracer.h"],
        utils_srcs = DEFAULT_UTILS_SRCS,
        collector_srcs = DEFAULT_COLLECTOR_SRCS,
        tracer_srcs = DEFAULT_TRACER_SRCS,
        shim_support = DEFAULT_SHIM_SUPPORT,
        utils_deps = XLA_ROCM_TRACER_UTILS_DEPS,
        collector_deps = XLA_ROCM_COLLECTOR_DEPS,
        tracer_deps = XLA_ROCM_TRACER_DEPS,
        collector_tags = XLA_ROCM_TAGS,
        tracer_tags = XLA_ROCM_TAGS,
        utils_visibility = ["//visibility:public"],
        visibility = None,
        cc_library_rule = cc_library):
    """Defines `rocm_tracer_utils`, `rocm_collector` and `rocm_tracer` in the calling package.

    Call it from XLA's `xla/backends/profiler/gpu/BUILD` in place of the three hand-written
    targets; `device_tracer_rocm`, `hlo_op_profiler_rocm` and the tests keep their labels.

    Args:
      rust_lib: cc_library of the Rust staticlib and its bridge headers: the cargo-built
        default, or one made by `rust_staticlib_cc_library` around a prebuilt `.a`.
      rocprofiler_sdk: the rocprofiler-sdk shared library (XLA's rocm_lib_import).
      rocm_headers: the ROCm headers, rocprofiler-sdk's included.
      hip_runtime: HIP runtime headers (rocm_collector.h names hipFuncAttributes).
      utils_hdrs, collector_hdrs, tracer_hdrs: XLA's headers, in the calling package.
      utils_srcs, collector_srcs, tracer_srcs: this project's C++ shims.
      shim_support: headers shared by the shims and the cxx bridge header.
      utils_deps, collector_deps, tracer_deps: XLA's deps of each target (docs/xla-interface.md#bazel-targets).
      collector_tags, tracer_tags: XLA's tags; `rocm_tracer_utils` has none in XLA.
      utils_visibility: XLA makes `rocm_tracer_utils` public.
      visibility: of `rocm_tracer` and `rocm_collector`; None keeps the package default, as XLA.
      cc_library_rule: the cc_library to call, e.g. XLA's wrapper from
        //xla/tsl/platform:rules_cc.bzl.
    """

    # No ROCm dependency here (docs/xla-interface.md#drop-in-requirements): rocm_tracer_utils is plain C++ over XLA's header.
    cc_library_rule(
        name = "rocm_tracer_utils",
        srcs = utils_srcs,
        hdrs = utils_hdrs,
        visibility = utils_visibility,
        deps = utils_deps + [shim_support],
    )

    cc_library_rule(
        name = "rocm_collector",
        srcs = collector_srcs,
        hdrs = collector_hdrs,
        tags = collector_tags,
        visibility = visibility,
        deps = collector_deps + [
            ":rocm_tracer_utils",
            hip_runtime,
            rocm_headers,
            rocprofiler_sdk,
            rust_lib,
            shim_support,
        ],
    )

    cc_library_rule(
        name = "rocm_tracer",
        srcs = tracer_srcs,
        hdrs = tracer_hdrs,
        tags = tracer_tags,
        visibility = visibility,
        deps = tracer_deps + [
            ":rocm_collector",
            ":rocm_tracer_utils",
            rocm_headers,
            rocprofiler_sdk,
            rust_lib,
            shim_support,
        ],
    )

# What a Rust staticlib needs from the system at the final link
# (`cargo rustc -- --print native-static-libs` on x86_64 Linux).
RUST_STATICLIB_LINKOPTS = ["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl"]

def rust_staticlib_cc_library(
        name,
        staticlib,
        hdrs = [],
        strip_include_prefix = None,
        deps = [],
        alwayslink = False,
        linkopts = RUST_STATICLIB_LINKOPTS,
        visibility = None,
        tags = []):
    """A cc_library around a Rust staticlib (prebuilt or generated) and its C/C++ headers.

    Args:
      name: the cc_library.
      staticlib: label of the `lib<crate>.a`.
      hdrs: the bridge headers (`<crate>/src/ffi/tracer.rs.h`, `rust/cxx.h`, ...).
      strip_include_prefix: folder, relative to the package, that `#include` paths start below.
      deps: other libraries, e.g. the cbindgen C header.
      alwayslink: link every object of the archive even when nothing references it.
      linkopts: the system libraries Rust's std needs.
      visibility: of the cc_library.
      tags: of both targets.
    """
    cc_import(
        name = name + "_archive",
        static_library = staticlib,
        alwayslink = alwayslink,
        tags = tags,
        visibility = ["//visibility:private"],
    )
    cc_library(
        name = name,
        hdrs = hdrs,
        strip_include_prefix = strip_include_prefix,
        linkopts = linkopts,
        tags = tags,
        visibility = visibility,
        deps = [":" + name + "_archive"] + deps,
    )

def cargo_staticlib(
        name,
        manifest,
        srcs,
        package,
        lib_name,
        bridge_headers = [],
        crate_headers = [],
        cargo = "cargo",
        cargo_flags = ["--locked", "--offline"],
        cargo_env = {},
        profile = "release",
        target_dir = None,
        vendor = DEFAULT_VENDOR,
        vendor_marker = DEFAULT_VENDOR_MARKER,
        deps = [],
        alwayslink = False,
        visibility = None,
        tags = []):
    """Runs `cargo build` in a genrule and wraps the staticlib with `rust_staticlib_cc_library`.

    The action needs no network and no crate registry: cargo builds `--offline` from the
    `vendor` folder, which the repository rule of bazel/crates.bzl fills with `cargo vendor
    --locked` in Bazel's fetch phase; its `CARGO_HOME` is a fresh folder of the action's own.
    It runs in Bazel's sandbox. It is not hermetic in one respect: the Rust toolchain is the
    machine's (`cargo` on the action's PATH, with `--action_env=PATH --action_env=HOME`), so
    it is tagged `no-remote` (a remote worker would need the same toolchain). Bazel re-runs it
    whenever a file of `srcs` or of the vendored crates changes; cargo then builds from
    scratch in a target folder beside the outputs, unless the action environment variable
    XLA_ROCM_TRACER_CARGO_TARGET_DIR names a folder to share (which the sandbox must let it
    write: `--sandbox_writable_path=DIR`).

    Outputs, under `<name>/`: `lib<lib_name>.a` and, for each `bridge_headers` or
    `crate_headers` entry `p` (a path inside the crate such as `src/ffi/tracer.rs.h`),
    `include/<package>/<p>`, plus `include/rust/cxx.h`; `#include "<package>/src/ffi/tracer.rs.h"`
    then works, as with cxx-build.

    Args:
      name: the cc_library; the genrule is `<name>_cargo`.
      manifest: label of the Cargo.toml to build.
      srcs: every file cargo reads (sources, manifests, Cargo.lock, build scripts).
      package: the cargo package (`-p`), also the folder of its cxx bridge headers.
      lib_name: the `[lib] name`, giving `lib<lib_name>.a`.
      bridge_headers: cxx bridge headers to export, as paths inside the package.
      crate_headers: hand-written headers of the crate the bridge headers include, as paths
        inside the package (exported as `include/<package>/<path>` too).
      cargo: the Rust toolchain: cargo's path or a command on the action's PATH.
      cargo_flags: extra `cargo build` flags.
      cargo_env: environment for cargo (e.g. HOME, RUSTUP_HOME, RUSTC).
      profile: cargo profile; "release" or "dev" select target/release or target/debug.
      target_dir: absolute CARGO_TARGET_DIR; default: a folder next to the outputs. The
        action environment variable XLA_ROCM_TRACER_CARGO_TARGET_DIR overrides both.
      vendor: the vendored crates (a filegroup), or None to use cargo's own registry cache
        (then the action must run outside the sandbox: add "no-sandbox" to `tags`).
      vendor_marker: a file directly inside the vendored crates' folder.
      deps: extra deps of the resulting cc_library.
      alwayslink: passed to the cc_import of the archive.
      visibility: of the cc_library.
      tags: of the generated targets (the genrule also gets `no-remote`).
    """
    profile_dir = "debug" if profile == "dev" else profile
    archive = name + "/lib" + lib_name + ".a"
    header_outs = [name + "/include/" + package + "/" + h for h in bridge_headers + crate_headers]
    if bridge_headers:
        header_outs.append(name + "/include/rust/cxx.h")

    env_words = " ".join(["%s='%s'" % (k, v) for k, v in sorted(cargo_env.items())])
    default_target = target_dir if target_dir else "$$PWD/$(RULEDIR)/%s/cargo-target" % name

    # XLA_ROCM_TRACER_CARGO_TARGET_DIR (with --action_env) shares a target dir with an
    # outside cargo build, so Bazel's cargo run finds everything up to date.
    target = "$${XLA_ROCM_TRACER_CARGO_TARGET_DIR:-%s}" % default_target
    vendor_flags = ""
    vendor_srcs = []
    cmd = [
        "set -eu",
        'manifest="$$(readlink -f $(location %s))"' % manifest,
        'target_dir="%s"' % target,
    ]
    if vendor:
        vendor_srcs = [vendor, vendor_marker]
        cmd += [
            'vendor_dir="$$(dirname "$$(readlink -f $(location %s))")"' % vendor_marker,
            # cargo locks and caches under CARGO_HOME even offline: a folder of the action's own.
            'export CARGO_HOME="$$PWD/$(RULEDIR)/%s/cargo-home"' % name,
            'mkdir -p "$$CARGO_HOME"',
        ]
        vendor_flags = " ".join([
            "--config 'source.crates-io.replace-with=\"xla-rocm-tracer-vendor\"'",
            "--config \"source.xla-rocm-tracer-vendor.directory='$$vendor_dir'\"",
        ])
    cmd += [
        # Link nothing from a ROCm install into the archive: the final link brings the SDK.
        "env -u ROCPROFILER_SDK_LIB_DIR -u ROCM_PATH CARGO_TARGET_DIR=\"$$target_dir\" %s %s build --quiet --manifest-path \"$$manifest\" -p %s --lib --profile %s %s %s" % (
            env_words,
            cargo,
            package,
            profile,
            " ".join(cargo_flags),
            vendor_flags,
        ),
        'cp "$$target_dir/%s/lib%s.a" $(location %s)' % (profile_dir, lib_name, archive),
    ]
    for header, out in zip(bridge_headers, header_outs):
        # cxx-build mirrors the headers of the latest build under <target>/cxxbridge.
        cmd.append('cp -L "$$target_dir/cxxbridge/%s/%s" $(location %s)' % (package, header, out))
    for header, out in zip(crate_headers, header_outs[len(bridge_headers):]):
        cmd.append('cp "$$(dirname "$$manifest")/%s" $(location %s)' % (header, out))
    if bridge_headers:
        cmd.append('cp -L "$$target_dir/cxxbridge/rust/cxx.h" $(location %s)' % header_outs[-1])

    native.genrule(
        name = name + "_cargo",
        srcs = srcs + [manifest] + vendor_srcs,
        outs = [archive] + header_outs,
        cmd = "\n".join(cmd),
        message = "Building the Rust staticlib %s with cargo, offline" % package,
        tags = tags + ["no-remote"],
        visibility = ["//visibility:private"],
    )
    rust_staticlib_cc_library(
        name = name,
        staticlib = archive,
        hdrs = header_outs,
        strip_include_prefix = name + "/include",
        deps = deps,
        alwayslink = alwayslink,
        visibility = visibility,
        tags = tags,
    )
