//! Leaving cleanly when interrupted: on SIGINT, SIGTERM or SIGHUP (on
//! Windows: Ctrl-C, Ctrl-Break, or the console closing) every process tree
//! the run started (servers, hooks) is killed and every fixture copy still
//! alive is removed, then the process exits with 128 + the signal's number,
//! as a shell reports it (on Windows: 130 for Ctrl-C and Ctrl-Break, 129 for
//! the console closing, the codes of their Unix counterparts).

use crate::output::err;

/// One way the process was told to stop.
#[derive(Clone, Copy)]
pub struct Stop {
    /// What happened, in words: "interrupted", "terminated", "hung up".
    pub what: &'static str,
    /// The signal or console event: "SIGINT", "Ctrl-C", ….
    pub name: &'static str,
    /// The exit status a shell reports for it.
    pub code: i32,
}

/// The signals that stop the process, listened to from creation on.
pub struct Stops {
    streams: Vec<(imp::Listener, Stop)>,
}

impl Stops {
    pub fn new() -> Self {
        Stops {
            streams: imp::listeners(),
        }
    }

    /// The next stop that arrives; never resolves when none could be
    /// listened to.
    pub async fn next(&mut self) -> Stop {
        if self.streams.is_empty() {
            return std::future::pending().await;
        }
        let waits = self.streams.iter_mut().map(|(s, stop)| {
            Box::pin(async move {
                imp::recv(s).await;
                *stop
            })
        });
        futures::future::select_all(waits).await.0
    }
}

/// Watch for the stops for the rest of the process's life.
pub fn clean_up_on_interrupt() {
    tokio::spawn(async {
        let mut stops = Stops::new();
        if stops.streams.is_empty() {
            return;
        }
        let stop = stops.next().await;
        crate::client::stdio::kill_all_groups();
        crate::run::fixture::remove_live_copies();
        err(&format!("\n{}\n", stop.what));
        std::process::exit(stop.code);
    });
}

#[cfg(unix)]
mod imp {
    use tokio::signal::unix::{Signal, SignalKind, signal};

    use super::Stop;

    pub type Listener = Signal;

    pub fn listeners() -> Vec<(Listener, Stop)> {
        let kinds = [
            (SignalKind::interrupt(), "interrupted", "SIGINT", 130),
            (SignalKind::terminate(), "terminated", "SIGTERM", 143),
            (SignalKind::hangup(), "hung up", "SIGHUP", 129),
        ];
        kinds
            .into_iter()
            .filter_map(|(kind, what, name, code)| {
                signal(kind).ok().map(|s| (s, Stop { what, name, code }))
            })
            .collect()
    }

    pub async fn recv(s: &mut Listener) {
        s.recv().await;
    }
}

#[cfg(windows)]
mod imp {
    use tokio::signal::windows::{CtrlBreak, CtrlC, CtrlClose, ctrl_break, ctrl_c, ctrl_close};

    use super::Stop;

    pub enum Listener {
        C(CtrlC),
        Break(CtrlBreak),
        Close(CtrlClose),
    }

    pub fn listeners() -> Vec<(Listener, Stop)> {
        let stop = |what, name, code| Stop { what, name, code };
        [
            ctrl_c()
                .ok()
                .map(|s| (Listener::C(s), stop("interrupted", "Ctrl-C", 130))),
            ctrl_break()
                .ok()
                .map(|s| (Listener::Break(s), stop("interrupted", "Ctrl-Break", 130))),
            ctrl_close()
                .ok()
                .map(|s| (Listener::Close(s), stop("hung up", "console closed", 129))),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    pub async fn recv(s: &mut Listener) {
        match s {
            Listener::C(s) => s.recv().await,
            Listener::Break(s) => s.recv().await,
            Listener::Close(s) => s.recv().await,
        };
    }
}
