# How the package checks (scripts/check-package.sh, scripts/check-client-package.sh) end:
# sourced, not run. Each expects the caller's `check_name` (what its failure messages start
# with), `work` (its temporary directory) and `server_pid` (the server it started, or empty).

# For the EXIT trap: ends the server, if it still runs, and removes the temporary directory.
# The server runs in its own process group (setsid): after a failure, npx and the node it
# started end together.
end_server_and_remove_work() {
  if [[ -n "$server_pid" ]] && kill -0 -- "-$server_pid" 2>/dev/null; then
    kill -KILL -- "-$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}

# Prints the message, and the server's log if it started, and exits 1.
fail() {
  echo "$check_name: $*" >&2
  [[ -f "$work/serve.log" ]] && sed 's/^/  serve| /' "$work/serve.log" >&2
  exit 1
}
