//! mcpcheck-core: the pure checker core of mcpcheck.
//!
//! Text and values in, values out. This crate performs no I/O: no files, no
//! processes, no environment, no clock, no threads, no printing. It compiles for
//! `wasm32-unknown-unknown`, and every verdict of every front end is decided here.

pub mod capture;
pub mod invariants;
