//! A capture as a timeline for people: per session, each exchange with a
//! one-line summary (method, id, how it was answered) and its messages as
//! written. The playground shows it next to the invariants report, so a page
//! never reads the capture format itself.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::{Capture, Exchange, Message, Session, Unmatched};

/// A message of the timeline, exactly as the capture holds it. It
/// serializes as that JSON, or — when the timeline was made
/// [`verbatim`](timeline_verbatim) — as a string holding its text, so a page
/// shows the bytes the server sent (key order, number spelling, escapes)
/// rather than a re-serialization.
#[derive(Debug, Clone, Copy)]
pub struct Msg<'a> {
    raw: &'a RawValue,
    as_text: bool,
}

impl Msg<'_> {
    /// The message's JSON text, as written in the capture.
    pub fn get(&self) -> &str {
        self.raw.get()
    }
}

impl Serialize for Msg<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.as_text {
            s.serialize_str(self.raw.get())
        } else {
            self.raw.serialize(s)
        }
    }
}

/// One session of a capture, in capture order.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TimelineSession<'a> {
    pub server_label: Option<&'a str>,
    pub exchanges: Vec<TimelineExchange<'a>>,
    /// Server messages that answered nothing the client sent.
    pub unmatched: Vec<TimelineUnmatched<'a>>,
}

/// How an exchange ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum ExchangeAnswer {
    /// The server answered with a result.
    Result,
    /// The server answered with an error.
    Error,
    /// A request nobody answered.
    NoResponse,
    /// A client notification: nothing to answer.
    Notification,
}

/// One exchange: the client's message and what happened while it was open.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TimelineExchange<'a> {
    /// The request's method, or `(no method)`.
    pub method: String,
    /// The request's id as JSON text (`7`, `"a"`); `null` for a notification.
    pub id: Option<String>,
    pub answer: ExchangeAnswer,
    /// The error's `code`, when the answer is an error that has one.
    pub error_code: Option<i64>,
    #[cfg_attr(feature = "ts", tsify(type = "unknown"))]
    pub request: Msg<'a>,
    #[cfg_attr(feature = "ts", tsify(type = "unknown"))]
    pub response: Option<Msg<'a>>,
    #[cfg_attr(feature = "ts", tsify(type = "unknown[]"))]
    pub notifications: Vec<Msg<'a>>,
    /// Server→client requests made meanwhile, each with the client's answer.
    pub server_requests: Vec<TimelineServerRequest<'a>>,
    /// When the request was sent (RFC 3339), when the capture says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub request_time: Option<&'a str>,
    /// When the response arrived (RFC 3339), when the capture says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub response_time: Option<&'a str>,
}

/// A server→client request and the client's answer.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TimelineServerRequest<'a> {
    #[cfg_attr(feature = "ts", tsify(type = "unknown"))]
    pub request: Msg<'a>,
    #[cfg_attr(feature = "ts", tsify(type = "unknown"))]
    pub response: Option<Msg<'a>>,
}

/// A server message that no open request could take.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TimelineUnmatched<'a> {
    /// The last exchange sent before it arrived; `null` when none had been.
    pub after_exchange: Option<usize>,
    #[cfg_attr(feature = "ts", tsify(type = "unknown"))]
    pub message: Msg<'a>,
    #[cfg_attr(feature = "ts", tsify(type = "unknown"))]
    pub response: Option<Msg<'a>>,
}

/// The timeline of every session of a parsed capture, its messages as JSON.
pub fn timeline<'a>(capture: &'a Capture<'a>) -> Vec<TimelineSession<'a>> {
    made(capture, false)
}

/// The timeline with every message as its text, verbatim (see [`Msg`]).
pub fn timeline_verbatim<'a>(capture: &'a Capture<'a>) -> Vec<TimelineSession<'a>> {
    made(capture, true)
}

fn made<'a>(capture: &'a Capture<'a>, as_text: bool) -> Vec<TimelineSession<'a>> {
    let msg = |m: &'a Message<'a>| Msg {
        raw: m.raw(),
        as_text,
    };
    capture.sessions.iter().map(|s| session(s, &msg)).collect()
}

fn session<'a>(
    s: &'a Session<'a>,
    msg: &dyn Fn(&'a Message<'a>) -> Msg<'a>,
) -> TimelineSession<'a> {
    TimelineSession {
        server_label: s.server_label.as_deref(),
        exchanges: s.exchanges.iter().map(|x| exchange(x, msg)).collect(),
        unmatched: s.unmatched.iter().map(|u| unmatched(u, msg)).collect(),
    }
}

fn exchange<'a>(
    x: &'a Exchange<'a>,
    msg: &dyn Fn(&'a Message<'a>) -> Msg<'a>,
) -> TimelineExchange<'a> {
    let id = x.request.id().map(|id| id.to_string());
    let answer = match (&x.response, &id) {
        (Some(r), _) if r.error().is_some() => ExchangeAnswer::Error,
        (Some(_), _) => ExchangeAnswer::Result,
        (None, Some(_)) => ExchangeAnswer::NoResponse,
        (None, None) => ExchangeAnswer::Notification,
    };
    TimelineExchange {
        method: x
            .request
            .method()
            .map_or_else(|| "(no method)".to_string(), |m| m.into_owned()),
        id,
        answer,
        error_code: x.response.as_ref().and_then(error_code),
        request: msg(&x.request),
        response: x.response.as_ref().map(msg),
        notifications: x.notifications().iter().map(msg).collect(),
        server_requests: x
            .server_requests()
            .iter()
            .map(|r| TimelineServerRequest {
                request: msg(&r.request),
                response: r.response.as_ref().map(msg),
            })
            .collect(),
        request_time: x.request_time,
        response_time: x.response_time,
    }
}

fn unmatched<'a>(
    u: &'a Unmatched<'a>,
    msg: &dyn Fn(&'a Message<'a>) -> Msg<'a>,
) -> TimelineUnmatched<'a> {
    TimelineUnmatched {
        after_exchange: u.after_exchange,
        message: msg(&u.message),
        response: u.response.as_ref().map(msg),
    }
}

/// The `code` of an error response, when it is an integer.
fn error_code(response: &Message<'_>) -> Option<i64> {
    let error: serde_json::Value = serde_json::from_str(response.error()?).ok()?;
    error.get("code")?.as_i64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_exchange_is_summed_up_and_keeps_its_messages_verbatim() {
        let text = r#"{"server_label": "s", "exchanges": [
            {"request": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
             "response": {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}},
             "notifications": [{"jsonrpc": "2.0", "method": "notifications/message"}]},
            {"request": {"jsonrpc": "2.0", "method": "notifications/initialized"}},
            {"request": {"jsonrpc": "2.0", "id": "a", "method": "x"},
             "response": {"jsonrpc": "2.0", "id": "a", "error": {"code": -32601, "message": "no"}}},
            {"request": {"jsonrpc": "2.0", "id": 3}}
        ], "unmatched": [{"message": {"jsonrpc": "2.0", "id": 9, "result": {}}, "after_exchange": 0}]}"#;
        let capture = crate::capture::parse(text).expect("a capture");
        let t = timeline(&capture);
        assert_eq!(t.len(), 1);
        let s = &t[0];
        assert_eq!(s.server_label, Some("s"));
        let rows: Vec<(&str, Option<&str>, ExchangeAnswer, Option<i64>)> = s
            .exchanges
            .iter()
            .map(|x| (x.method.as_str(), x.id.as_deref(), x.answer, x.error_code))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("tools/list", Some("1"), ExchangeAnswer::Result, None),
                (
                    "notifications/initialized",
                    None,
                    ExchangeAnswer::Notification,
                    None
                ),
                ("x", Some("\"a\""), ExchangeAnswer::Error, Some(-32601)),
                ("(no method)", Some("3"), ExchangeAnswer::NoResponse, None),
            ]
        );
        assert_eq!(s.exchanges[0].notifications.len(), 1);
        assert_eq!(
            s.exchanges[0].response.as_ref().map(Msg::get),
            Some(r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}"#)
        );
        assert_eq!(s.unmatched[0].after_exchange, Some(0));
        let json = serde_json::to_value(&t).expect("serializes");
        assert_eq!(json[0]["exchanges"][2]["answer"], "error");
        assert_eq!(json[0]["exchanges"][1]["answer"], "notification");
        assert_eq!(
            json[0]["exchanges"][0]["response"]["result"]["tools"],
            serde_json::json!([])
        );
    }

    #[test]
    fn a_verbatim_timeline_gives_each_message_as_its_text() {
        // What a re-serialization would change: key order, `1.0`, an escape.
        let response = r#"{"result": {"b": 1.0, "a": "caf\u00e9"}, "id": 1, "jsonrpc": "2.0"}"#;
        let text = format!(
            r#"{{"exchanges": [{{"request": {{"jsonrpc": "2.0", "id": 1, "method": "m"}},
                "response": {response},
                "notifications": [{{"jsonrpc":"2.0","method":"notifications/progress"}}]}}]}}"#
        );
        let capture = crate::capture::parse(&text).expect("a capture");
        let json = serde_json::to_value(timeline_verbatim(&capture)).expect("serializes");
        let x = &json[0]["exchanges"][0];
        assert_eq!(
            x["response"],
            serde_json::Value::String(response.to_string())
        );
        assert_eq!(
            x["notifications"][0],
            r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#
        );
        assert_eq!(x["answer"], "result");
    }
}
