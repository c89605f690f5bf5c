//! Renderers: results in, text out. The CLI writes what they return to the
//! terminal or to files; the playground paints the HTML variant.
//!
//! Every renderer is a pure function of a [`Results`](crate::results::Results)
//! document, so `mcpcheck report --from results.json` re-renders a saved run
//! exactly as the run itself would have: `text` (terminal and logs),
//! `junit` (CI test views), `markdown` (job summaries), `badge` (shields.io
//! endpoint JSON) and `sarif` (code scanning).

pub mod badge;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod text;

/// `n` and the noun agreeing with it: `1 test`, `2 tests`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `n` of `of` as a percentage with at most one decimal: `57.1%`, `100%`.
pub fn percent(n: usize, of: usize) -> String {
    if of == 0 {
        return "0%".into();
    }
    let p = (n as f64 * 1000.0 / of as f64).round() / 10.0;
    if p.fract() == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn percent() {
        let table = [
            (4, 7, "57.1%"),
            (3, 7, "42.9%"),
            (1, 1, "100%"),
            (0, 5, "0%"),
            (0, 0, "0%"),
            (2, 3, "66.7%"),
            (999, 1000, "99.9%"),
            (9995, 10000, "100%"),
        ];
        for (n, of, want) in table {
            assert_eq!(super::percent(n, of), want, "{n}/{of}");
        }
    }
}
