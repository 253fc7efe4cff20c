#!/bin/busybox sh
# The guest agent, PID 1 of a gate VM (docs/gates.md). It runs as root inside the guest;
# the code under test runs as `user` (uid 1000) in the cgroup `gate`, which carries the
# spec's memory and pids limits and is killed whole at the time budget.
#
# Protocol with the host, over the serial console (ttyS0), one line each:
#   guest: AIRLOCK ready            (booted, idle: the warm snapshot is taken here)
#   host:  go <unix seconds>
#   guest: AIRLOCK phase <n> <name> started | AIRLOCK phase <n> exited <rc>
#   guest: AIRLOCK done             (then powers off)
# The run's plan comes on the input disk (serial airlock-in, ext4, read-only): plan.sh,
# phase-<n>.sh (`set --` with the phase's environment and argv), copyout.list, in/<k>/
# (copy-in trees), ca.pem. Results go to the output disk (serial airlock-out) as one tar:
# .airlock-result/{meta,logs/,trace/} and the copy-out paths. The host treats all of it as
# hostile input.
#
# Busybox's shell, with its applets run without a new program where it can: under TCG,
# and most of all right after a warm restore (when QEMU has translated none of the
# guest's code yet), every program started costs tens to hundreds of milliseconds, so the
# path from `go` to `done` starts as few as it can (builtins over programs, no polling).

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/busybox
CON=/dev/ttyS0
R=/.airlock-result
IN=/.airlock-in
CG=/sys/fs/cgroup/gate
LOG_BYTES=@LOG_BYTES@
PROXY=10.0.2.100:3128

say() { echo "AIRLOCK $*" > "$CON"; }
fatal() { say "fatal $*"; sync; poweroff -f; }
# NOW: uptime in centiseconds (the guest's monotonic clock; the wall clock is set late).
now_cs() { read -r up _ < /proc/uptime; NOW=${up%.*}${up#*.}; }

mount -t proc proc /proc
mount -t sysfs sys /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=0755 run /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo '+memory +pids' > /sys/fs/cgroup/cgroup.subtree_control
mkdir "$CG"
hostname gate
ip link set lo up
stty -F "$CON" -echo
mkdir -p "$R/logs" "$R/trace" "$IN"

in_disk=
out_disk=
for disk in /sys/block/vd*; do
  serial=
  read -r serial < "$disk/serial" 2> /dev/null
  case "$serial" in
    airlock-in) in_disk="/dev/${disk##*/}" ;;
    airlock-out) out_disk="/dev/${disk##*/}" ;;
  esac
done
if [ -z "$in_disk" ] && grep -q 'airlock.disks=order' /proc/cmdline; then
  in_disk=/dev/vdb
  out_disk=/dev/vdc
fi
[ -n "$in_disk" ] && [ -n "$out_disk" ] || fatal "input or output disk missing"
# The kernel read the disks' first blocks when it found them; a warm snapshot taken now
# must hold none of the placeholders' blocks, so the run's disks are read afresh.
blockdev --flushbufs "$in_disk"
blockdev --flushbufs "$out_disk"

say ready
read -r word epoch < "$CON"
[ "$word" = go ] || fatal "expected go, got $word"
date -s "@$epoch" > /dev/null
mount -t ext4 -o ro,noload "$in_disk" "$IN" || fatal 'cannot mount the input disk'

TIMED_OUT=0
OOM=0
STOPPED=
NETWORK=none
TRACE=0
WATCHDOG=

# copy_in K GUEST_PATH ro|rw: the tree in/K at GUEST_PATH (ro: a read-only bind mount).
copy_in() {
  mkdir -p "$2"
  if [ "$3" = ro ]; then
    mount --bind "$IN/in/$1" "$2" && mount -o remount,bind,ro "$2"
  else
    cp -a "$IN/in/$1/." "$2/" && chown -R user:user "$2"
  fi
}

start_network() {
  ip link set eth0 up
  ip addr add 10.0.2.15/24 dev eth0
  ip route add default via 10.0.2.2
  if [ -s "$IN/ca.pem" ]; then
    cat "$IN/ca.pem" >> /etc/ssl/certs/ca-certificates.crt
  fi
}

set_network() {
  [ "$NETWORK" = scoped ] || return 0
  if [ "$1" = scoped ]; then ip link set eth0 up; else ip link set eth0 down; fi
}

limits() {
  echo $(( $1 * 1024 * 1024 )) > "$CG/memory.max"
  echo 0 > "$CG/memory.swap.max" 2> /dev/null
  echo 1 > "$CG/memory.oom.group"
  echo "$2" > "$CG/pids.max"
  # The watchdog: at the budget, kill everything in the cgroup (one sleeping process).
  ( sleep "$3"; : > /run/airlock-timeout; echo 1 > "$CG/cgroup.kill" ) &
  WATCHDOG=$!
}

# phase N NAME NETWORK CWD: runs the argv of phase-N.sh as `user` in the cgroup, with
# exactly its environment (Debian's env -i: busybox's would run its own applet for a
# program of the same name), stdin from /dev/null, stdout and stderr to the logs.
# Log pages are charged to the phase's cgroup, so its memory limit bounds them; they are
# cut to their last LOG_BYTES before they leave the guest.
phase() {
  [ -z "$STOPPED" ] || return 0
  if [ -e /run/airlock-timeout ]; then STOPPED=1; return 0; fi
  set_network "$3"
  say "phase $1 $2 started"
  now_cs
  started=$NOW
  n=$1
  (
    echo 0 > "$CG/cgroup.procs"
    cd "$4" || exit 127
    . "$IN/phase-$n.sh"
    if [ "$TRACE" = 1 ]; then
      exec /usr/bin/strace -f -qq -s 512 -e trace=execve,connect -e signal=none -o "$R/trace/$n.strace" -u user /usr/bin/env -i "$@"
    fi
    exec /usr/bin/setpriv --reuid=1000 --regid=1000 --init-groups --inh-caps=-all --bounding-set=-all /usr/bin/env -i "$@"
  ) < /dev/null > "$R/logs/$n.out" 2> "$R/logs/$n.err"
  rc=$?
  now_cs
  while read -r key value; do
    [ "$key" = oom_kill ] && [ "$value" != 0 ] && OOM=1
  done < "$CG/memory.events"
  [ -e /run/airlock-timeout ] && TIMED_OUT=1
  echo "phase $n $rc $(( (NOW - started) * 10 ))" >> "$R/meta"
  say "phase $n exited $rc"
  [ "$rc" = 0 ] || STOPPED=1
}

. "$IN/plan.sh"

[ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2> /dev/null
# Nothing the workload left running writes while the results are packed.
echo 1 > "$CG/cgroup.kill"
echo "timedout $TIMED_OUT" >> "$R/meta"
echo "oom $OOM" >> "$R/meta"
echo "end" >> "$R/meta"
wc -c "$R"/logs/* > /run/log-sizes 2> /dev/null
while read -r size file; do
  [ -f "$file" ] && [ "$size" -gt "$LOG_BYTES" ] || continue
  tail -c $((LOG_BYTES + 1)) "$file" > /run/log-tail && cat /run/log-tail > "$file"
done < /run/log-sizes
cd /
/usr/bin/tar -c -f "$out_disk" --format=gnu --hard-dereference --ignore-failed-read .airlock-result --null -T "$IN/copyout.list" 2> /run/tar.err
sync
say done
poweroff -f
