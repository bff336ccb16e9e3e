//! The folder `xla-rocm-tracer record` gives the tool library (docs/tool-library.md#every-process):
//! every process that loads the library claims a name in it at load, `<stem>.started` holding
//! its pid and command line, and writes its capture to `<stem>.xplane.pb` when the capture
//! ends. A process that claimed a name and wrote no capture ended without exiting normally;
//! `record` says so. Names are claimed with create-new, so no process takes another's.
use std::path::{Path, PathBuf};

/// The environment variable that names the folder (`record` sets it; children inherit it).
pub const OUTPUT_FOLDER_VARIABLE: &str = "XLA_ROCM_TRACER_OUTPUT_FOLDER";
const STARTED_SUFFIX: &str = ".started";
const TRACE_SUFFIX: &str = ".xplane.pb";

/// Claims a name for process `pid` in `folder`: `<pid>`, or `<pid>-<n>` when a process of an
/// earlier life of that pid has it. Returns the stem.
pub fn claim(folder: &Path, pid: u32, command_line: &str) -> std::io::Result<String> {
    use std::io::Write;
    for attempt in 0u32.. {
        let stem = match attempt {
            0 => pid.to_string(),
            n => format!("{pid}-{n}"),
        };
        let marker = folder.join(format!("{stem}{STARTED_SUFFIX}"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&marker)
        {
            Ok(mut file) => {
                writeln!(file, "{pid}\n{command_line}")?;
                return Ok(stem);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    unreachable!("u32 attempts run out only after four billion processes of one pid")
}

/// Where the process that claimed `stem` writes its capture.
pub fn trace_path(folder: &Path, stem: &str) -> PathBuf {
    folder.join(format!("{stem}{TRACE_SUFFIX}"))
}

/// One process that loaded the library.
#[derive(Debug, PartialEq)]
pub struct ClaimedProcess {
    pub pid: u32,
    pub command_line: String,
    /// Its capture, when it wrote one.
    pub trace: Option<PathBuf>,
}

/// Every process that claimed a name in `folder`, by pid (then by claim).
pub fn processes(folder: &Path) -> std::io::Result<Vec<ClaimedProcess>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(STARTED_SUFFIX)) else {
            continue;
        };
        // A marker is written whole by one `writeln!`; one cut short (a process killed in
        // it) still names its pid in its own name.
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let mut lines = text.splitn(2, '\n');
        let pid = lines
            .next()
            .and_then(|l| l.trim().parse().ok())
            .or_else(|| stem.split('-').next()?.parse().ok());
        let Some(pid) = pid else {
            continue;
        };
        let command_line = lines.next().unwrap_or("").trim_end().to_owned();
        let trace = trace_path(folder, stem);
        found.push((
            stem.to_owned(),
            ClaimedProcess {
                pid,
                command_line,
                trace: trace.is_file().then_some(trace),
            },
        ));
    }
    found.sort_by(|(a_stem, a), (b_stem, b)| (a.pid, a_stem).cmp(&(b.pid, b_stem)));
    Ok(found.into_iter().map(|(_, process)| process).collect())
}

/// This process's command line, arguments joined by spaces (`/proc/self/cmdline`).
pub fn own_command_line() -> String {
    std::fs::read("/proc/self/cmdline")
        .map(|bytes| {
            bytes
                .split(|&b| b == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_claim_is_a_new_name_and_the_folder_tells_who_wrote_what() {
        let folder = tempfile::tempdir().unwrap();
        let first = claim(folder.path(), 41, "python3 train.py").unwrap();
        let reused = claim(folder.path(), 41, "python3 eval.py").unwrap();
        let other = claim(folder.path(), 7, "./hip_app plain 0").unwrap();
        assert_eq!((first.as_str(), reused.as_str()), ("41", "41-1"));
        std::fs::write(trace_path(folder.path(), &reused), b"x").unwrap();
        std::fs::write(trace_path(folder.path(), &other), b"x").unwrap();

        let found = processes(folder.path()).unwrap();
        assert_eq!(
            found,
            vec![
                ClaimedProcess {
                    pid: 7,
                    command_line: "./hip_app plain 0".to_owned(),
                    trace: Some(folder.path().join("7.xplane.pb")),
                },
                ClaimedProcess {
                    pid: 41,
                    command_line: "python3 train.py".to_owned(),
                    trace: None,
                },
                ClaimedProcess {
                    pid: 41,
                    command_line: "python3 eval.py".to_owned(),
                    trace: Some(folder.path().join("41-1.xplane.pb")),
                },
            ]
        );
    }

    #[test]
    fn a_marker_cut_short_still_names_its_process() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("99-2.started"), b"").unwrap();
        let found = processes(folder.path()).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pid, 99);
        assert_eq!(found[0].command_line, "");
    }

    #[test]
    fn the_command_line_is_this_processs() {
        let line = own_command_line();
        let exe = std::env::args().next().unwrap();
        assert!(line.starts_with(&exe), "{line:?} vs {exe:?}");
    }
}
