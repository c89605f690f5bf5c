//! Captures: a session's wire log written in the capture format
//! (`docs/capture.md`), so `mcpcheck invariants` and the playground can judge
//! it later.
//!
//! Client requests pair with the server's responses by id; client
//! notifications are exchanges without a response; server notifications and
//! server→client requests attach to the client request that was open when
//! they arrived (or stand alone when none was). Lines that were not JSON are
//! kept verbatim under `raw`.

use serde_json::{Map, Value, json};

use crate::client::tap::Dir;
use crate::run::exec::SessionLog;

/// Build the capture document of one session.
pub fn from_log(log: &SessionLog) -> Value {
    let mut exchanges: Vec<Map<String, Value>> = Vec::new();
    // Indices into `exchanges` of client requests still waiting for an answer.
    let mut open: Vec<usize> = Vec::new();
    let mut raw: Vec<Value> = Vec::new();
    let mut server_caps = Value::Null;
    let mut client_caps = Value::Null;
    let mut unmatched: Vec<Value> = Vec::new();

    for e in &log.events {
        let Some(msg) = e.json.clone() else {
            raw.push(json!({"direction": dir_name(e.dir), "time": e.time, "text": e.raw}));
            continue;
        };
        match e.dir {
            Dir::Out if e.is_request() => {
                if e.method() == Some("initialize") {
                    client_caps = msg
                        .pointer("/params/capabilities")
                        .cloned()
                        .unwrap_or(Value::Null);
                }
                let mut x = Map::new();
                x.insert("request".into(), msg);
                x.insert("request_time".into(), json!(e.time));
                exchanges.push(x);
                open.push(exchanges.len() - 1);
            }
            Dir::Out if e.is_notification() => {
                let mut x = Map::new();
                x.insert("request".into(), msg);
                x.insert("request_time".into(), json!(e.time));
                exchanges.push(x);
            }
            Dir::Out => {
                // Our answer to a server→client request.
                let id = e.id().cloned();
                let target = exchanges.iter_mut().rev().find_map(|x| {
                    x.get_mut("server_requests")
                        .and_then(Value::as_array_mut)
                        .and_then(|list| {
                            list.iter_mut().find(|sr| {
                                sr.pointer("/request/id") == id.as_ref()
                                    && sr.get("response").is_none()
                            })
                        })
                });
                match target {
                    Some(sr) => {
                        if let Some(o) = sr.as_object_mut() {
                            o.insert("response".into(), msg);
                            o.insert("response_time".into(), json!(e.time));
                        }
                    }
                    None => unmatched
                        .push(json!({"direction": "client", "time": e.time, "message": msg})),
                }
            }
            Dir::In if e.is_response() => {
                let id = e.id().cloned();
                let pos = open.iter().position(|&i| {
                    exchanges[i].get("request").and_then(|r| r.get("id")) == id.as_ref()
                });
                match pos {
                    Some(p) => {
                        let i = open.remove(p);
                        if exchanges[i]
                            .get("request")
                            .and_then(|r| r.get("method"))
                            .and_then(Value::as_str)
                            == Some("initialize")
                        {
                            server_caps = msg
                                .pointer("/result/capabilities")
                                .cloned()
                                .unwrap_or(Value::Null);
                        }
                        exchanges[i].insert("response".into(), msg);
                        exchanges[i].insert("response_time".into(), json!(e.time));
                    }
                    None => unmatched
                        .push(json!({"direction": "server", "time": e.time, "message": msg})),
                }
            }
            Dir::In => {
                let key = if e.is_request() {
                    "server_requests"
                } else {
                    "notifications"
                };
                let item = if e.is_request() {
                    json!({"request": msg, "request_time": e.time})
                } else {
                    let mut m = msg;
                    if let Some(o) = m.as_object_mut() {
                        o.insert("_time".into(), json!(e.time));
                    }
                    m
                };
                match open.last() {
                    Some(&i) => {
                        let list = exchanges[i].entry(key).or_insert_with(|| json!([]));
                        if let Some(a) = list.as_array_mut() {
                            a.push(item);
                        }
                    }
                    None => unmatched
                        .push(json!({"direction": "server", "time": e.time, "message": item})),
                }
            }
        }
    }
    let mut doc = Map::new();
    doc.insert("server_label".into(), json!(log.label));
    doc.insert("server_capabilities".into(), server_caps);
    doc.insert("client_capabilities".into(), client_caps);
    doc.insert("transport".into(), json!(log.transport));
    doc.insert("protocol_version".into(), json!(log.protocol_version));
    doc.insert(
        "exchanges".into(),
        Value::Array(exchanges.into_iter().map(Value::Object).collect()),
    );
    if !unmatched.is_empty() {
        doc.insert("unmatched".into(), Value::Array(unmatched));
    }
    if !raw.is_empty() {
        doc.insert("raw".into(), Value::Array(raw));
    }
    Value::Object(doc)
}

fn dir_name(d: Dir) -> &'static str {
    match d {
        Dir::Out => "client",
        Dir::In => "server",
    }
}
