#!/usr/bin/env bash
# End-to-end test of `wb experiment --slurm` against a real Slurm (Debian's
# 22.05): starts munged, slurmctld and four emulated slurmd nodes on 127.0.0.1
# in a fresh temporary directory, runs configs/slurm-small.yaml both locally
# and as a Slurm job array + collect job, and checks that summary.csv, jobs.csv
# and timeseries.csv are byte-identical. Every daemon it starts is stopped on
# exit, whatever happens; nothing outside the temporary directory is touched
# except installing the packages when they are missing.
#
#   bash scripts/slurm-test.sh          # or: make test-slurm
#
# Needs root (the daemons run as root). Not root: runs itself again through
# `sudo -n` where that works; where it cannot be root, skips (exit 0) with a
# message saying so.
#
# Environment:
#   SLURM_TEST_TIMEOUT    seconds to wait for the jobs to leave the queue (180)
#   SLURM_TEST_CTLD_PORT  slurmctld's port (6817)
#   SLURM_TEST_NODE_PORT  first of the four slurmd ports (17001)
#   SLURM_TEST_KEEP=1     keep the temporary directory (logs, results)
set -Eeuo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

CONFIG=configs/slurm-small.yaml
WB="$ROOT/bin/wb"
JOB_TIMEOUT=${SLURM_TEST_TIMEOUT:-180}
CTLD_PORT=${SLURM_TEST_CTLD_PORT:-6817}
NODE_PORT=${SLURM_TEST_NODE_PORT:-17001}
NODES=4

say() { echo "slurm-test: $*"; }

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		exec sudo -n --preserve-env=CI,PATH,SLURM_TEST_TIMEOUT,SLURM_TEST_CTLD_PORT,SLURM_TEST_NODE_PORT,SLURM_TEST_KEEP bash "$0" "$@"
	fi
	say "SKIP: cannot be root here (id -u is $(id -u), no password-less sudo); the test starts munged, slurmctld and slurmd as root"
	exit 0
fi

START=$SECONDS
D=""                # temporary directory: config, key, sockets, pid files, logs, state, results
FAIL_REASON=""
STARTED_CTLD=0      # set once slurmctld was started: cleanup cancels jobs first
POLICY_RC_CREATED=0 # set while a policy-rc.d of ours keeps apt from starting services

fail() {
	FAIL_REASON=$*
	exit 1
}
trap 'FAIL_REASON=${FAIL_REASON:-"line $LINENO: \`$BASH_COMMAND\` failed"}' ERR

dump_logs() {
	local f
	for f in "$D"/slurm/slurm/*.out; do
		[ -f "$f" ] || continue
		echo "----- job log $f (last 20 lines) -----"
		tail -n 20 "$f"
	done
	# Daemon logs and their stderr, less the noise every start makes.
	for f in "$D"/log/*; do
		[ -s "$f" ] || continue
		echo "----- $f (last 25 lines, known noise left out) -----"
		grep -vE 'pmix|MPI: Cannot create context|state file|Trying backup state save|MailProg|Unauthorized credential' "$f" | tail -n 25 || true
	done
	if [ -n "${SLURM_CONF:-}" ] && [ "$STARTED_CTLD" = 1 ]; then
		echo "----- squeue -----"
		timeout 10 squeue -o '%i %j %T %r' 2>&1 || true
		echo "----- sinfo -----"
		timeout 10 sinfo -N -o '%N %T %E' 2>&1 || true
	fi
}

# stop_pidfiles FILE...: SIGTERM the daemons whose pids are in the FILEs (all
# at once: a slurmd takes about 2 s to shut down), SIGKILL those left after 10 s.
stop_pidfiles() {
	local f pid i pids=()
	for f in "$@"; do
		[ -f "$f" ] || continue
		pid=$(cat "$f" 2>/dev/null) || continue
		[[ "$pid" =~ ^[0-9]+$ ]] || continue
		kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
	done
	for ((i = 0; i < 100; i++)); do
		local alive=()
		for pid in "${pids[@]}"; do
			kill -0 "$pid" 2>/dev/null && alive+=("$pid")
		done
		pids=("${alive[@]}")
		[ "${#pids[@]}" -eq 0 ] && return 0
		sleep 0.1
	done
	say "pids ${pids[*]} ignored SIGTERM for 10 s; SIGKILL"
	kill -KILL "${pids[@]}" 2>/dev/null || true
}

cleanup() {
	local rc=$? i pid
	set +e
	trap - ERR
	# Finish the clean-up even if stdout is gone (`| head`) or ^C comes again.
	trap '' PIPE INT TERM HUP
	if [ "$POLICY_RC_CREATED" = 1 ]; then
		rm -f /usr/sbin/policy-rc.d
	fi
	if [ -n "$D" ] && [ -d "$D" ]; then
		if [ "$rc" -ne 0 ]; then
			dump_logs
		fi
		if [ "$STARTED_CTLD" = 1 ]; then
			# Cancel every job of this (private) cluster and give them a moment
			# to go, so that no slurmstepd outlives its slurmd.
			timeout 10 scancel --user=root >/dev/null 2>&1
			for ((i = 0; i < 30; i++)); do
				[ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
				sleep 0.5
			done
		fi
		stop_pidfiles "$D"/run/slurmd-*.pid
		stop_pidfiles "$D/run/slurmctld.pid"
		# A slurmstepd left over (a job that would not go) carries our
		# SLURM_CONF in its environment: kill those, and only those.
		for pid in $(pgrep -x slurmstepd 2>/dev/null); do
			if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$D/etc/slurm.conf"; then
				say "killing leftover slurmstepd $pid"
				kill -KILL "$pid" 2>/dev/null
			fi
		done
		stop_pidfiles "$D/run/munged.pid"
		if [ "${SLURM_TEST_KEEP:-}" = 1 ]; then
			say "kept $D"
		else
			rm -rf "$D"
		fi
	fi
	if [ "$rc" -ne 0 ]; then
		say "FAIL: ${FAIL_REASON:-exit status $rc} ($((SECONDS - START)) s)" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'FAIL_REASON="interrupted"; exit 130' INT TERM HUP

# 1. Slurm and munge: Debian's packages, when missing.
need=()
for cmd in munged slurmctld slurmd sbatch squeue sinfo scancel scontrol; do
	command -v "$cmd" >/dev/null 2>&1 || need+=("$cmd")
done
if [ "${#need[@]}" -gt 0 ]; then
	command -v apt-get >/dev/null 2>&1 || fail "missing ${need[*]} and no apt-get to install Slurm with"
	say "installing slurmctld slurmd slurm-client munge (missing: ${need[*]})"
	# Keep the packages' init scripts from starting system-wide daemons.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		POLICY_RC_CREATED=1
	fi
	aptlog=$(mktemp)
	apt_install() {
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			slurmctld slurmd slurm-client munge >>"$aptlog" 2>&1
	}
	if ! apt_install; then
		# Perhaps stale or missing package lists.
		if ! { apt-get update -qq >>"$aptlog" 2>&1 && apt_install; }; then
			cat "$aptlog" >&2
			rm -f "$aptlog"
			fail "apt-get install slurmctld slurmd slurm-client munge failed"
		fi
	fi
	rm -f "$aptlog"
	if [ "$POLICY_RC_CREATED" = 1 ]; then
		rm -f /usr/sbin/policy-rc.d
		POLICY_RC_CREATED=0
	fi
	for cmd in "${need[@]}"; do
		command -v "$cmd" >/dev/null 2>&1 || fail "$cmd still missing after installing the packages"
	done
fi

# 2. wb.
if [ ! -x "$WB" ]; then
	say "building bin/wb"
	go build -o bin/wb ./cmd/wb || fail "go build -o bin/wb ./cmd/wb failed"
fi

# 3. Ports: another Slurm on them would answer our clients instead of ours.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in "$CTLD_PORT" $(seq "$NODE_PORT" $((NODE_PORT + NODES - 1))); do
	if port_busy "$port"; then
		fail "port $port on 127.0.0.1 is in use (another Slurm?); set SLURM_TEST_CTLD_PORT / SLURM_TEST_NODE_PORT"
	fi
done

# 4. A private cluster in a temporary directory.
D=$(mktemp -d "${TMPDIR:-/tmp}/wb-slurm-test.XXXXXX")
chmod 711 "$D" # munged wants execute permission for all on its socket's directories
mkdir -p "$D"/etc "$D"/run "$D"/log "$D"/state/ctld "$D"/state/munge
for ((i = 1; i <= NODES; i++)); do
	mkdir -p "$D/state/d/n$i" # slurmd does not create SlurmdSpoolDir/%n
done
HOST=$(hostname -s)
[ -n "$HOST" ] || fail "hostname -s is empty"
export SLURM_CONF="$D/etc/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=wbtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/run/munge.socket.2
StateSaveLocation=$D/state/ctld
SlurmdSpoolDir=$D/state/d/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MaxArraySize=100001
MinJobAge=30
KillWait=5
SlurmdParameters=config_overrides
NodeName=n[1-$NODES] NodeHostname=$HOST NodeAddr=127.0.0.1 Port=[$NODE_PORT-$((NODE_PORT + NODES - 1))] CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=32 ThreadsPerCore=1 RealMemory=512000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

say "starting munged, slurmctld and $NODES slurmd in $D"
dd if=/dev/urandom of="$D/etc/munge.key" bs=1024 count=1 status=none
chmod 600 "$D/etc/munge.key"
munged --socket="$D/run/munge.socket.2" --key-file="$D/etc/munge.key" \
	--pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" \
	--seed-file="$D/state/munge/munged.seed" >"$D/log/munged.out" 2>&1 ||
	fail "munged did not start: $(cat "$D/log/munged.out")"
STARTED_CTLD=1
slurmctld -f "$SLURM_CONF" >"$D/log/slurmctld.out" 2>&1 ||
	fail "slurmctld did not start: $(cat "$D/log/slurmctld.out")"
for ((i = 1; i <= NODES; i++)); do
	slurmd -f "$SLURM_CONF" -N "n$i" >"$D/log/slurmd-n$i.out" 2>&1 ||
		fail "slurmd n$i did not start: $(cat "$D/log/slurmd-n$i.out")"
done

idle=0
for ((i = 0; i < 60; i++)); do
	idle=$(timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2 == "idle"' | wc -l) || idle=0
	[ "$idle" -ge "$NODES" ] && break
	sleep 0.5
done
[ "$idle" -ge "$NODES" ] || fail "only $idle of $NODES nodes idle after 30 s"
say "$NODES nodes idle after $((SECONDS - START)) s"

# 5. The experiment, locally and on Slurm.
say "local run: wb experiment --quiet --out \$TMP/local $CONFIG"
"$WB" experiment --quiet --out "$D/local" "$CONFIG" || fail "local run failed"

say "slurm run: wb experiment --out \$TMP/slurm $CONFIG --slurm"
out=$("$WB" experiment --out "$D/slurm" "$CONFIG" --slurm 2>&1) || {
	echo "$out"
	fail "wb experiment --slurm failed"
}
echo "$out"
ARRAY=$(sed -n 's/.*submitted job array \([0-9][0-9]*\).*/\1/p' <<<"$out" | head -n 1)
COLLECT=$(sed -n 's/.*collect job \([0-9][0-9]*\).*/\1/p' <<<"$out" | head -n 1)
if [ -z "$ARRAY" ] || [ -z "$COLLECT" ]; then
	fail "no job ids in wb's output"
fi

# Wait for the jobs to leave the queue. The collect job runs after the array
# however its tasks end (afterany); a dependency that can never be met
# (DependencyNeverSatisfied, as an afterok one would be after a failed task)
# stops the wait at once. The finished jobs stay known to slurmctld for
# MinJobAge (30 s): all must have COMPLETED (exit 0).
wait_jobs() {
	local t0=$SECONDS q states bad id
	while :; do
		q=$(timeout 10 squeue -h -o '%i %T %r' 2>&1) || fail "squeue failed: $q"
		[ -z "$q" ] && break
		if grep -q DependencyNeverSatisfied <<<"$q"; then
			fail "an array task failed, so the collect job can never run"
		fi
		if ((SECONDS - t0 >= JOB_TIMEOUT)); then
			fail "jobs still queued after $JOB_TIMEOUT s"
		fi
		sleep 1
	done
	say "jobs left the queue after $((SECONDS - t0)) s"
	states=$(for id; do timeout 10 scontrol -o show job "$id" 2>/dev/null; done) || true
	if [ -n "$states" ]; then
		bad=$(grep -o 'JobId=[0-9]* .*JobState=[A-Z_]*' <<<"$states" | sed 's/JobId=\([0-9]*\) .*JobState=\([A-Z_]*\)/\1 \2/' | awk '$2 != "COMPLETED"') || true
		[ -z "$bad" ] || fail "jobs did not complete: $(tr '\n' ' ' <<<"$bad")"
	fi
}
wait_jobs "$ARRAY" "$COLLECT"

# 6. Same results.
[ -f "$D/slurm/summary.csv" ] || fail "no summary.csv from the Slurm run"
for f in summary.csv jobs.csv timeseries.csv; do
	cmp "$D/local/$f" "$D/slurm/$f" || fail "$f differs between the local and the Slurm run"
done
runs=$(($(wc -l <"$D/slurm/summary.csv") - 1))
say "PASS: $runs runs as Slurm array $ARRAY + collect job $COLLECT; summary.csv, jobs.csv, timeseries.csv identical to the local run ($((SECONDS - START)) s)"

# 7. --resume resubmits only what is missing: one run's file removed, the
# array has one task, and the merged results are the same again.
rm -f "$D/slurm/runs/000001.run" "$D/slurm/summary.csv"
say "slurm resume: one run removed; wb experiment --out \$TMP/slurm $CONFIG --slurm --resume"
out=$("$WB" experiment --out "$D/slurm" "$CONFIG" --slurm --resume 2>&1) || {
	echo "$out"
	fail "wb experiment --slurm --resume failed"
}
echo "$out"
grep -q "1 task for the 1 of $runs runs not stored complete" <<<"$out" || fail "the resumed array is not one task for the one run missing"
grep -q '^#SBATCH --array=1$' "$D/slurm/slurm/array.sbatch" || fail "array.sbatch asks for $(grep -- '--array' "$D/slurm/slurm/array.sbatch")"
ARRAY=$(sed -n 's/.*submitted job array \([0-9][0-9]*\).*/\1/p' <<<"$out" | head -n 1)
COLLECT=$(sed -n 's/.*collect job \([0-9][0-9]*\).*/\1/p' <<<"$out" | head -n 1)
[ -n "$ARRAY" ] && [ -n "$COLLECT" ] || fail "no job ids in wb's output"
wait_jobs "$ARRAY" "$COLLECT"
for f in summary.csv jobs.csv timeseries.csv; do
	cmp "$D/local/$f" "$D/slurm/$f" || fail "$f differs between the local and the resumed Slurm run"
done
say "PASS: resumed with one task (array $ARRAY), results identical to the local run ($((SECONDS - START)) s)"
