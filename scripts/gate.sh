#!/usr/bin/env bash
# The regression gate of the tokbench GitHub action (action.yml), usable on its own:
# runs `tokbench run` with the inputs below and, when a baseline is given, compares the run
# with it (`tokbench run --baseline`, which writes OUT/compare.md and exits 1 on a regression).
#
# Inputs, from the environment (action.yml maps its inputs onto these):
#   GATE_TOKENIZERS     comma-separated tokenizer names or specs (empty: tokbench's default)
#   GATE_SUITES         comma-separated suite names or specs (empty: every built-in suite)
#   GATE_METRICS        comma-separated metrics or families (empty: all)
#   GATE_BASELINE       results.json or run folder to gate against (empty: run, do not gate)
#   GATE_FAIL           tolerances METRIC:TOL, separated by spaces, commas or new lines
#   GATE_ALLOW_CHANGE   inputs that may differ: tokenizer, backend, suite, settings, machine, all
#   GATE_ALLOW_REMOVED  "true": rows missing in the new run are not a regression
#   GATE_OUT            output folder (default tokbench-run)
#   GATE_HISTORY        SQLite history to record the run in (empty: not recorded)
#   GATE_ARGS           more arguments for `tokbench run`, split on white space
#   GATE_TOKBENCH       the tokbench command (default: tokbench)
#   GATE_EXIT_ZERO      "true": exit 0 whatever the verdict (the caller reads exit-code)
# Outputs, appended to $GITHUB_OUTPUT when set: exit-code, regression, results, markdown.
# The comparison is appended to $GITHUB_STEP_SUMMARY when set.
# Exit code: 0 no regression, 1 regression, 2 bad input or any failure (0 with GATE_EXIT_ZERO).
# Timings are judged only when GATE_FAIL names them (e.g. throughput:15%): a shared runner's
# clock is no verdict on the tokenizer.
set -uo pipefail -o noglob  # specs are split into words, never globbed

fail() {  # a bad input: one line, exit 2 (the outputs say so too)
  echo "::error::tokbench gate: $1"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'exit-code=2\nregression=false\nresults=\nmarkdown=\n' >> "$GITHUB_OUTPUT"
  fi
  [ "${GATE_EXIT_ZERO:-false}" = "true" ] && exit 0
  exit 2
}

# values end up in $GITHUB_OUTPUT and in the log, where a new line starts a new output or a
# workflow command (::warning::...): control characters are refused; only the lists
# GATE_FAIL and GATE_ARGS may use new lines and tabs as separators
for name in GATE_TOKENIZERS GATE_SUITES GATE_METRICS GATE_BASELINE GATE_ALLOW_CHANGE \
            GATE_ALLOW_REMOVED GATE_OUT GATE_HISTORY GATE_TOKBENCH GATE_EXIT_ZERO; do
  if [[ "${!name:-}" == *[[:cntrl:]]* ]]; then
    fail "$name contains a control character (a new line, tab, escape...); give it on one line"
  fi
done
for name in GATE_FAIL GATE_ARGS; do
  value="${!name:-}"
  value="${value//$'\n'/}"
  if [[ "${value//$'\t'/}" == *[[:cntrl:]]* ]]; then
    fail "$name contains a control character other than a new line or tab; remove it"
  fi
done

out="${GATE_OUT:-tokbench-run}"
read -r -a cmd <<< "${GATE_TOKBENCH:-tokbench}"
args=(run --out "$out")
[ -n "${GATE_TOKENIZERS:-}" ] && args+=(--tokenizers "$GATE_TOKENIZERS")
[ -n "${GATE_SUITES:-}" ] && args+=(--suites "$GATE_SUITES")
[ -n "${GATE_METRICS:-}" ] && args+=(--metrics "$GATE_METRICS")
if [ -n "${GATE_HISTORY:-}" ]; then
  args+=(--history "$GATE_HISTORY")
else
  args+=(--no-history)
fi
if [ -n "${GATE_BASELINE:-}" ]; then
  args+=(--baseline "$GATE_BASELINE")
  IFS=$' \t\n,' read -r -d '' -a specs <<< "${GATE_FAIL:-}"
  for spec in "${specs[@]}"; do
    args+=(--fail "$spec")
  done
  [ -n "${GATE_ALLOW_CHANGE:-}" ] && args+=(--allow-change "$GATE_ALLOW_CHANGE")
  [ "${GATE_ALLOW_REMOVED:-false}" = "true" ] && args+=(--allow-removed)
fi
IFS=$' \t\n' read -r -d '' -a extra <<< "${GATE_ARGS:-}"
args+=("${extra[@]}")

echo "tokbench gate: ${cmd[*]} ${args[*]}"  # no control characters: a line of its own
rm -f "$out/compare.md"  # never report the comparison of an earlier run
"${cmd[@]}" "${args[@]}"
code=$?

markdown=""
if [ "$code" -le 1 ] && [ -f "$out/compare.md" ]; then
  markdown="$out/compare.md"
elif [ "$code" = 1 ]; then
  # exit 1 is a regression only with the comparison that found it; anything else failed
  echo "tokbench exited 1 without a comparison ($out/compare.md): a failure, not a regression"
  code=2
fi
if [ "$code" != 0 ] && [ "$code" != 1 ]; then
  code=2  # bad input, a crash, a signal, a missing command: all failures, one code
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "regression=$([ "$code" = 1 ] && echo true || echo false)"
    echo "results=$out/results.json"
    echo "markdown=$markdown"
  } >> "$GITHUB_OUTPUT"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -n "$markdown" ]; then
  cat "$markdown" >> "$GITHUB_STEP_SUMMARY"
fi
case "$code" in
  0) ;;
  1) echo "::error::tokbench found a regression (see $markdown)" ;;
  *) echo "::error::tokbench could not run or compare (exit 2): bad input or a failure, not a regression" ;;
esac
if [ "${GATE_EXIT_ZERO:-false}" = "true" ]; then
  exit 0
fi
exit "$code"
