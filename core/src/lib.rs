//! mcpcheck-core: the pure checker core of mcpcheck.
//!
//! Text and values in, values out. This crate performs no I/O: no files, no
//! processes, no environment, no clock, no threads, no printing. It compiles for
//! `wasm32-unknown-unknown`, and every verdict of every front end is decided here.
//! The bans are enforced by `clippy.toml` (disallowed methods) and the lints below.

#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod baseline;
pub mod capture;
pub mod check;
pub mod coverage;
pub mod diag;
pub mod expect;
pub mod gate;
pub mod generate;
pub mod invariants;
pub mod observation;
pub mod path;
pub mod read;
pub mod redact;
pub mod report;
pub mod results;
pub mod score;
pub mod snapshot;
pub mod value;
pub mod yaml;

/// The version of mcpcheck (all crates and the npm package move together).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub mod api;
pub mod setup;
pub mod suite;
pub mod template;
pub mod trajectory;
