#!/usr/bin/env bash
# End-to-end test of the cluster path of a Prestage sweep, run by `make test-cluster`.
#
# On this machine, as root, it:
#   1. installs slurm-wlm and munge with apt-get if they are missing (idempotent);
#   2. writes a throwaway single-node Slurm + MUNGE configuration in a temp directory (nothing in
#      /etc is read or written: munged gets --key-file/--socket/..., the Slurm daemons get -f and the
#      clients SLURM_CONF; all traffic is to 127.0.0.1, on ports a system Slurm does not use);
#   3. starts munged, slurmctld and slurmd and waits until the node is idle;
#   4. submits docs/cluster/prestage-sweep.sbatch as an array job of N shards and
#      docs/cluster/prestage-merge.sbatch with --dependency=afterok on it, exactly as the README says,
#      and waits for both (bounded);
#   5. checks every array task COMPLETED with exit code 0, then compares the merged output with a
#      local unsharded run (diff -r: same files, byte-identical);
#   6. drives `prestage plan` through the same Slurm with docs/cluster/prestage-plan-slurm.sh (each
#      step the plan needs: plan --emit-sweep, the sweep array job and the merge job above, wait,
#      plan --ingest; until the plan is answered) on Tests/cluster/e2e-plan.json: first with a
#      shard failing (the script must stop, exit 1), then rerun to the answer; it checks every
#      step's tasks, and compares plan.json, plan.csv, plan.md, plan.html and the stored
#      replications (evaluations/) byte for byte with a local `prestage plan` of the same command;
#   7. checks docs/cluster/prestage-sweep-indexed-job.yaml with PyYAML and runs its container
#      scripts locally (Tests/cluster/check-k8s-manifest.py), again byte-identical to the local run;
#   8. always (trap EXIT) cancels its jobs, stops the daemons it started (by PID) and any job
#      process they left, and removes the temp directory (kept with PRESTAGE_E2E_KEEP=1).
# Exits non-zero with a message naming the failed step, and the daemon and job logs, on any failure.
#
# Settings (environment):
#   PRESTAGE_E2E_BIN         program with `sweep FILE [--shard i/N] --out DIR` and `merge DIR... --out DIR`
#                            (default: .build/debug/prestage)
#   PRESTAGE_E2E_SWEEP_FILE  sweep file for it (default: Tests/cluster/e2e-sweep.json)
#   PRESTAGE_E2E_SHARDS      array size N (default 4, 1...64)
#   PRESTAGE_E2E_PLAN_SHARDS array size of each plan step (default 2, 1...64)
#   PRESTAGE_E2E_TIMEOUT_SECONDS  longest wait for the sweep + merge jobs, and for the whole plan
#                            (default 300 each)
#   PRESTAGE_E2E_PORT        slurmctld port; slurmd uses the next one (default: the first free
#                            pair of 16817-16836)
#   PRESTAGE_E2E_KEEP=1      keep the temp directory for inspection
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

# The real `prestage sweep` / `prestage merge` (the debug build `make test` makes; `make test-cluster`
# builds it first) on a 6-point × 2-replication sweep of 200 devices: 12 work items, seconds in debug.
e2e_bin=${PRESTAGE_E2E_BIN:-$repo/.build/debug/prestage}
e2e_sweep_file=${PRESTAGE_E2E_SWEEP_FILE:-$here/e2e-sweep.json}
# The plan: a 600-device cold CDN whose origin rejects from about 12 000 pushes/min. 7 steps: the two
# ends (pass, fail), values refined from 2 to 4 replications (one fails, one stays undecided at the
# cap), a pass; each a fraction of a second of simulation in debug, the rest is Slurm's latency.
e2e_plan_scenario=$here/e2e-plan.json
e2e_plan_args=(--vary 'campaigns[0].sendRatePerMinute=6000..24000' --tolerance 25% --replications-max 4)
e2e_plan_files=(plan.json plan.csv plan.md plan.html)

shards=${PRESTAGE_E2E_SHARDS:-4}
# The plan's steps have 2 or 4 work items: 2 shards keep each step one wave on a 2-core node
# (Slurm latency per wave is most of a step's time; the sweep above covers 4 shards).
plan_shards=${PRESTAGE_E2E_PLAN_SHARDS:-2}
shards_max=64
jobs_timeout_seconds=${PRESTAGE_E2E_TIMEOUT_SECONDS:-300}
node_timeout_seconds=60
munge_timeout_seconds=10
daemon_stop_seconds=10
ctld_port=${PRESTAGE_E2E_PORT:-16817}
slurmd_port=$((ctld_port + 1))
apt_packages=(slurm-wlm munge)
# Installed by slurm-wlm; checked one by one so a half-installed machine is completed.
needed_packages=(slurmctld slurmd slurm-client munge)

started=$(date +%s)
phase_started=$started
log() { echo "slurm-e2e [+$(($(date +%s) - started))s]: $*"; }
die() { echo "slurm-e2e: FAIL: $*" >&2; exit 1; }
phase_done() {
  local now
  now=$(date +%s)
  log "$1 ($((now - phase_started))s)"
  phase_started=$now
}

# check_shards NAME VALUE: VALUE is an integer in 1...shards_max, else fail naming NAME.
check_shards() {
  case "$2" in '' | *[!0-9]*) die "$1: expected an integer in 1...$shards_max, found '$2'" ;; esac
  [ "${#2}" -le 9 ] && [ "$2" -ge 1 ] && [ "$2" -le "$shards_max" ] || die "$1: expected an integer in 1...$shards_max, found '$2'"
}
check_shards PRESTAGE_E2E_SHARDS "$shards"
check_shards PRESTAGE_E2E_PLAN_SHARDS "$plan_shards"
case "$jobs_timeout_seconds" in '' | *[!0-9]*) die "PRESTAGE_E2E_TIMEOUT_SECONDS: expected seconds, found '$jobs_timeout_seconds'" ;; esac
case "$ctld_port" in '' | *[!0-9]*) die "PRESTAGE_E2E_PORT: expected a port number, found '$ctld_port'" ;; esac
[ "$ctld_port" -ge 1024 ] && [ "$ctld_port" -le 65534 ] || die "PRESTAGE_E2E_PORT: expected 1024...65534, found $ctld_port"
[ "$(id -u)" = 0 ] || die "must run as root (it starts munged, slurmctld and slurmd)"

# Jobs run on the "compute node" from another working directory: every path they get is absolute.
e2e_bin=$(cd "$repo" && realpath -e "$e2e_bin") \
  || die "PRESTAGE_E2E_BIN '$e2e_bin' does not exist (build it: swift build --product prestage, or make test-cluster)"
[ -x "$e2e_bin" ] || die "PRESTAGE_E2E_BIN '$e2e_bin' is not executable"
e2e_sweep_file=$(cd "$repo" && realpath -e "$e2e_sweep_file") \
  || die "PRESTAGE_E2E_SWEEP_FILE '$e2e_sweep_file' does not exist"

# --- 1. packages ------------------------------------------------------------------------------
# apt-get that waits up to 5 minutes for another apt/dpkg run to release its lock.
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 "$@"; }
missing=()
for p in "${needed_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${apt_packages[*]} (missing: ${missing[*]})"
  command -v apt-get >/dev/null || die "apt-get not found; install ${apt_packages[*]} yourself"
  apt_get update -qq || die "apt-get update failed"
  apt_get install -y -qq "${apt_packages[@]}" >/dev/null \
    || die "apt-get install ${apt_packages[*]} failed"
fi
for cmd in munged munge unmunge slurmctld slurmd sbatch sinfo scontrol scancel squeue; do
  command -v "$cmd" >/dev/null || die "'$cmd' not found after installing ${apt_packages[*]}"
done

# A Python 3 that can import yaml, for the Kubernetes manifest check: the one on PATH, else
# Debian's, else Debian's after `apt-get install python3-yaml`.
yaml_python=""
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import yaml' 2>/dev/null; then yaml_python=$(command -v "$py"); break; fi
done
if [ -z "$yaml_python" ]; then
  log "installing python3-yaml (no Python 3 here imports yaml)"
  apt_get install -y -qq python3-yaml >/dev/null \
    || { apt_get update -qq && apt_get install -y -qq python3-yaml >/dev/null; } \
    || die "apt-get install python3-yaml failed"
  /usr/bin/python3 -c 'import yaml' || die "/usr/bin/python3 cannot import yaml after installing python3-yaml"
  yaml_python=/usr/bin/python3
fi
phase_done "packages present"

# --- 2. throwaway configuration ---------------------------------------------------------------
# Two free ports on 127.0.0.1 (a listener means another Slurm, or another run of this test): the
# given pair, or the first free one of 10 pairs from 16817 when PRESTAGE_E2E_PORT is not set.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port_tries=10
[ -z "${PRESTAGE_E2E_PORT:-}" ] || port_tries=1
for ((i = 0; i < port_tries; i++)); do
  port_free "$ctld_port" && port_free "$slurmd_port" && break
  [ "$i" -lt "$((port_tries - 1))" ] \
    || die "ports $ctld_port-$slurmd_port on 127.0.0.1 are in use; set PRESTAGE_E2E_PORT to the first of two free ports"
  ctld_port=$((ctld_port + 2))
  slurmd_port=$((ctld_port + 1))
done

tmp=$(mktemp -d /tmp/prestage-slurm-e2e.XXXXXX)
# Every process this run starts carries this variable; cleanup finds stray job processes by it.
run_token=$(basename "$tmp")
pids=()         # daemons started here, in start order
pid_names=()
job_ids=()
diagnostics_printed=0

print_diagnostics() {
  [ "$diagnostics_printed" = 0 ] || return 0
  diagnostics_printed=1
  local f
  echo "slurm-e2e: ---- diagnostics (temp dir $tmp) ----" >&2
  for f in "$tmp"/log/* "$tmp"/jobs/*.out; do
    [ -f "$f" ] || continue
    echo "---- last 40 lines of $f" >&2
    tail -n 40 "$f" >&2
  done
  if [ "${#job_ids[@]}" -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
    for f in "${job_ids[@]}"; do
      echo "---- scontrol show job $f" >&2
      timeout 10 scontrol -o show job "$f" >&2 2>&1 || true
    done
  fi
}

# stop_pid PID NAME: SIGTERM, wait up to daemon_stop_seconds, then SIGKILL; reaps it.
stop_pid() {
  local pid=$1 name=$2 waited=0
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
  kill -TERM "$pid" 2>/dev/null
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$((daemon_stop_seconds * 10))" ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "slurm-e2e: $name (pid $pid) ignored SIGTERM for ${daemon_stop_seconds}s; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  return 0
}

# Processes started on behalf of this run (job scripts, slurmstepd) that outlived the daemons;
# the daemons themselves are stopped by PID.
stray_pids() {
  grep -lzx "PRESTAGE_E2E_RUN=$run_token" /proc/[0-9]*/environ 2>/dev/null \
    | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' | grep -vxF -e "$$" "${pids[@]/#/-e}" || true
}

# Of those, the ones not forked by a daemon itself (slurmctld's slurmscriptd is): job steps.
job_step_pids() {
  local pid ppid
  for pid in $(stray_pids); do
    ppid=$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')
    [ -n "$ppid" ] && ! printf '%s\n' "${pids[@]}" | grep -qx "$ppid" && echo "$pid"
  done
  return 0
}

cleanup() {
  local rc=$? i pid strays
  set +e
  trap - EXIT INT TERM
  [ "$rc" = 0 ] || print_diagnostics
  if [ "${#job_ids[@]}" -gt 0 ]; then
    timeout 10 scancel "${job_ids[@]}" 2>/dev/null
    for ((i = 0; i < 100; i++)); do   # up to 10 s for cancelled jobs to end
      [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  for ((i = 0; i < 50; i++)); do   # up to 5 s for job steps (slurmstepd) to finish
    [ -z "$(job_step_pids)" ] && break
    sleep 0.1
  done
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    [ "${pid_names[i]}" = munged ] && continue   # last: Slurm talks to munged while stopping
    stop_pid "${pids[i]}" "${pid_names[i]}"
  done
  strays=$(stray_pids)
  if [ -n "$strays" ]; then
    echo "slurm-e2e: stopping processes left by this run's jobs: ${strays//$'\n'/ }" >&2
    kill -TERM $strays 2>/dev/null   # unquoted: one PID per word
    sleep 1
    strays=$(stray_pids)
    [ -z "$strays" ] || kill -KILL $strays 2>/dev/null
  fi
  for ((i = 0; i < ${#pids[@]}; i++)); do
    [ "${pid_names[i]}" = munged ] && stop_pid "${pids[i]}" munged
  done
  # An exited slurmstepd is re-parented to init, which may take a moment to reap it.
  for ((i = 0; i < 50; i++)); do
    ps -eo stat=,comm= | grep -q '^Z.* slurmstepd' || break
    sleep 0.1
  done
  for ((i = 0; i < ${#pids[@]}; i++)); do
    if kill -0 "${pids[i]}" 2>/dev/null; then
      echo "slurm-e2e: FAIL: ${pid_names[i]} (pid ${pids[i]}) is still running after cleanup" >&2
      rc=1
    fi
  done
  [ "${#pids[@]}" -eq 0 ] || log "stopped ${pid_names[*]}"
  if [ "${PRESTAGE_E2E_KEEP:-0}" = 1 ]; then
    log "kept $tmp (PRESTAGE_E2E_KEEP=1)"
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "slurm-e2e: FAIL: interrupted (SIGINT)" >&2; exit 130' INT
trap 'echo "slurm-e2e: FAIL: terminated (SIGTERM)" >&2; exit 143' TERM

# munged checks permissions: the socket's directory must be reachable by all, the key private.
chmod 755 "$tmp"
mkdir -p "$tmp/run" "$tmp/log" "$tmp/etc" "$tmp/state" "$tmp/spool" "$tmp/jobs" "$tmp/out"
mkdir -m 700 "$tmp/munge"
head -c 1024 /dev/urandom > "$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
munge_socket="$tmp/run/munge.socket"

host=$(hostname -s)
cpus=$(nproc)
# Slurm drains a node that reports less memory than configured: configure 90% of what is there.
memory_mb=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
: > "$tmp/etc/plugstack.conf"
export SLURM_CONF="$tmp/etc/slurm.conf"
cat > "$SLURM_CONF" <<EOF
# Throwaway single-node cluster written by Tests/cluster/slurm-e2e.sh; deleted when it ends.
ClusterName=prestage-e2e
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
PlugStackConfig=$tmp/etc/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
# Bind to the configured addresses (127.0.0.1), not to every interface.
CommunicationParameters=NoInAddrAny
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
phase_done "configuration written to $tmp (ports $ctld_port-$slurmd_port)"

# --- 3. daemons -------------------------------------------------------------------------------
# start NAME COMMAND...: in the foreground mode of each daemon, as a child of this script, so its
# PID is known and only it is stopped at the end; output goes to $tmp/log/NAME.log.
start() {
  local name=$1
  shift
  env PRESTAGE_E2E_RUN="$run_token" "$@" > "$tmp/log/$name.log" 2>&1 &
  pids+=("$!")
  pid_names+=("$name")
}
# alive NAME: the daemon NAME started here is still running.
alive() {
  local i
  for ((i = 0; i < ${#pids[@]}; i++)); do
    [ "${pid_names[i]}" = "$1" ] && { kill -0 "${pids[i]}" 2>/dev/null; return; }
  done
  return 1
}

start munged munged --foreground --key-file="$tmp/munge/munge.key" --socket="$munge_socket" \
  --pid-file="$tmp/run/munged.pid" --seed-file="$tmp/munge/munged.seed"
for ((i = 0; ; i++)); do
  munge -n -S "$munge_socket" 2>/dev/null | unmunge -S "$munge_socket" >/dev/null 2>&1 && break
  alive munged || die "munged exited at start (log below)"
  [ "$i" -lt "$((munge_timeout_seconds * 10))" ] || die "munged did not answer on $munge_socket within ${munge_timeout_seconds}s"
  sleep 0.1
done
start slurmctld slurmctld -D -f "$SLURM_CONF"
start slurmd slurmd -D -f "$SLURM_CONF"
node_state=""
for ((i = 0; ; i++)); do
  node_state=$(timeout 5 sinfo -h -N -n "$host" -o %t 2>/dev/null || true)
  [ "$node_state" = idle ] && break
  alive slurmctld || die "slurmctld exited at start (log below)"
  alive slurmd || die "slurmd exited at start (log below)"
  [ "$i" -lt "$((node_timeout_seconds * 2))" ] \
    || die "node $host not idle within ${node_timeout_seconds}s (sinfo state: '${node_state:-no answer}')"
  sleep 0.5
done
phase_done "munged, slurmctld, slurmd running; node $host idle ($cpus CPUs)"

# --- 4. the sweep as an array job, the merge as a dependent job --------------------------------
# submit VAR=VALUE... -- SBATCH-ARGS...: sbatch --parsable from $tmp/jobs with this run's marker,
# PRESTAGE_BIN and the given variables (PRESTAGE_SHARDS only when given); prints the job ID.
submit() {
  local vars=() out
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  out=$(cd "$tmp/jobs" && env -u PRESTAGE_SHARDS PRESTAGE_E2E_RUN="$run_token" PRESTAGE_BIN="$e2e_bin" \
    "${vars[@]}" sbatch --parsable "$@" 2>&1) || die "sbatch $* failed: $out"
  echo "${out%%;*}"
}
# job_states JOB: one JobState per line (an array job lists one line per task).
job_states() {
  timeout 10 scontrol -o show job "$1" 2>/dev/null | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p'
}
# stuck_reasons: pending reasons other than "waiting its turn" (e.g. PartitionTimeLimit,
# DependencyNeverSatisfied) mean the job can never start on this cluster.
stuck_reasons() {
  timeout 10 scontrol -o show job 2>/dev/null | grep ' JobState=PENDING ' \
    | sed -n 's/^JobId=\([0-9]*\) .* Reason=\([^ ]*\) .*/job \1: \2/p' \
    | grep -Ev ': (None|Priority|Resources|Dependency|BeginTime|JobArrayTaskLimit)$' || true
}
# wait_for_merge MERGE_JOB SWEEP_JOB: bounded wait until the merge job has COMPLETED; fails at once
# if it ends otherwise (a failed shard cancels it through --kill-on-invalid-dep), if a job is
# stuck, or if a daemon exits.
wait_for_merge() {
  local merge=$1 sweep=$2 state="" stuck stuck_polls=0 i
  for ((i = 0; ; i++)); do
    state=$(job_states "$merge")
    stuck=$(stuck_reasons)
    # 3 consecutive polls (1.5 s) with a stuck reason rule out a state Slurm passes through.
    if [ -n "$stuck" ]; then stuck_polls=$((stuck_polls + 1)); else stuck_polls=0; fi
    [ "$stuck_polls" -lt 3 ] || die "jobs can never start on this cluster: ${stuck//$'\n'/, }"
    case "$state" in
      COMPLETED) return 0 ;;
      PENDING | CONFIGURING | RUNNING | COMPLETING | "") ;;
      *) die "merge job $merge ended $state (array job $sweep task states: $(job_states "$sweep" | sort | uniq -c | xargs))" ;;
    esac
    alive slurmctld && alive slurmd && alive munged || die "a daemon exited while the jobs ran"
    [ "$i" -lt "$((jobs_timeout_seconds * 2))" ] \
      || die "jobs not done within ${jobs_timeout_seconds}s: merge $merge '${state:-unknown}', array $sweep $(job_states "$sweep" | sort | uniq -c | xargs)"
    sleep 0.5
  done
}
# check_tasks SWEEP_JOB INDEX...: exactly these array tasks ran, each COMPLETED with exit code 0,
# logged its shard i/N from inside Slurm, and left a non-empty shard directory.
check_tasks() {
  local sweep=$1 lines line i
  shift
  lines=$(timeout 10 scontrol -o show job "$sweep")
  [ "$(grep -c 'ArrayTaskId=' <<< "$lines")" = "$#" ] \
    || die "array job $sweep: expected $# tasks ($*), scontrol shows: $lines"
  for i in "$@"; do
    line=$(grep " ArrayTaskId=$i " <<< "$lines") || die "array job $sweep has no task $i"
    grep -q ' JobState=COMPLETED ' <<< "$line" && grep -q ' ExitCode=0:0 ' <<< "$line" \
      || die "array task ${sweep}_$i did not complete with exit code 0: $line"
    grep -qx "prestage-sweep: shard $i/$shards on .*, job ${sweep}_$i" "$tmp/jobs/sweep-${sweep}_$i.out" \
      || die "array task ${sweep}_$i: its log does not show shard $i/$shards running under Slurm"
    [ -n "$(ls -A "$tmp/out/shards/$i" 2>/dev/null)" ] || die "shard $i wrote nothing to $tmp/out/shards/$i"
  done
  [ -n "$(ls -A "$tmp/out/merged" 2>/dev/null)" ] || die "merge wrote nothing to $tmp/out/merged"
}

# The README's two commands: all shards as one array job, the merge after it.
sweep_job=$(submit -- --array="0-$((shards - 1))" --output="$tmp/jobs/sweep-%A_%a.out" \
  "$repo/docs/cluster/prestage-sweep.sbatch" "$e2e_sweep_file" "$tmp/out")
job_ids+=("$sweep_job")
merge_job=$(submit -- --dependency="afterok:$sweep_job" --output="$tmp/jobs/merge-%j.out" \
  "$repo/docs/cluster/prestage-merge.sbatch" "$tmp/out" "$shards")
job_ids+=("$merge_job")
log "submitted array job $sweep_job (0-$((shards - 1))) and merge job $merge_job (afterok:$sweep_job)"
wait_for_merge "$merge_job" "$sweep_job"
all_indexes=()
for ((i = 0; i < shards; i++)); do all_indexes+=("$i"); done
check_tasks "$sweep_job" "${all_indexes[@]}"
phase_done "array job $sweep_job: $shards tasks COMPLETED; merge job $merge_job COMPLETED"

# --- 5. comparison with a local run; re-running one lost shard ---------------------------------
"$e2e_bin" sweep "$e2e_sweep_file" --out "$tmp/local" > "$tmp/log/local-run.log" 2>&1 \
  || die "local unsharded run '$e2e_bin sweep $e2e_sweep_file --out $tmp/local' failed"
[ -n "$(ls -A "$tmp/local")" ] || die "the local unsharded run wrote nothing to $tmp/local"
diff -r "$tmp/local" "$tmp/out/merged" > "$tmp/log/diff-slurm.log" 2>&1 \
  || die "merged Slurm output differs from the local unsharded run (diff -r in $tmp/log/diff-slurm.log)"
phase_done "Slurm: $shards shards merged == local unsharded run (diff -r, $(find "$tmp/local" -type f | wc -l) files)"

# The README's recovery path: shard r lost, re-run alone with PRESTAGE_SHARDS=N, merged again.
rerun=$((shards / 2))
rm -rf "$tmp/out/shards/$rerun" "$tmp/out/merged"
sweep_job=$(submit PRESTAGE_SHARDS="$shards" -- --array="$rerun" --output="$tmp/jobs/sweep-%A_%a.out" \
  "$repo/docs/cluster/prestage-sweep.sbatch" "$e2e_sweep_file" "$tmp/out")
job_ids+=("$sweep_job")
merge_job=$(submit -- --dependency="afterok:$sweep_job" --output="$tmp/jobs/merge-%j.out" \
  "$repo/docs/cluster/prestage-merge.sbatch" "$tmp/out" "$shards")
job_ids+=("$merge_job")
wait_for_merge "$merge_job" "$sweep_job"
check_tasks "$sweep_job" "$rerun"
diff -r "$tmp/local" "$tmp/out/merged" > "$tmp/log/diff-slurm-rerun.log" 2>&1 \
  || die "after re-running shard $rerun, the merged output differs from the local run (diff -r in $tmp/log/diff-slurm-rerun.log)"
phase_done "Slurm: shard $rerun re-run alone (PRESTAGE_SHARDS=$shards --array=$rerun), merged again == local run"

# --- 6. a plan driven through Slurm -----------------------------------------------------------
# adopt_jobs: every job this cluster knows, for cleanup to cancel (the plan script submits its own).
adopt_jobs() {
  local id
  for id in $(timeout 10 squeue -h -o %A 2>/dev/null | sort -u); do job_ids+=("$id"); done
  return 0
}
"$e2e_bin" plan "$e2e_plan_scenario" "${e2e_plan_args[@]}" --out "$tmp/plan-local" > "$tmp/log/plan-local.log" 2>&1 \
  || die "local plan '$e2e_bin plan $e2e_plan_scenario ${e2e_plan_args[*]}' failed (log: $tmp/log/plan-local.log)"
# run_plan_script BIN LOG: the README's command with PRESTAGE_BIN=BIN, from the job log directory,
# as a child whose PID is known, waited for with the same bounds and checks as the jobs above;
# sets plan_rc to its exit status.
# script_study, script_out and script_args (plan, $tmp/plan-slurm and the plan's arguments unless
# set) say what it runs.
script_study=plan
script_out=$tmp/plan-slurm
script_args=("${e2e_plan_args[@]}")
run_plan_script() {
  local bin=$1 log=$2 pid stuck stuck_polls=0 i
  (cd "$tmp/jobs" && exec env PRESTAGE_E2E_RUN="$run_token" PRESTAGE_BIN="$bin" PRESTAGE_POLL_SECONDS=1 PRESTAGE_STUDY="$script_study" \
    bash "$repo/docs/cluster/prestage-plan-slurm.sh" "$script_out" "$plan_shards" "$e2e_plan_scenario" "${script_args[@]}") \
    > "$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  pid_names+=(prestage-plan-slurm)
  for ((i = 0; ; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    stuck=$(stuck_reasons)
    if [ -n "$stuck" ]; then stuck_polls=$((stuck_polls + 1)); else stuck_polls=0; fi
    [ "$stuck_polls" -lt 3 ] || { adopt_jobs; die "plan jobs can never start on this cluster: ${stuck//$'\n'/, }"; }
    alive slurmctld && alive slurmd && alive munged || { adopt_jobs; die "a daemon exited while the plan ran"; }
    [ "$i" -lt "$((jobs_timeout_seconds * 2))" ] \
      || { adopt_jobs; die "the plan through Slurm did not finish within ${jobs_timeout_seconds}s (log: $log)"; }
    sleep 0.5
  done
  plan_rc=0
  wait "$pid" || plan_rc=$?
}
# A lost step: every step's shard 0 fails (a wrapper around the real binary), so the first step's
# merge is cancelled; the script must stop with exit 1 naming the step. Rerun with the real binary,
# it continues at the next step number and answers the plan.
failing_bin=$tmp/prestage-failing-shard-0
cat > "$failing_bin" <<WRAPPER
#!/usr/bin/env bash
# Written by Tests/cluster/slurm-e2e.sh: sweep ... --shard 0/N fails, everything else is $e2e_bin.
[ "\$1" = sweep ] && [[ " \$* " == *" --shard 0/"* ]] && { echo "injected failure of shard 0" >&2; exit 1; }
exec "$e2e_bin" "\$@"
WRAPPER
chmod +x "$failing_bin"
run_plan_script "$failing_bin" "$tmp/log/plan-slurm-failing.log"
[ "$plan_rc" = 1 ] && grep -q '^prestage-plan-slurm.sh: step 0: no merged results' "$tmp/log/plan-slurm-failing.log" \
  || { adopt_jobs; die "with shard 0 failing, prestage-plan-slurm.sh exited $plan_rc instead of 1 naming step 0 (log: $tmp/log/plan-slurm-failing.log)"; }
[ ! -e "$tmp/plan-slurm/plan/plan.json" ] || die "with shard 0 failing, the plan was written anyway"
phase_done "plan through Slurm with shard 0 failing: stopped at step 0 (exit 1, merge cancelled)"
run_plan_script "$e2e_bin" "$tmp/log/plan-slurm.log"
[ "$plan_rc" = 0 ] || { adopt_jobs; die "docs/cluster/prestage-plan-slurm.sh exited $plan_rc (log: $tmp/log/plan-slurm.log)"; }
grep -q '^prestage-plan-slurm: step 1: ' "$tmp/log/plan-slurm.log" \
  || die "the rerun did not continue at step 1 after the failed step 0 (log: $tmp/log/plan-slurm.log)"
mapfile -t plan_jobs < <(sed -n 's/^prestage-plan-slurm: step [0-9]*: array job \([0-9]*\) .*/\1/p' "$tmp/log/plan-slurm.log")
mapfile -t plan_merge_jobs < <(sed -n 's/^prestage-plan-slurm: step [0-9]*: .*, merge job \([0-9]*\)$/\1/p' "$tmp/log/plan-slurm.log")
[ "${#plan_merge_jobs[@]}" = "${#plan_jobs[@]}" ] || die "the plan script logged ${#plan_jobs[@]} array jobs but ${#plan_merge_jobs[@]} merge jobs"
for job in "${plan_merge_jobs[@]}"; do
  line=$(timeout 10 scontrol -o show job "$job")
  grep -q ' JobState=COMPLETED ' <<< "$line" && grep -q ' ExitCode=0:0 ' <<< "$line" \
    || die "plan merge job $job did not complete with exit code 0: $line"
done
local_steps=$(grep -c ' replications → ' "$tmp/log/plan-local.log" || true)
[ "${#plan_jobs[@]}" = "$local_steps" ] \
  || die "the plan took ${#plan_jobs[@]} Slurm steps, the local plan $local_steps evaluations (logs: $tmp/log/plan-slurm.log, plan-local.log)"
[ "${#plan_jobs[@]}" -ge 3 ] || die "the plan took only ${#plan_jobs[@]} steps; expected a bisection of several"
for job in "${plan_jobs[@]}"; do
  lines=$(timeout 10 scontrol -o show job "$job")
  [ "$(grep -c 'ArrayTaskId=' <<< "$lines")" = "$plan_shards" ] || die "plan array job $job: expected $plan_shards tasks, scontrol shows: $lines"
  for ((i = 0; i < plan_shards; i++)); do
    line=$(grep " ArrayTaskId=$i " <<< "$lines") || die "plan array job $job has no task $i"
    grep -q ' JobState=COMPLETED ' <<< "$line" && grep -q ' ExitCode=0:0 ' <<< "$line" \
      || die "plan array task ${job}_$i did not complete with exit code 0: $line"
    grep -qx "prestage-sweep: shard $i/$plan_shards on .*, job ${job}_$i" "$tmp/jobs/prestage-sweep-${job}_$i.out" \
      || die "plan array task ${job}_$i: its log does not show shard $i/$plan_shards running under Slurm"
  done
done
for f in "${e2e_plan_files[@]}"; do
  cmp "$tmp/plan-local/$f" "$tmp/plan-slurm/plan/$f" > /dev/null 2>&1 \
    || die "$f of the plan through Slurm differs from the local plan's (diff $tmp/plan-local/$f $tmp/plan-slurm/plan/$f)"
done
# The replications stored from the merged sweeps are the files the local plan wrote as it ran them.
diff -r "$tmp/plan-local/evaluations" "$tmp/plan-slurm/plan/evaluations" > "$tmp/log/diff-plan-evaluations.log" 2>&1 \
  || die "the plan's stored replications (evaluations/) differ between Slurm and local (diff -r in $tmp/log/diff-plan-evaluations.log)"
phase_done "plan through Slurm: ${#plan_jobs[@]} steps (array jobs ${plan_jobs[0]}..${plan_jobs[${#plan_jobs[@]} - 1]}); ${e2e_plan_files[*]} and evaluations/ == local plan"

# --- 6b. a sensitivity study driven through Slurm (the same script, PRESTAGE_STUDY=sensitivity) ----
sensitivity_args=(--factor 'campaigns[0].sendRatePerMinute=6000..24000' --factor 'infra.origin.workers=2..8' --metric origin.rejected503
                  --trajectories 2 --sobol-samples 2 --bootstrap 50 --replications 2)
"$e2e_bin" sensitivity "$e2e_plan_scenario" "${sensitivity_args[@]}" --out "$tmp/sensitivity-local" > "$tmp/log/sensitivity-local.log" 2>&1 \
  || die "local sensitivity study failed (log: $tmp/log/sensitivity-local.log)"
script_study=sensitivity
script_out=$tmp/sensitivity-slurm
script_args=("${sensitivity_args[@]}")
run_plan_script "$e2e_bin" "$tmp/log/sensitivity-slurm.log"
[ "$plan_rc" = 0 ] || { adopt_jobs; die "PRESTAGE_STUDY=sensitivity prestage-plan-slurm.sh exited $plan_rc (log: $tmp/log/sensitivity-slurm.log)"; }
sensitivity_steps=$(grep -c '^prestage-plan-slurm: step [0-9]*: array job' "$tmp/log/sensitivity-slurm.log" || true)
[ "$sensitivity_steps" = 2 ] || die "the sensitivity study took $sensitivity_steps Slurm steps; expected 2, the screening and the Sobol step (log: $tmp/log/sensitivity-slurm.log)"
cmp "$tmp/sensitivity-local/sensitivity.json" "$tmp/sensitivity-slurm/sensitivity/sensitivity.json" > /dev/null 2>&1 \
  || die "sensitivity.json through Slurm differs from the local study's (diff $tmp/sensitivity-local/sensitivity.json $tmp/sensitivity-slurm/sensitivity/sensitivity.json)"
phase_done "sensitivity through Slurm: 2 steps (screening, Sobol); sensitivity.json == local study"

# --- 7. the Kubernetes manifest ---------------------------------------------------------------
"$yaml_python" "$here/check-k8s-manifest.py" "$repo/docs/cluster/prestage-sweep-indexed-job.yaml" \
  --run "$e2e_bin" "$e2e_sweep_file" "$tmp/k8s" || die "Kubernetes manifest check failed (above)"
diff -r "$tmp/local" "$tmp/k8s/merged" > "$tmp/log/diff-k8s.log" 2>&1 \
  || die "merged output of the manifest's scripts differs from the local unsharded run (diff -r in $tmp/log/diff-k8s.log)"
phase_done "Kubernetes manifest: valid YAML and structure; its scripts' merged output == local run"

log "PASS in $(($(date +%s) - started))s (runner: $e2e_bin)"
