//! The fast path of validation: a verdict without building a `serde_json::Value`.
//!
//! On native targets a message is read into a [`tape`](super::tape) and validated
//! there; only a message that fails (or cannot be taped) goes on to the `Value`
//! validator, whose errors the findings quote. On wasm32 there is no fast path: it
//! would add a second instantiation of jsonschema's validators (about 570 KB) to a
//! binary that checks the small captures of a browser tab, where it saves nothing.
//! Either way the verdict is the `Value` validator's (the tape's is held to it by the
//! differential test in `schema.rs`).

use jsonschema::{Draft, Registry};
use serde_json::Value;

/// Why a fast validator could not be built: the validator library's error
/// (the `Value` validator, built from the same schema, reports it).
pub(crate) type BuildError = jsonschema::ValidationError<'static>;

#[cfg(not(target_family = "wasm"))]
mod imp {
    use super::super::tape::{Tape, TapeBuffer, TapeJson};
    use super::{BuildError, Draft, Registry, Value};

    /// Reusable storage for reading messages.
    pub(crate) type Buffer = TapeBuffer;

    /// A validator for tapes.
    pub(crate) struct Fast(jsonschema::Validator<TapeJson>);

    pub(crate) fn build(
        schema: &Value,
        registry: Option<&Registry<'static>>,
        draft: Option<Draft>,
    ) -> Result<Option<Fast>, BuildError> {
        let mut options = jsonschema::options_for::<TapeJson>();
        if let Some(registry) = registry {
            options = options.with_registry(registry);
        }
        if let Some(draft) = draft {
            options = options.with_draft(draft);
        }
        options.build(schema).map(|v| Some(Fast(v)))
    }

    pub(crate) fn is_valid(fast: &Fast, text: &str, buffer: &mut Buffer) -> Option<bool> {
        Tape::build(text, buffer).map(|tape| fast.0.is_valid(tape.root()))
    }
}

#[cfg(target_family = "wasm")]
mod imp {
    use super::{BuildError, Draft, Registry, Value};

    /// Nothing to reuse without a fast path (a field, not a unit struct, so that both
    /// targets create it the same way).
    #[derive(Default)]
    pub(crate) struct Buffer(());

    /// No fast validator exists on this target.
    pub(crate) enum Fast {}

    pub(crate) fn build(
        _: &Value,
        _: Option<&Registry<'static>>,
        _: Option<Draft>,
    ) -> Result<Option<Fast>, BuildError> {
        Ok(None)
    }

    pub(crate) fn is_valid(fast: &Fast, _: &str, _: &mut Buffer) -> Option<bool> {
        match *fast {}
    }
}

pub(crate) use imp::{Buffer, Fast, build, is_valid};
