#!/bin/sh
# A single-node SLURM cluster on this machine, for trying the README's SLURM recipe and for
# its opt-in test (tests/test_slurm.py). Needs root and Debian's packages:
#     apt-get install -y slurm-wlm munge
# Usage:
#     scripts/slurm-single-node.sh start    # munged, slurmctld and slurmd; waits for the node
#     scripts/slurm-single-node.sh stop     # stops what start started (munged too, when start
#                                           # started it; one running before is left alone)
#     eval "$(scripts/slurm-single-node.sh env)"   # SLURM_CONF for sbatch, squeue, dask-jobqueue
# The configuration and state live in $SLURM_HOME (default /tmp/puzzle-bench-slurm), never in
# /etc/slurm: one node (this host, all its cores), one partition "debug", no accounting, no
# cgroups (process tracking by /proc, so it also runs in a container).
set -eu

SLURM_HOME=${SLURM_HOME:-/tmp/puzzle-bench-slurm}
CONF=$SLURM_HOME/slurm.conf
HOST=$(hostname -s)

write_conf() {
    mkdir -p "$SLURM_HOME/state" "$SLURM_HOME/spool" "$SLURM_HOME/log" /run/munge
    # the node as slurmd sees it (CPUs, sockets, cores, threads, memory)
    node=$(slurmd -C | head -n 1 | sed -e "s/^NodeName=[^ ]*/NodeName=$HOST/")
    cat > "$CONF" <<CONF
# written by scripts/slurm-single-node.sh
ClusterName=puzzle-bench
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$SLURM_HOME/state
SlurmdSpoolDir=$SLURM_HOME/spool
SlurmctldPidFile=$SLURM_HOME/slurmctld.pid
SlurmdPidFile=$SLURM_HOME/slurmd.pid
SlurmctldLogFile=$SLURM_HOME/log/slurmctld.log
SlurmdLogFile=$SLURM_HOME/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
$node State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
}

start() {
    write_conf
    chown munge:munge /run/munge
    if ! pgrep -x munged >/dev/null; then
        runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
        # stop ends munged only when start started it: remember its pid where stop looks
        tries=0
        until [ -s /run/munge/munged.pid ] || [ "$tries" -gt 20 ]; do
            tries=$((tries + 1))
            sleep 0.25
        done
        cp /run/munge/munged.pid "$SLURM_HOME/munged.pid"
    fi
    pgrep -f "slurmctld -f $CONF" >/dev/null || slurmctld -f "$CONF"
    pgrep -f "slurmd -f $CONF" >/dev/null || slurmd -f "$CONF"
    tries=0
    until SLURM_CONF=$CONF sinfo -h -N -o "%T" 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; do
        tries=$((tries + 1))
        if [ "$tries" -gt 60 ]; then
            echo "slurm-single-node: the node did not come up; see $SLURM_HOME/log/" >&2
            SLURM_CONF=$CONF sinfo -N >&2 || true
            exit 1
        fi
        sleep 1
    done
    echo "slurm-single-node: up (SLURM_CONF=$CONF)"
}

# end_pid FILE NAME: SIGTERM to the pid in FILE when that process is still NAME, then wait
# (at most 20 s) until it is gone, so that a start right after finds nothing half-stopped
end_pid() {
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]; then
        kill "$pid" 2>/dev/null || true
        tries=0
        while [ -d "/proc/$pid" ] && [ "$tries" -lt 40 ]; do
            tries=$((tries + 1))
            sleep 0.5
        done
    fi
    rm -f "$1"
}

stop() {
    end_pid "$SLURM_HOME/slurmd.pid" slurmd
    end_pid "$SLURM_HOME/slurmctld.pid" slurmctld
    end_pid "$SLURM_HOME/munged.pid" munged  # only there when start started munged
    echo "slurm-single-node: stopped"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    env) echo "export SLURM_CONF=$CONF" ;;
    *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
