#!/usr/bin/env bash
# RUSTC_WRAPPER for the fuzz build: compiles Cranelift and regalloc2 without SanitizerCoverage.
# Coverage of our own crates (lexer, parser, checker, interpreter, JIT translator) is what
# steers the targets; instrumenting Cranelift too doubled the counters libFuzzer scans after
# every run and made each JIT compile several times slower. cargo-fuzz puts its flags in
# RUSTFLAGS for every crate and they come last, so they can only be removed here.
#   RUSTC_WRAPPER=$PWD/rustc-wrapper.sh cargo +nightly fuzz run differential -s none
rustc="$1"
shift
case " $* " in
*" --crate-name cranelift_"* | *" --crate-name regalloc2 "*)
  args=()
  for a in "$@"; do
    case "$a" in
    -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage*) ;;
    *) args+=("$a") ;;
    esac
  done
  exec "$rustc" "${args[@]}"
  ;;
esac
exec "$rustc" "$@"
