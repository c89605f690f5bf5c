//! mcpcheck-web: wasm-bindgen exports of the mcpcheck core.
