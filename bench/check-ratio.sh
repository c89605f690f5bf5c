#!/usr/bin/env bash
# The check benchmark: one expect block of 50 checks over a 1 MiB JSON tool
# response, against serde_json parsing the same response alone.
#
# Two measures, both as ratios to a floor measured in the same run:
#  - instructions (valgrind callgrind): repeatable whatever else the machine
#    is doing; the figure to compare over time;
#  - wall time (criterion medians): what a user waits, noisy on a shared machine.
# Shapes: `structured` (data in structuredContent) and `text` (data as the
# JSON text block, whose floor is parsing the response and its text).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -p mcpcheck-core --example check_cost >/dev/null 2>&1
bin=target/release/examples/check_cost
instr() {
  valgrind --tool=callgrind --toggle-collect='check_cost::measured_*' \
    --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 | awk '/refs:/ {gsub(",", "", $4); print $4}'
}
if command -v valgrind >/dev/null; then
  echo "instructions (callgrind):"
  for shape in structured text; do
    floor_mode=parse
    [ "$shape" = text ] && floor_mode=parse-both
    floor=$(instr "$floor_mode" "$shape")
    check=$(instr check "$shape")
    python3 -c "print(f'  {\"$shape\":<10} floor ({\"$floor_mode\"}) {$floor:>12,}  check {$check:>12,}  ratio {$check/$floor:.2f}x')"
  done
else
  echo "valgrind not found: instruction counts skipped"
fi

echo "wall time (criterion medians):"
cargo bench -p mcpcheck-core --bench check -- --noplot >/dev/null 2>&1
for shape in structured text; do
  python3 - "$shape" <<'PY'
import json, sys
shape = sys.argv[1]
def median(name):
    with open(f"target/criterion/{shape}/{name}/new/estimates.json") as f:
        return json.load(f)["median"]["point_estimate"] / 1e6
floor = "parse_both" if shape == "text" else "parse_only"
p, c = median(floor), median("parse_and_check")
print(f"  {shape:<10} {floor} {p:8.2f} ms  parse+check {c:8.2f} ms  ratio {c/p:.2f}x")
PY
done
