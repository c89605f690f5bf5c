//! `derivedMetrics`: named weighted aggregates of check, set and earlier
//! metric scores.

use crate::read::LoadCx;
use crate::yaml::Node;

use super::list::weight_of;
use super::{DerivedMetric, Item, MetricRef};

/// Compile `derivedMetrics`, checking references: a metric may use named
/// checks, named assert-sets and metrics declared before it. A reference to
/// itself or to a later metric is an error; a name that matches nothing is a
/// warning (it scores 0, and the report shows it).
pub fn compile_derived(cx: &mut LoadCx, node: &Node, items: &[Item]) -> Vec<DerivedMetric> {
    let Some(list) = cx.seq(node, "derivedMetrics") else {
        return Vec::new();
    };
    let mut known: Vec<String> = Vec::new();
    for i in items {
        match i {
            Item::Check(c) if c.named => known.push(c.name.clone()),
            Item::Set(s) => {
                known.push(s.name.clone());
                known.extend(s.checks.iter().filter(|c| c.named).map(|c| c.name.clone()));
            }
            _ => {}
        }
    }
    let all_metric_names: Vec<String> = list
        .iter()
        .filter_map(|m| {
            m.get("name")
                .and_then(Node::scalar_text)
                .map(str::to_string)
        })
        .collect();
    let mut out: Vec<DerivedMetric> = Vec::new();
    for m in list {
        let entries = cx.entries(m, "derivedMetrics item", &["name", "threshold", "value"]);
        let mut name = None;
        let mut threshold = None;
        let mut value = None;
        for (k, _, v) in &entries {
            match *k {
                "name" => name = cx.name(v, "name"),
                "threshold" => threshold = Some(*v),
                "value" => value = Some(*v),
                _ => {}
            }
        }
        let Some(name) = name else {
            cx.error(m.span, "a derived metric needs a `name`");
            continue;
        };
        if out.iter().any(|d| d.name == name) {
            cx.error(m.span, format!("derived metric `{name}` is declared twice"));
            continue;
        }
        let Some(value) = value else {
            cx.error_hint(
                m.span,
                format!("derived metric `{name}` needs a `value`"),
                "e.g. `value: {weighted_average: [{ref: a, weight: 2}]}`",
            );
            continue;
        };
        let ve = cx.entries(value, "value", &["weighted_sum", "weighted_average"]);
        if ve.len() != 1 {
            if ve.len() > 1 {
                cx.error(value.span, "a derived metric's `value` is either `weighted_sum` or `weighted_average`, not both");
            } else if value.as_map().is_some_and(|e| e.is_empty()) {
                cx.error(
                    value.span,
                    "`value` needs `weighted_sum` or `weighted_average`",
                );
            }
            continue;
        }
        let (agg, _, refs_node) = ve[0];
        // A weighted average lies in [0, 1], so its threshold is a fraction
        // like a test's; a weighted sum can exceed 1 (2*1 + 3*1 = 5), and so
        // can its threshold.
        let threshold = match threshold {
            Some(t) if agg == "weighted_average" => cx.fraction(t, "threshold"),
            Some(t) => cx.number(t, "threshold"),
            None => None,
        };
        let Some(ref_items) = cx.seq(refs_node, agg) else {
            continue;
        };
        let mut refs = Vec::new();
        for r in ref_items {
            let re = cx.entries(r, agg, &["ref", "weight"]);
            let mut rname = None;
            let mut w = 1.0;
            let mut rspan = r.span;
            for (k, _, v) in re {
                if k == "ref" {
                    rname = cx.name(v, "ref");
                    rspan = v.span;
                } else {
                    w = weight_of(cx, v).unwrap_or(w);
                }
            }
            let Some(rname) = rname else {
                cx.error(r.span, "each reference needs `ref: <name>`");
                continue;
            };
            if rname == name {
                cx.error_hint(
                    rspan,
                    format!("derived metric `{name}` refers to itself"),
                    "a metric can only use checks, sets and metrics declared before it",
                );
                continue;
            }
            let earlier = out.iter().any(|d| d.name == rname);
            let later = all_metric_names.contains(&rname) && !earlier;
            if later {
                cx.error_hint(
                    rspan,
                    format!(
                        "derived metric `{name}` refers to `{rname}`, which is declared after it"
                    ),
                    format!(
                        "derived metrics evaluate in declaration order: move `{rname}` above it"
                    ),
                );
                continue;
            }
            if !earlier && !known.contains(&rname) {
                let hint = crate::diag::did_you_mean(&rname, known.iter().map(String::as_str))
                    .or_else(|| Some("name the check or assert-set with `name:`".to_string()));
                cx.warning(
                    rspan,
                    format!("`{rname}` names no check, assert-set or earlier metric; it scores 0"),
                    hint,
                );
            }
            refs.push(MetricRef {
                name: rname,
                weight: w,
                span: rspan,
            });
        }
        out.push(DerivedMetric {
            name,
            average: agg == "weighted_average",
            refs,
            threshold,
            span: m.span,
        });
    }
    out
}
