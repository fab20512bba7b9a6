#!/usr/bin/env bash
# Runs `prestage plan` on Slurm: every step the plan needs becomes a sweep array job and a merge job
# (the two sbatch scripts beside this one), and the merged results are fed back to the plan, until
# the plan is answered. Run it on a submit (login) node; it waits for each step's jobs.
#
#   docs/cluster/prestage-plan-slurm.sh OUT_DIR SHARD_COUNT SCENARIO PLAN_OPTIONS...
#   e.g. docs/cluster/prestage-plan-slurm.sh /shared/plan/send-rate 8 /shared/scenarios/send-rate-vs-origin.json \
#            --vary 'campaigns[0].sendRatePerMinute=60000..3000000' --tolerance 10%
#
# Each round:
#   1. $PRESTAGE_BIN plan SCENARIO PLAN_OPTIONS... --out OUT_DIR/plan --emit-sweep OUT_DIR/steps/K/step.json
#      [--ingest OUT_DIR/steps/K-1/merged]: stores the previous step's replications (in
#      OUT_DIR/plan.partial/ while the plan is unanswered), and writes the sweep file of the next step
#      if replications are still missing; if none are, it writes OUT_DIR/plan/ (plan.json, plan.csv,
#      plan.md, plan.html, evaluations/), prints the answer, and this script ends (exit 0);
#   2. sbatch --array=0-(SHARD_COUNT-1) prestage-sweep.sbatch OUT_DIR/steps/K/step.json OUT_DIR/steps/K
#      and sbatch --dependency=afterok:ARRAY prestage-merge.sbatch OUT_DIR/steps/K SHARD_COUNT (the
#      README's two commands), then waits until squeue shows the merge job ended, asking every
#      PRESTAGE_POLL_SECONDS (default 10);
#   3. checks that OUT_DIR/steps/K/merged exists (a failed shard cancels the merge), K = K + 1.
#
# OUT_DIR and SCENARIO must be on a file system every compute node sees (absolute paths). A step has
# one knob value and its replications as work items, so shards beyond that count run nothing.
# PRESTAGE_BIN (default: `prestage` on PATH) is used here and, through sbatch's environment, in the
# jobs. PRESTAGE_POLL_SECONDS (default 10, 1...3600) is how often squeue is asked whether a step's
# merge job has ended. Other sbatch settings come from sbatch's own variables (SBATCH_PARTITION,
# SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...). Logs go to the current directory
# (prestage-sweep-ARRAY_i.out, prestage-merge-JOB.out). Rerunning after a failure continues with
# the next free step number and first ingests the last merged step; replications already ingested
# are kept in OUT_DIR/plan.partial/evaluations.
# PRESTAGE_STUDY=sensitivity runs `prestage sensitivity SCENARIO OPTIONS...` the same way (its
# results in OUT_DIR/sensitivity; its steps are the screening, then the Sobol step); the default is
# plan.
# Exit status: 0 when the plan is written (as `prestage plan`'s, e.g. 3 with --fail-on-slo), 2 for
# bad arguments, 1 when a step's jobs fail (naming the step and its jobs), or the plan's own code.
set -euo pipefail

# fail MESSAGE [EXIT_STATUS]: the message on standard error, then exit (default 1).
fail() { echo "prestage-plan-slurm.sh: $1" >&2; exit "${2:-1}"; }
usage() { fail "$1 (usage: $0 OUT_DIR SHARD_COUNT SCENARIO PLAN_OPTIONS...)" 2; }

[ "$#" -ge 3 ] || usage "expected at least 3 arguments, found $#"
out_dir=$1
count=$2
scenario=$3
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prestage=${PRESTAGE_BIN:-prestage}
# Most shards accepted (prestage-merge.sbatch's limit).
shard_count_max=10000
poll_seconds=${PRESTAGE_POLL_SECONDS:-10}
poll_seconds_max=3600
study=${PRESTAGE_STUDY:-plan}
case "$study" in plan | sensitivity) ;; *) fail "PRESTAGE_STUDY: expected plan or sensitivity, found '$study'" 2 ;; esac

# check_integer NAME VALUE MAX: VALUE is an integer in 1...MAX, else a usage error naming NAME.
check_integer() {
  case "$2" in '' | *[!0-9]*) usage "$1: expected an integer in 1...$3, found '$2'" ;; esac
  [ "${#2}" -le 9 ] && [ "$2" -ge 1 ] && [ "$2" -le "$3" ] || usage "$1: expected an integer in 1...$3, found '$2'"
}
check_integer SHARD_COUNT "$count" "$shard_count_max"
check_integer PRESTAGE_POLL_SECONDS "$poll_seconds" "$poll_seconds_max"
case "$out_dir" in /*) ;; *) usage "OUT_DIR: expected an absolute path (the jobs run elsewhere), found '$out_dir'" ;; esac
for option in "$@"; do
  case "$option" in
    --out | --out=* | --emit-sweep | --emit-sweep=* | --ingest | --ingest=*)
      usage "PLAN_OPTIONS: $option is set by this script (OUT_DIR and the steps under it)" ;;
  esac
done
command -v "$prestage" >/dev/null 2>&1 || fail "PRESTAGE_BIN '$prestage' is not an executable" 2
command -v sbatch >/dev/null 2>&1 && command -v squeue >/dev/null 2>&1 || fail "sbatch or squeue not found: run this on a Slurm submit node" 2

# merge_ended JOB: the job has ended, however (or slurmctld no longer knows it); a failing squeue
# (slurmctld busy) is asked again at the next poll.
merge_ended() {
  local state
  state=$(squeue -h -j "$1" -t all -o %T 2>&1) || { grep -qi 'invalid job id' <<< "$state"; return; }
  case "$state" in
    COMPLETED | CANCELLED* | FAILED | TIMEOUT | NODE_FAIL | PREEMPTED | BOOT_FAIL | DEADLINE | OUT_OF_MEMORY | "") return 0 ;;
    *) return 1 ;;
  esac
}

mkdir -p "$out_dir/steps"
# A rerun continues after the last step started, ingesting the last merged one again (harmless).
step=0
while [ -e "$out_dir/steps/$step" ]; do step=$((step + 1)); done
ingest=()
if [ "$step" -gt 0 ] && [ -d "$out_dir/steps/$((step - 1))/merged" ]; then ingest=(--ingest "$out_dir/steps/$((step - 1))/merged"); fi

while :; do
  step_dir=$out_dir/steps/$step
  mkdir -p "$step_dir"
  step_file=$step_dir/step.json
  rc=0
  "$prestage" "$study" "$scenario" "$@" --out "$out_dir/$study" --emit-sweep "$step_file" "${ingest[@]}" || rc=$?
  if [ ! -f "$step_file" ]; then
    # Nothing left to run: the study is written (or it failed; its own message and code say which).
    rmdir "$step_dir"
    exit "$rc"
  fi
  [ "$rc" = 0 ] || fail "step $step: prestage $study exited $rc after writing $step_file" "$rc"
  sweep_job=$(sbatch --parsable --array="0-$((count - 1))" "$here/prestage-sweep.sbatch" "$step_file" "$step_dir")
  sweep_job=${sweep_job%%;*}
  merge_job=$(sbatch --parsable --dependency="afterok:$sweep_job" "$here/prestage-merge.sbatch" "$step_dir" "$count")
  merge_job=${merge_job%%;*}
  echo "prestage-plan-slurm: step $step: array job $sweep_job (0-$((count - 1))), merge job $merge_job"
  # Whether the merge succeeded (a failed shard cancels it) is read from the merged directory,
  # which appears only when complete.
  until merge_ended "$merge_job"; do sleep "$poll_seconds"; done
  [ -d "$step_dir/merged" ] \
    || fail "step $step: no merged results in $step_dir/merged (array job $sweep_job or merge job $merge_job failed; see prestage-sweep-${sweep_job}_*.out and prestage-merge-$merge_job.out)"
  ingest=(--ingest "$step_dir/merged")
  step=$((step + 1))
done
