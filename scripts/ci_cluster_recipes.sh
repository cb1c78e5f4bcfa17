#!/usr/bin/env bash
# CI: the cluster-scale recipes of docs/cluster-scale.md, run for real as a user would run them.
#   1. A single-node Slurm (slurmctld, slurmd and munged started here, no systemd; Debian slurm-wlm + munge) runs
#      the job-array recipe: the doc's map.sbatch, merge.sbatch and submit.sh, copied out of the doc, on the real
#      traces in ../shared/traces (skipped with a message when absent) and on synthetic ones, with arrays that start
#      at 0, at 1 and step by 2; each run.json must equal `mfu-explorer trace <the same paths> --json` byte for byte.
#      A run with an unreadable trace must end with a failed merge that names it, never a merge left pending.
#   2. The Dask LocalCluster recipe (map_reduce_dask.py, Debian python3-distributed) on the same inputs, the same
#      comparison, and the same unreadable trace, which must fail the script.
# Needs the mfu-explorer binary (default: the release tree's, scripts/ci_package.sh builds it; MFU_BIN_DIR= to
# change) and, as root, installs slurm-wlm, munge and python3-distributed when missing.
# Usage: scripts/ci_cluster_recipes.sh [--keep]   (--keep leaves the work folder and its logs)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
doc="$root/docs/cluster-scale.md"
bin_dir="${MFU_BIN_DIR:-$root/build/release/app}"
shared_traces="$root/../shared/traces"
keep=0
[[ "${1:-}" == "--keep" ]] && keep=1
t0=$(date +%s)
say() { echo "ci_cluster: [$(( $(date +%s) - t0 )) s] $*"; }
fail() { echo "ci_cluster: FAIL: $*" >&2; exit 1; }

[ -x "$bin_dir/mfu-explorer" ] || fail "no mfu-explorer in $bin_dir (build the release preset, or set MFU_BIN_DIR)"
bin_dir=$(cd "$bin_dir" && pwd)
export PATH="$bin_dir:$PATH" # the jobs inherit it (sbatch exports the environment)
# Debian's python3, which python3-distributed installs into (a pyenv or virtual environment first on PATH has no Dask).
py="${PYTHON:-/usr/bin/python3}"

# --- packages -----------------------------------------------------------------------------------------------------
need=()
for p in slurm-wlm munge python3-distributed; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  [ "$(id -u)" -eq 0 ] || fail "missing ${need[*]} (apt-get install them, or run as root)"
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; } \
    || fail "apt-get install ${need[*]} failed"
fi

# --- work folder, and the recipes copied out of the doc -------------------------------------------------------------
W=$(mktemp -d /tmp/mfu-cluster.XXXXXX)
chmod 755 "$W"
# The daemons this script started, by the pids they wrote; stopped, and waited for (slurmctld saves its state as it
# goes), before the folder goes.
cleanup() {
  local pids=() pid_file pid
  for pid_file in "$W/slurmd.pid" "$W/slurmctld.pid" "$W/munge/munged.pid"; do
    [ -s "$pid_file" ] && pids+=("$(cat "$pid_file")")
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 40); do # up to 10 s; a zombie has exited
    local alive=0
    for pid in "${pids[@]}"; do
      grep -qs '^State:[[:space:]]*[^Z[:space:]]' "/proc/$pid/status" && alive=1
    done
    ((alive)) || break
    sleep 0.25
  done
  if [[ $keep == 1 ]]; then echo "ci_cluster: work folder kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT

# A fenced block of the doc, found by the "# NAME:" comment on its first or second line.
doc_block() {
  "$py" - "$doc" "$1" <<'EOF'
import re, sys
text, name = open(sys.argv[1]).read(), sys.argv[2]
blocks = [b for b in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)
          if any(line.startswith("# " + name + ":") for line in b.split("\n")[:2])]
if len(blocks) != 1:
    sys.exit(f"docs/cluster-scale.md: {len(blocks)} code blocks start with '# {name}:', expected one")
sys.stdout.write(blocks[0])
EOF
}
mkdir -p "$W/recipes"
for f in map.sbatch merge.sbatch submit.sh map_reduce_dask.py; do
  doc_block "$f" >"$W/recipes/$f" || fail "could not take $f out of $doc"
done

# --- inputs -------------------------------------------------------------------------------------------------------
# A run is a folder RUN with its traces in RUN/traces, as the recipes expect; each recipe gets its own copy.
synthetic() { # synthetic FOLDER RANKS: ranks of 4 GPU-annotated steps; odd ranks gzip, every third without its rank
  "$py" - "$1" "$2" <<'EOF'
import gzip, json, os, sys
folder, ranks = sys.argv[1], int(sys.argv[2])
os.makedirs(folder, exist_ok=True)
for r in range(ranks):
    events = []
    for s in range(4):
        t0 = 100 + 1000 * s + 3 * r
        events += [
            {"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": 0, "tid": 7, "ts": t0, "dur": 1000},
            {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "pid": 0, "tid": 7,
             "ts": t0 + 10, "dur": 300 + 7 * r + s, "args": {"device": 0, "stream": 7}},
            {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": t0 + 320 + 7 * r,
             "dur": 150, "args": {"device": 0, "stream": 7}},
            {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", "pid": 0, "tid": 20,
             "ts": t0 + 200 + r, "dur": 400, "args": {"device": 0, "stream": 20}},
        ]
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": events}
    # Every rank of a torch.distributed job records its process group; every third leaves its rank out, so that
    # the merge numbers it by its position.
    trace["distributedInfo"] = {"rank": r, "world_size": ranks} if r % 3 else {"world_size": ranks}
    name = os.path.join(folder, f"rank{r:04d}.json")
    text = json.dumps(trace)
    if r % 2:
        with gzip.open(name + ".gz", "wt") as f:
            f.write(text)
    else:
        open(name, "w").write(text)
EOF
}
make_run() { # make_run NAME SOURCE: RUN folder $W/runs/NAME whose traces are SOURCE's
  mkdir -p "$W/runs/$1/traces"
  cp "$2"/* "$W/runs/$1/traces/"
  echo "$W/runs/$1"
}
synthetic "$W/inputs/synthetic16" 16
synthetic "$W/inputs/broken" 4
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, ' >"$W/inputs/broken/rank0099.json" # cut off
# The real traces as the runs they come from (a run is one job's ranks): Holistic Trace Analysis's two sampled ranks
# of one 128-rank job, its NCCL rank alone, TraceLens's single-GPU trace alone.
real_runs=()
real_run() { # real_run NAME FILE...: a run of these files from shared/traces, when they are all there
  local name=$1 f
  shift
  for f in "$@"; do [ -f "$shared_traces/$f" ] || return 0; done
  mkdir -p "$W/inputs/$name"
  for f in "$@"; do cp "$shared_traces/$f" "$W/inputs/$name/"; done
  real_runs+=("$name")
}
real_run real-hta-sampled hta__trace_filter__sampled_rank-0.json.gz hta__trace_filter__sampled_rank-1.json.gz
real_run real-hta-nccl hta__nccl_parser_config__nccl_data.json.gz
real_run real-tracelens tracelens__h100__qwen1.5-0.5b-chat.json.gz
((${#real_runs[@]})) \
  || echo "ci_cluster: real traces not found at $shared_traces (shared/traces is absent in this checkout): synthetic only"

# The direct run over the very paths the map step was given (the run's list), which the merge must equal.
check_same() { # check_same RUN MERGED_JSON
  local traces=()
  mapfile -t traces <"$1/summaries/files.txt"
  mfu-explorer trace "${traces[@]}" --json >"$1/direct.json"
  cmp -s "$1/direct.json" "$2" || fail "$2 differs from 'trace <${#traces[@]} files> --json' ($1/direct.json)"
  say "  merged == direct, byte for byte: ${#traces[@]} traces, $(wc -c <"$2") bytes"
}

# --- Slurm --------------------------------------------------------------------------------------------------------
say "starting munged, slurmctld and slurmd (Slurm $(slurmctld -V | cut -d' ' -f2))"
mkdir -p "$W/munge" "$W/state" "$W/spool" "$W/log"
chown munge:munge "$W/munge"
runuser -u munge -- mungekey --create --keyfile="$W/munge/munge.key" >/dev/null
runuser -u munge -- munged --socket="$W/munge/munge.socket" --key-file="$W/munge/munge.key" \
  --pid-file="$W/munge/munged.pid" --log-file="$W/munge/munged.log" --seed-file="$W/munge/munged.seed" \
  || fail "munged did not start ($W/munge/munged.log)"
read -r ctld_port slurmd_port < <("$py" -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cpus=$(nproc)
((cpus >= 2)) || cpus=2 # map.sbatch asks for 2 CPUs per task
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
((mem_mb >= 8192)) || mem_mb=8192 # map.sbatch asks for 4G; nothing enforces memory here (task/none)
export SLURM_CONF="$W/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=mfu-ci
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
NodeName=ci-node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=ci Nodes=ci-node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -i || fail "slurmctld did not start ($W/log/slurmctld.log)"
slurmd -N ci-node || fail "slurmd did not start ($W/log/slurmd.log)"
for _ in $(seq 60); do
  sinfo -h -N -o %T 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -N -o %T | grep -q idle || fail "the node did not come up: $(sinfo -N 2>&1 | tail -1)"
say "Slurm up: node ci-node, $cpus CPUs"

job_state() { scontrol show job -o "$1" | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
# Waits for job $1 (the merge) to end; fails when it could only wait forever or takes longer than $2 seconds.
wait_job() {
  local state reason
  for _ in $(seq $(($2 * 2))); do
    state=$(job_state "$1")
    case "$state" in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | OUT_OF_MEMORY | NODE_FAIL) echo "$state"; return 0 ;;
    esac
    reason=$(scontrol show job -o "$1" | grep -o 'Reason=[A-Za-z_]*' | cut -d= -f2)
    [[ "$reason" == DependencyNeverSatisfied ]] && fail "job $1 is pending forever (DependencyNeverSatisfied)"
    sleep 0.5
  done
  fail "job $1 still $state after $2 s"
}
# slurm_recipe RUN ARRAY: the doc's three files in RUN/jobs, map.sbatch's --array line set to ARRAY as a user sizes
# it, submitted from there (the jobs' logs land there); prints the merge job's id.
slurm_recipe() {
  mkdir -p "$1/jobs"
  cp "$W/recipes/map.sbatch" "$W/recipes/merge.sbatch" "$W/recipes/submit.sh" "$1/jobs/"
  sed -i "s/^#SBATCH --array=[^ ]*/#SBATCH --array=$2/" "$1/jobs/map.sbatch"
  grep -q "^#SBATCH --array=$2 " "$1/jobs/map.sbatch" || fail "map.sbatch has no '#SBATCH --array=' line to size"
  (cd "$1/jobs" && bash submit.sh "$1" | tail -1)
}

# Each real run on a 2-task array (a one-file run leaves a task with nothing to do); the synthetic ranks on arrays that
# start at 0, at 1, and step by 2.
slurm_cases=()
for r in "${real_runs[@]}"; do slurm_cases+=("$r 0-1"); done
slurm_cases+=("synthetic16 0-1" "synthetic16 1-4" "synthetic16 0-6:2")
for case in "${slurm_cases[@]}"; do
  read -r source array <<<"$case"
  run=$(make_run "slurm-$source-${array//[:]/_}" "$W/inputs/$source")
  merge=$(slurm_recipe "$run" "$array")
  state=$(wait_job "$merge" 150)
  [[ "$state" == COMPLETED ]] || fail "merge job $merge: $state ($(cat "$run/jobs/slurm-$merge.out" 2>/dev/null))"
  say "slurm, $source traces, --array=$array: merge job $state"
  check_same "$run" "$run/run.json"
done

# A trace that cannot be read: its map task fails, the merge still runs (afterany), finds the summary missing and
# fails naming it.
run=$(make_run slurm-broken "$W/inputs/broken")
merge=$(slurm_recipe "$run" 0-1)
state=$(wait_job "$merge" 150)
[[ "$state" == FAILED ]] || fail "merge job $merge after a failed map task: $state, expected FAILED"
grep -q "no summary for .*rank0099.json" "$run/jobs/slurm-$merge.out" \
  || fail "the failed merge does not name the unread trace: $(cat "$run/jobs/slurm-$merge.out")"
[ ! -e "$run/run.json" ] || fail "a run.json was written from an incomplete set of summaries"
say "slurm, a trace that cannot be read: map task failed, merge job $state naming it, no run.json"

# --- Dask ---------------------------------------------------------------------------------------------------------
for source in "${real_runs[@]:0:1}" synthetic16; do
  run=$(make_run "dask-$source" "$W/inputs/$source")
  "$py" "$W/recipes/map_reduce_dask.py" "$run" >"$run/run.json" 2>"$run/dask.log" \
    || fail "map_reduce_dask.py on $source traces failed: $(tail -5 "$run/dask.log")"
  say "dask LocalCluster, $source traces"
  # map_reduce_dask.py makes no list: the direct run reads the same paths, its traces in name order.
  printf '%s\n' "$run"/traces/* | LC_ALL=C sort >"$run/summaries/files.txt"
  check_same "$run" "$run/run.json"
done
run=$(make_run dask-broken "$W/inputs/broken")
if "$py" "$W/recipes/map_reduce_dask.py" "$run" >"$run/run.json" 2>"$run/dask.log"; then
  fail "map_reduce_dask.py succeeded with a trace that cannot be read"
fi
grep -q "rank0099.json" "$run/dask.log" || fail "the Dask failure does not name the unread trace: $(tail -5 "$run/dask.log")"
[ ! -s "$run/run.json" ] || fail "map_reduce_dask.py printed a run from an incomplete set of summaries"
say "dask, a trace that cannot be read: the script failed naming it and printed nothing"

say "OK"
