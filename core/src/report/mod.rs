//! Renderers: results in, text out. The CLI writes what they return to the
//! terminal or to files; the playground paints the HTML variant.

pub mod text;
