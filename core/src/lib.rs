//! mcpcheck-core: the pure checker core of mcpcheck.
//!
//! Text and values in, values out. This crate performs no I/O: no files, no
//! processes, no environment, no clock, no threads, no printing. It compiles for
//! `wasm32-unknown-unknown`, and every verdict of every front end is decided here.
//! The bans are enforced by `clippy.toml` (disallowed methods) and the lints below.

#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The surface front ends use. Each module says what it is for; items a
// front end needs from a private module are re-exported below.
pub mod api;
pub mod baseline;
pub mod capture;
pub mod config;
pub mod contract;
pub mod coverage;
pub mod diag;
pub mod error;
pub mod expect;
pub mod findings;
pub mod gate;
pub mod generate;
pub mod http_probe;
pub mod inject;
pub mod invariants;
pub mod lint;
pub mod load;
pub mod lock;
pub mod observation;
pub mod probe;
pub mod redact;
pub mod replay;
pub mod report;
pub mod results;
pub mod runner;
pub mod scan;
pub mod score;
pub mod setup;
pub mod shard;
pub mod snapshot;
pub mod suite;
pub mod temp_copy;
pub mod template;
pub mod trajectory;

// Private: the machinery behind the surface.
mod check;
mod path;
mod read;
mod sort;
mod value;
mod yaml;

pub use check::Facts;
/// The JSONPath engine behind every path, public for the differential test
/// that holds it to the reference implementation.
#[doc(hidden)]
pub use path::jsonpath;
pub use read::parse_duration_ms;
pub use value::{truncate, type_name};

/// The version of mcpcheck (all crates and the npm package move together).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
