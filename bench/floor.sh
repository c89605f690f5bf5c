#!/usr/bin/env bash
# The protocol floor: the least any client must do to run a suite's tests on
# one reused server, and nothing more. It copies the fixture (when there is
# one), starts the server, sends `initialize`, then each request of REQUESTS
# in turn, reading each answer before the next, and kills the server. It
# reads no suite, checks no answer, restores nothing between requests and
# writes no report, so its time is the server's own plus a shell's (bash
# reads an answer from a pipe a byte at a time: a few milliseconds over a
# suite's answers). A client sending the same requests to the same server
# can take hardly less.
#
#   bash bench/floor.sh REQUESTS FIXTURE|- -- SERVER_COMMAND [ARG…]
#
# REQUESTS has one JSON object per line, {"method": …, "params": …};
# `{{fixture}}` in it and in the server's arguments names the fixture copy.
# run-vs-mcp-assert.sh writes REQUESTS from a suite and times this script
# beside the two tools.
set -euo pipefail
requests=$1 fixture=$2
shift 3
copy=
if [ "$fixture" != - ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/mcpcheck-floor-XXXXXX")
  trap 'rm -rf "$dir"' EXIT
  cp -a "$fixture" "$dir/"
  copy=$dir/$(basename "$fixture")
fi
command=()
for a in "$@"; do command+=("${a//\{\{fixture\}\}/$copy}"); done
coproc SERVER { exec "${command[@]}" 2>/dev/null; }
# Bash forgets a coprocess's variables once it has exited: keep them.
pid=$SERVER_PID to=${SERVER[1]} from=${SERVER[0]}
echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}}' >&"$to"
if ! read -r answer <&"$from"; then
  echo "floor: the server closed its output before answering initialize" >&2
  exit 1
fi
echo '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&"$to"
id=1
while IFS= read -r request; do
  request=${request//\{\{fixture\}\}/$copy}
  echo "{\"jsonrpc\":\"2.0\",\"id\":$id,${request:1}" >&"$to"
  # A server may send notifications first: read up to this request's answer.
  while :; do
    if ! read -r answer <&"$from"; then
      echo "floor: the server closed its output before answering request $id" >&2
      exit 1
    fi
    case $answer in *"\"id\":$id,"* | *"\"id\":$id}"*) break ;; esac
  done
  id=$((id + 1))
done <"$requests"
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
