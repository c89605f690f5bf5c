//! The built-in reference MCP server behind `mcpcheck serve`
//! (`commands/serve.rs` has its flags).
//!
//! A deterministic server with a tool, prompt and resource for each part of
//! the protocol, served over stdio (default), Streamable HTTP or legacy SSE,
//! with optional authentication, an audit log, and faults to commit on
//! purpose. docs/serve.md describes the behaviour a client can rely on.
//!
//! Layout: `handler` is the MCP server (rmcp `ServerHandler`); `tools` and
//! `catalog` hold its fixed data and pure logic; `stdio`, `http` and
//! `legacy` are the transports; `faults`, `auth` and `audit` are the
//! cross-cutting options; `oauth` is the authorization server of `--oauth`. `modern` serves the 2026-07-28 revision (no
//! handshake, `_meta` on every request) in front of the same handler; the
//! transports pick the era per message.

/// The extensions: MCP Apps (`apps`), Skills (`skills`), Tasks (`tasks`),
/// and what the handler serves of them (`extensions`).
pub mod apps;
pub mod audit;
pub mod auth;
mod catalog;
pub mod extensions;
pub mod faults;
/// The official conformance suite's fixture surface, beside the server's own
/// catalogue: `fixtures` holds the data, `fixtures_calls` the tools that talk
/// to the client.
mod fixtures;
mod fixtures_calls;
pub mod handler;
pub mod http;
mod legacy;
pub mod modern;
mod notes;
pub mod oauth;
pub mod skills;
pub mod stdio;
pub mod tasks;
mod tools;
