//! What the rules know about one session before they start: its protocol revision,
//! the capabilities each side declared, and a walk over every message in order.
//!
//! Resolution order, documented in `docs/capture.md`:
//! - protocol version: the session's `protocol_version`, else the `protocolVersion` of
//!   the initialize result, else the `io.modelcontextprotocol/protocolVersion` in the
//!   first request's `_meta` (2026-07-28 sessions have no handshake);
//! - server capabilities: `server_capabilities`, else the initialize result's
//!   `capabilities`, else the `server/discover` result's;
//! - client capabilities: `client_capabilities`, else the initialize request's
//!   `capabilities` (and, per request from 2026-07-28, the request's
//!   `io.modelcontextprotocol/clientCapabilities`).

use std::cell::OnceCell;

use serde_json::Value;

use super::json;
use crate::capture::{Message, Session};

/// The `_meta` key of the protocol version on 2026-07-28 requests.
pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the client capabilities on 2026-07-28 requests.
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the requested log level on 2026-07-28 requests.
pub(crate) const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// A protocol revision whose schema mcpcheck carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Revision {
    R2024_11_05,
    R2025_03_26,
    R2025_06_18,
    R2025_11_25,
    R2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub(crate) const ALL: [Revision; 5] = [
        Revision::R2024_11_05,
        Revision::R2025_03_26,
        Revision::R2025_06_18,
        Revision::R2025_11_25,
        Revision::R2026_07_28,
    ];

    pub(crate) fn parse(version: &str) -> Option<Revision> {
        Revision::ALL.into_iter().find(|r| r.as_str() == version)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Revision::R2024_11_05 => "2024-11-05",
            Revision::R2025_03_26 => "2025-03-26",
            Revision::R2025_06_18 => "2025-06-18",
            Revision::R2025_11_25 => "2025-11-25",
            Revision::R2026_07_28 => "2026-07-28",
        }
    }

    /// Revisions without the initialize handshake ("modern", from 2026-07-28).
    pub(crate) fn is_stateless(self) -> bool {
        self >= Revision::R2026_07_28
    }
}

/// Where a message sits in the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The exchange's request (client → server).
    Request,
    /// The exchange's response (server → client).
    Response,
    /// A server notification during the exchange.
    Notification(usize),
    /// A server→client request during the exchange.
    ServerRequest(usize),
    /// The client's answer to a server→client request.
    ServerReply(usize),
    /// A session-level unmatched server message.
    Unmatched(usize),
    /// The client's answer to an unmatched server request.
    UnmatchedReply(usize),
}

impl Slot {
    /// Whether the server wrote the message.
    pub(crate) fn is_from_server(self) -> bool {
        !matches!(
            self,
            Slot::Request | Slot::ServerReply(_) | Slot::UnmatchedReply(_)
        )
    }

    /// How a finding names the message.
    pub(crate) fn describe(self) -> String {
        match self {
            Slot::Request => "request".to_string(),
            Slot::Response => "response".to_string(),
            Slot::Notification(i) => format!("notification {i}"),
            Slot::ServerRequest(i) => format!("server request {i}"),
            Slot::ServerReply(i) => format!("reply to server request {i}"),
            Slot::Unmatched(i) => format!("unmatched message {i}"),
            Slot::UnmatchedReply(i) => format!("reply to unmatched message {i}"),
        }
    }
}

/// One message with its place.
#[derive(Clone, Copy)]
pub(crate) struct Located<'s, 'a> {
    pub(crate) message: &'s Message<'a>,
    /// The exchange it belongs to; for unmatched messages, `after_exchange`.
    pub(crate) exchange: Option<usize>,
    pub(crate) slot: Slot,
}

impl Located<'_, '_> {
    /// How a finding names the message: `request (tools/call, id 3)`,
    /// `notification 0 (notifications/progress)`.
    pub(crate) fn place(&self) -> String {
        format!("{} ({})", self.slot.describe(), self.message.describe())
    }
}

/// A session prepared for the rules.
pub(crate) struct SessionCtx<'s, 'a> {
    pub(crate) session: &'s Session<'a>,
    /// Whether the session is on a revision without the handshake.
    pub(crate) stateless: bool,
    /// The revision whose schema validates the messages; `None` when the declared
    /// version is unknown (INV-019 reports that instead).
    pub(crate) schema_revision: Option<Revision>,
    /// Index of the first initialize exchange.
    pub(crate) initialize: Option<usize>,
    /// The server's advertised capabilities, when any source gives them.
    pub(crate) server_caps: Option<Value>,
    /// The client's declared capabilities, when any source gives them.
    pub(crate) client_caps: Option<Value>,
    /// Unmatched entries in arrival order (by `after_exchange`, stable).
    unmatched_order: Vec<usize>,
    /// The 2026-07-28 view, made when first asked for.
    modern: OnceCell<Option<super::modern::Modern>>,
}

/// The index of the session's first request.
fn first_request(session: &Session<'_>) -> Option<usize> {
    session
        .exchanges
        .iter()
        .position(|e| e.request.is_request())
}

impl<'s, 'a> SessionCtx<'s, 'a> {
    pub(crate) fn new(session: &'s Session<'a>) -> Self {
        // The handshake's initialize: one that names no 2026-07-28 `_meta` version
        // (a 2026-07-28 session's initialize is a probe of a removed method).
        let initialize = session.exchanges.iter().position(|e| {
            e.request.is_request()
                && e.request.method_is("initialize")
                && meta(&e.request, META_PROTOCOL_VERSION).is_none()
        });
        let init_exchange = initialize.and_then(|i| session.exchanges.get(i));
        let init_result = init_exchange
            .and_then(|e| e.response.as_ref())
            .and_then(|r| r.result());

        // initialize negotiates a handshake revision only: an answer naming a
        // stateless one (INV-019's finding) leaves the session in the handshake
        // era, on the revision the client asked for.
        let init_version = init_result
            .and_then(|r| json::member(r, "protocolVersion"))
            .and_then(json::as_str)
            .map(|v| v.into_owned());
        let init_version = match init_version {
            Some(v) if Revision::parse(&v).is_some_and(Revision::is_stateless) => Some(
                init_exchange
                    .and_then(|e| e.request.params())
                    .and_then(|p| json::member(p, "protocolVersion"))
                    .and_then(json::as_str)
                    .map(|v| v.into_owned())
                    .filter(|v| !Revision::parse(v).is_some_and(Revision::is_stateless))
                    .unwrap_or_else(|| Revision::R2025_11_25.as_str().to_string()),
            ),
            other => other,
        };
        let version = session
            .protocol_version
            .as_ref()
            .map(|v| v.to_string())
            .or(init_version)
            .or_else(|| {
                session
                    .exchanges
                    .iter()
                    .find(|e| e.request.is_request())
                    .and_then(|e| e.request.params())
                    .and_then(|p| json::path(p, &["_meta", META_PROTOCOL_VERSION]))
                    .and_then(json::as_str)
                    .map(|v| v.into_owned())
            });
        let revision = version.as_deref().and_then(Revision::parse);
        // A session opened with the handshake speaks the handshake era, whatever
        // version a recorder wrote for it.
        let stateless = revision.is_some_and(Revision::is_stateless)
            && init_result.is_none_or(|_| initialize != first_request(session));
        let schema_revision = match &version {
            Some(_) => revision,
            // Nothing says which revision: judge by the newest handshake revision,
            // which is what a capture without version information most likely is.
            None => Some(Revision::R2025_11_25),
        };

        let server_caps = session
            .server_capabilities
            .and_then(|c| json::to_value(c.get()))
            .or_else(|| {
                init_result
                    .and_then(|r| json::member(r, "capabilities"))
                    .filter(|c| json::is_object(c))
                    .and_then(json::to_value)
            })
            .or_else(|| {
                session
                    .exchanges
                    .iter()
                    .filter(|e| e.request.method_is("server/discover"))
                    .find_map(|e| e.response.as_ref()?.result())
                    .and_then(|r| json::member(r, "capabilities"))
                    .filter(|c| json::is_object(c))
                    .and_then(json::to_value)
            });
        let client_caps = session
            .client_capabilities
            .and_then(|c| json::to_value(c.get()))
            .or_else(|| {
                initialize
                    .and_then(|i| session.exchanges.get(i))
                    .and_then(|e| e.request.params())
                    .and_then(|p| json::member(p, "capabilities"))
                    .filter(|c| json::is_object(c))
                    .and_then(json::to_value)
            });

        let mut unmatched_order: Vec<usize> = (0..session.unmatched.len()).collect();
        unmatched_order.sort_by_key(|&i| session.unmatched.get(i).and_then(|u| u.after_exchange));

        SessionCtx {
            session,
            stateless,
            schema_revision,
            initialize,
            server_caps,
            client_caps,
            unmatched_order,
            modern: OnceCell::new(),
        }
    }

    /// The 2026-07-28 view of the session (the refusal each request must get),
    /// read once; `None` for a handshake session.
    pub(crate) fn modern(&self) -> Option<&super::modern::Modern> {
        self.modern
            .get_or_init(|| super::modern::Modern::of(self))
            .as_ref()
    }

    /// The server capabilities the capability rules judge by: on handshake revisions a
    /// session with none recorded advertised nothing (`null`, as mcptest reads it);
    /// on stateless revisions, where capabilities come only from `server/discover`,
    /// unknown capabilities mean the rules cannot judge (`None`).
    pub(crate) fn server_caps_for_rules(&self) -> Option<&Value> {
        match &self.server_caps {
            Some(caps) => Some(caps),
            None if self.stateless => None,
            None => Some(&Value::Null),
        }
    }

    /// The client capabilities in force for the request of exchange `index`.
    pub(crate) fn client_caps_for(&self, index: Option<usize>) -> Value {
        if self.stateless {
            let per_request = index
                .and_then(|i| self.session.exchanges.get(i))
                .and_then(|e| e.request.params())
                .and_then(|p| json::path(p, &["_meta", META_CLIENT_CAPABILITIES]))
                .and_then(json::to_value);
            if let Some(caps) = per_request {
                return caps;
            }
        }
        self.client_caps.clone().unwrap_or(Value::Null)
    }

    /// Calls `visit` for every message of the session in arrival order: per exchange
    /// the request, its notifications, its server requests (each with the client's
    /// reply), then the response; unmatched messages after the exchange they follow.
    pub(crate) fn for_each_message(&self, mut visit: impl FnMut(Located<'s, 'a>)) {
        let session = self.session;
        let mut pending = self.unmatched_order.iter().peekable();
        let mut flush = |upto: Option<usize>, visit: &mut dyn FnMut(Located<'s, 'a>)| {
            while let Some(&&u) = pending.peek() {
                let Some(entry) = session.unmatched.get(u) else {
                    pending.next();
                    continue;
                };
                let due = match (entry.after_exchange, upto) {
                    (None, _) => true,
                    (Some(_), None) => false,
                    (Some(after), Some(upto)) => after <= upto,
                };
                if !due {
                    break;
                }
                pending.next();
                visit(Located {
                    message: &entry.message,
                    exchange: entry.after_exchange,
                    slot: Slot::Unmatched(u),
                });
                if let Some(reply) = &entry.response {
                    visit(Located {
                        message: reply,
                        exchange: entry.after_exchange,
                        slot: Slot::UnmatchedReply(u),
                    });
                }
            }
        };
        flush(None, &mut visit);
        for (i, exchange) in session.exchanges.iter().enumerate() {
            let at = Some(i);
            visit(Located {
                message: &exchange.request,
                exchange: at,
                slot: Slot::Request,
            });
            for (n, message) in exchange.notifications().iter().enumerate() {
                visit(Located {
                    message,
                    exchange: at,
                    slot: Slot::Notification(n),
                });
            }
            for (n, entry) in exchange.server_requests().iter().enumerate() {
                visit(Located {
                    message: &entry.request,
                    exchange: at,
                    slot: Slot::ServerRequest(n),
                });
                if let Some(reply) = &entry.response {
                    visit(Located {
                        message: reply,
                        exchange: at,
                        slot: Slot::ServerReply(n),
                    });
                }
            }
            if let Some(response) = &exchange.response {
                visit(Located {
                    message: response,
                    exchange: at,
                    slot: Slot::Response,
                });
            }
            flush(at, &mut visit);
        }
        flush(Some(usize::MAX), &mut visit);
    }
}

/// Whether the capability object `caps` has `name` (present and not `null`/`false`).
pub(crate) fn has_capability(caps: &Value, name: &str) -> bool {
    caps.get(name)
        .is_some_and(|c| !c.is_null() && *c != Value::Bool(false))
}

/// Whether `caps.name.flag` is `true`.
pub(crate) fn has_flag(caps: &Value, name: &str, flag: &str) -> bool {
    caps.get(name).and_then(|c| c.get(flag)) == Some(&Value::Bool(true))
}

/// The `params._meta` member `key` of a request.
pub(crate) fn meta<'a>(message: &Message<'a>, key: &str) -> Option<&'a str> {
    json::path(message.params()?, &["_meta", key])
}
