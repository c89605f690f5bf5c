//! Leaving cleanly when interrupted: on SIGINT, SIGTERM or SIGHUP every
//! process group the run started (servers, hooks) is killed and every
//! fixture copy still alive is removed, then the process exits with 128 +
//! the signal's number, as a shell reports it.

use tokio::signal::unix::{SignalKind, signal};

use crate::output::err;

/// Watch for the three signals for the rest of the process's life.
pub fn clean_up_on_interrupt() {
    tokio::spawn(async {
        let kinds = [
            (SignalKind::interrupt(), 130, "interrupted"),
            (SignalKind::terminate(), 143, "terminated"),
            (SignalKind::hangup(), 129, "hung up"),
        ];
        let mut streams = Vec::new();
        for (kind, code, what) in kinds {
            if let Ok(s) = signal(kind) {
                streams.push((s, code, what));
            }
        }
        if streams.is_empty() {
            return;
        }
        let waits = streams.iter_mut().map(|(s, code, what)| {
            Box::pin(async move {
                s.recv().await;
                (*code, *what)
            })
        });
        let ((code, what), _, _) = futures::future::select_all(waits).await;
        crate::client::stdio::kill_all_groups();
        crate::run::fixture::remove_live_copies();
        err(&format!("\n{what}\n"));
        std::process::exit(code);
    });
}
