//! A real `yolah serve` process for the tests, as an attacker meets it: the
//! binary started on a free port. The clients that talk to it over TCP are
//! `yolah_test_client`'s, re-exported here. Nothing here sleeps to
//! synchronise: every wait is for a condition, with a deadline.
#![allow(dead_code, unused_imports)] // each test file uses some of these

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
pub use yolah_test_client::*;

/// A running `yolah serve`, stopped when dropped: SIGTERM, as a person's
/// Ctrl-C or a service manager would (so a `:memory:` database's files go
/// with it), and SIGKILL if it has not exited within [`STOP_DEADLINE`].
pub struct Served {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

/// `yolah serve --port 0 ARGS…` (on `127.0.0.1`), once it says where it
/// serves. Every line it writes to stderr is kept ([`Served::stderr`]).
pub fn serve(args: &[&str]) -> Served {
    serve_with(Command::new(env!("CARGO_BIN_EXE_yolah")), args)
}

/// [`serve`], from a command already set up (to run it under `sh -c
/// 'ulimit …; exec …'`, say): `cmd` gets `serve --port 0 ARGS…` appended.
pub fn serve_with(mut cmd: Command, args: &[&str]) -> Served {
    let mut child = cmd
        .args(["serve", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yolah serve starts");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let lines = Arc::clone(&lines);
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut told = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !told {
                    if let Some(rest) = line.split("serving http://").nth(1) {
                        let _ = tx.send(rest.split('/').next().unwrap().to_string());
                        told = true;
                    }
                }
                lines.lock().unwrap().push(line);
            }
        });
    }
    let addr = match rx.recv_timeout(DEADLINE) {
        Ok(addr) => addr,
        Err(_) => {
            let _ = child.kill();
            panic!("yolah serve did not start: {:?}", lines.lock().unwrap());
        }
    };
    Served {
        child,
        addr,
        stderr: lines,
    }
}

/// A fresh database file `NAME.db` for one test, in a directory removed
/// when the returned guard drops: bind the guard before the server, so that
/// the server goes first.
pub fn temp_db(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(format!("{name}.db"));
    let db = db.to_string_lossy().into_owned();
    (dir, db)
}

/// `yolah serve --port 0 ARGS…` that must fail: its exit status and its
/// standard error (it must exit within [`DEADLINE`]).
pub fn serve_fails(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(["serve", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("yolah serve starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("yolah serve {args:?} did not exit");
        }
        std::thread::park_timeout(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status, err)
}

impl Served {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it has written to stderr so far, a line each.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }

    /// SIGKILL, and wait for it to be gone.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// A field of `/proc/PID/status` in kB (such as `VmRSS:`).
    pub fn status_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc/PID/status"))
    }
}

/// How long a dropped [`Served`] may take to shut down after SIGTERM: the
/// server gives its connections 5 s to close, so a little more.
const STOP_DEADLINE: Duration = Duration::from_secs(8);

impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: a plain system call on our own child's process id; the
            // child is not yet reaped, so the id is still its own.
            unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
            let deadline = Instant::now() + STOP_DEADLINE;
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::park_timeout(Duration::from_millis(10));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
