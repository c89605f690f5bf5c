//! The `requestState` of an `InputRequiredResult`: the answers a client has
//! given so far to one request's input requests, bound to that request and
//! signed with a key that lives as long as the process.
//!
//! The client keeps the state and sends it back with its next try; the
//! server keeps nothing. The signature (HMAC-SHA256) is what makes that
//! safe: a state that was altered, made up, or issued for another request
//! fails to open.

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

const BLOCK: usize = 64;

/// The process's signing key.
#[derive(Clone)]
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// A fresh random key: states signed by another process (or an earlier
    /// run of this one) do not open.
    pub fn random() -> Self {
        let mut key = [0u8; 32];
        key[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        key[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        Self(key)
    }

    fn mac(&self, message: &[u8]) -> [u8; 32] {
        let mut block = [0u8; BLOCK];
        block[..32].copy_from_slice(&self.0);
        let pad = |byte: u8| block.map(|b| b ^ byte);
        let inner = Sha256::new()
            .chain_update(pad(0x36))
            .chain_update(message)
            .finalize();
        let outer = Sha256::new()
            .chain_update(pad(0x5c))
            .chain_update(inner)
            .finalize();
        let mut mac = [0u8; 32];
        mac.copy_from_slice(&outer);
        mac
    }

    /// The state holding `answers` for the request `binding` names.
    pub fn seal(&self, binding: &str, answers: &Map<String, Value>) -> String {
        let payload = json!({ "request": binding, "answers": answers }).to_string();
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mac = self.mac(payload.as_bytes());
        format!("{}.{}", engine.encode(payload), engine.encode(mac))
    }

    /// The answers in `state`, if it was signed here for the request
    /// `binding` names; otherwise why it is refused.
    pub fn open(&self, binding: &str, state: &str) -> Result<Map<String, Value>, &'static str> {
        const ALTERED: &str = "requestState failed its integrity check: it was altered or was not issued by this server";
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let (payload, mac) = state.split_once('.').ok_or(ALTERED)?;
        let payload = engine.decode(payload).map_err(|_| ALTERED)?;
        let mac = engine.decode(mac).map_err(|_| ALTERED)?;
        let expected = self.mac(&payload);
        // Compared in full whatever the first difference, so the time taken
        // says nothing about how much of a forged signature was right.
        let same = mac.len() == expected.len()
            && mac
                .iter()
                .zip(expected.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if !same {
            return Err(ALTERED);
        }
        let Ok(Value::Object(mut payload)) = serde_json::from_slice::<Value>(&payload) else {
            return Err(ALTERED);
        };
        if payload.get("request").and_then(Value::as_str) != Some(binding) {
            return Err(
                "requestState was issued for a different request (another method, name or arguments)",
            );
        }
        match payload.remove("answers") {
            Some(Value::Object(answers)) => Ok(answers),
            _ => Err(ALTERED),
        }
    }
}

/// What a state is bound to: the method and the params that choose what is
/// run (everything but `_meta`, `inputResponses` and `requestState`).
pub fn binding(method: &str, params: &Map<String, Value>) -> String {
    let mut chosen = params.clone();
    for key in ["_meta", "inputResponses", "requestState"] {
        chosen.remove(key);
    }
    let digest = Sha256::digest(format!("{method}\n{}", Value::Object(chosen)).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers() -> Map<String, Value> {
        let mut answers = Map::new();
        answers.insert("user_name".into(), json!({"action": "accept"}));
        answers
    }

    #[test]
    fn a_sealed_state_opens_for_its_request_only() {
        let key = Key::random();
        let state = key.seal("call-a", &answers());
        assert_eq!(key.open("call-a", &state), Ok(answers()));
        assert!(key.open("call-b", &state).is_err());
        assert!(Key::random().open("call-a", &state).is_err());
    }

    #[test]
    fn an_altered_state_is_refused() {
        let key = Key::random();
        let state = key.seal("call-a", &answers());
        assert!(key.open("call-a", &format!("{state}-TAMPERED")).is_err());
        assert!(key.open("call-a", "not a state").is_err());
        let (payload, mac) = state.split_once('.').expect("two parts");
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let forged = engine.encode(
            String::from_utf8(engine.decode(payload).expect("base64"))
                .expect("utf-8")
                .replace("accept", "decline"),
        );
        assert!(key.open("call-a", &format!("{forged}.{mac}")).is_err());
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        // RFC 4231 test case 2 uses a 4-byte key; ours are 32 bytes padded
        // with zeros the same way, so the padding rule is what is checked.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let mac = Key(key).mac(b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn the_binding_ignores_the_retry_members() {
        let mut a = Map::new();
        a.insert("name".into(), json!("t"));
        let mut b = a.clone();
        b.insert("requestState".into(), json!("x"));
        b.insert("inputResponses".into(), json!({}));
        assert_eq!(binding("tools/call", &a), binding("tools/call", &b));
        assert_ne!(binding("tools/call", &a), binding("prompts/get", &a));
    }
}
