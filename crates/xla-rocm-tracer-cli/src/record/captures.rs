//! What the processes of a recorded command left in the scratch folder: a capture per
//! process that wrote one, and for every other process that loaded the tool library, why it
//! wrote nothing (docs/tool-library.md#every-process).
use std::path::Path;
use std::process::ExitStatus;

use anyhow::{Context, Result};
use xla_rocm_tracer::export::capture_folder;
use xla_rocm_tracer::export::{read_xspace_file, XSpace};

/// A process's capture.
pub struct Captured {
    pub pid: u32,
    pub command_line: String,
    pub space: XSpace,
}

/// A process that loaded the tool library and left no capture.
pub struct Lost {
    pub pid: u32,
    pub command_line: String,
    pub why: String,
}

impl Lost {
    /// "process 12 (./app 0) wrote no trace: killed by signal 9 (SIGKILL)".
    pub fn describe(&self) -> String {
        format!(
            "process {} ({}) wrote no trace: {}",
            self.pid,
            shown_command(&self.command_line),
            self.why
        )
    }
}

/// A command line for one line of output: at most 80 characters.
pub fn shown_command(command_line: &str) -> String {
    const MAX: usize = 80;
    if command_line.is_empty() {
        return "command line unknown".to_owned();
    }
    match command_line.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}...", &command_line[..end]),
        None => command_line.to_owned(),
    }
}

/// Reads `folder`. `child` is the command's own process and how it ended: the only one whose
/// signal `record` can know.
pub fn collect(folder: &Path, child: (u32, ExitStatus)) -> Result<(Vec<Captured>, Vec<Lost>)> {
    let processes = capture_folder::processes(folder)
        .with_context(|| format!("cannot read the scratch folder {}", folder.display()))?;
    let mut captured = Vec::new();
    let mut lost = Vec::new();
    for process in processes {
        let read = process.trace.as_deref().map(read_xspace_file);
        match read {
            Some(Ok(space)) => captured.push(Captured {
                pid: process.pid,
                command_line: process.command_line,
                space,
            }),
            Some(Err(error)) => lost.push(Lost {
                pid: process.pid,
                command_line: process.command_line,
                why: format!("its trace cannot be read: {error}"),
            }),
            None => lost.push(Lost {
                why: why_nothing(process.pid, child),
                pid: process.pid,
                command_line: process.command_line,
            }),
        }
    }
    Ok((captured, lost))
}

/// Why a process wrote nothing: the library writes at exit and at the SDK's finalization, so
/// the process ended some other way.
fn why_nothing(pid: u32, (child, status): (u32, ExitStatus)) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(signal) if pid == child => format!("killed by signal {signal}{}", signal_name(signal)),
        None if pid == child => format!(
            "it ended with status {} without running its exit handlers (_exit, or a crash \
             after main returned)",
            status.code().unwrap_or(-1)
        ),
        _ => "it ended without exiting normally (killed by a signal, or _exit)".to_owned(),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGHUP => " (SIGHUP)",
        libc::SIGINT => " (SIGINT)",
        libc::SIGQUIT => " (SIGQUIT)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGTERM => " (SIGTERM)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn a_process_without_a_capture_is_lost_with_its_reason() {
        let folder = tempfile::tempdir().unwrap();
        let child = capture_folder::claim(folder.path(), 100, "./app child").unwrap();
        capture_folder::claim(folder.path(), 101, "./app grandchild").unwrap();
        let written = capture_folder::claim(folder.path(), 102, "./app ok").unwrap();
        let bad = capture_folder::claim(folder.path(), 103, "./app bad").unwrap();
        assert_eq!(child, "100");
        let space = XSpace {
            hostnames: vec!["h".to_owned()],
            ..XSpace::default()
        };
        xla_rocm_tracer::export::write_xspace(
            capture_folder::trace_path(folder.path(), &written),
            &space,
        )
        .unwrap();
        std::fs::write(capture_folder::trace_path(folder.path(), &bad), b"\xff\xff").unwrap();

        let killed = ExitStatus::from_raw(libc::SIGKILL);
        let (captured, lost) = collect(folder.path(), (100, killed)).unwrap();
        assert_eq!(captured.len(), 1);
        assert_eq!(captured[0].pid, 102);
        assert_eq!(captured[0].space, space);
        let lines: Vec<String> = lost.iter().map(Lost::describe).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "process 100 (./app child) wrote no trace: killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            lines[1],
            "process 101 (./app grandchild) wrote no trace: it ended without exiting normally \
             (killed by a signal, or _exit)"
        );
        assert!(
            lines[2]
                .starts_with("process 103 (./app bad) wrote no trace: its trace cannot be read"),
            "{}",
            lines[2]
        );
    }

    #[test]
    fn the_commands_own_process_that_skipped_its_exit_handlers_is_said() {
        let folder = tempfile::tempdir().unwrap();
        capture_folder::claim(folder.path(), 100, "./app quick-exit 5").unwrap();
        let exited_5 = ExitStatus::from_raw(5 << 8);
        let (_, lost) = collect(folder.path(), (100, exited_5)).unwrap();
        assert_eq!(
            lost[0].describe(),
            "process 100 (./app quick-exit 5) wrote no trace: it ended with status 5 without \
             running its exit handlers (_exit, or a crash after main returned)"
        );
    }

    #[test]
    fn long_command_lines_are_cut() {
        let long = "x".repeat(200);
        assert_eq!(shown_command(&long).chars().count(), 83);
        assert_eq!(shown_command(""), "command line unknown");
    }
}
