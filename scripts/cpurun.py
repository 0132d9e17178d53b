#!/usr/bin/env python3
"""Run a command and account for every process it starts, detached ones
included: the CPU (user + system) of the whole tree, the peak resident set
of each process, and the wall time until the last of them exits.

git konteks starts its background runner detached; /usr/bin/time counts
only its direct child and would leave the runner's work out. Here this
process becomes the tree's subreaper (prctl PR_SET_CHILD_SUBREAPER), so
orphaned descendants are reparented to it and reaped with their rusage.

Peak RSS is each process's VmHWM, read from /proc/PID/status every 50 ms
while it runs, not getrusage's ru_maxrss: on Linux a child started with
vfork (Go's os/exec, posix_spawn) inherits its parent's ru_maxrss, so the
runner and every git process an extraction starts would report the
extraction's peak. A process that lives less than one sampling interval
reports 0.

    usage: cpurun.py OUT COMMAND [ARG...]

OUT receives one line per process ("pid cpu_s peak_rss_mb role command",
role "main" for COMMAND itself, else "descendant") and a last line
"total cpu_s wall_s max_peak_rss_mb". cpu_s is "-" for a process its own
parent reaped: its CPU is in that parent's figure, as in the total. The command's own stdout and
stderr pass through; the exit status is the command's.
"""
import ctypes
import os
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36
INTERVAL = 0.05


def children(pid):
    """The direct children of pid, from /proc/PID/task/*/children."""
    kids = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return kids
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                kids.extend(int(k) for k in f.read().split())
        except OSError:
            pass
    return kids


def hwm_kb(pid):
    """VmHWM of pid in kB, or None when it is gone or a zombie."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def command(pid):
    """The program's base name and its first argument that is not an
    option, as "git cat-file"."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return ""
    argv = [a.decode(errors="replace") for a in argv if a]
    if not argv:
        return ""
    words, rest = [os.path.basename(argv[0])], argv[1:]
    # git's own options come before its subcommand: -c k=v, -C dir, --x.
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] in ("-c", "-C") else rest[1:]
    return " ".join(words + rest[:1])


class Sampler(threading.Thread):
    """Every INTERVAL, the peak RSS and command of every descendant."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak, self.cmd = {}, {}
        self.done = threading.Event()

    def run(self):
        me = os.getpid()
        while not self.done.is_set():
            todo = children(me)
            while todo:
                p = todo.pop()
                todo.extend(children(p))
                kb = hwm_kb(p)
                if kb is None:
                    continue
                if kb > self.peak.get(p, 0):
                    self.peak[p] = kb
                c = command(p)
                if c:  # after an exec, the new program's name
                    self.cmd[p] = c
            self.done.wait(INTERVAL)


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out, argv = sys.argv[1], sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("cpurun: prctl(PR_SET_CHILD_SUBREAPER) failed\n")
        return 1
    sampler = Sampler()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    sampler.start()
    status, reaped, cpu = 0, [], 0.0
    while True:
        try:
            p, st, ru = os.wait4(-1, 0)
        except ChildProcessError:
            break
        c = ru.ru_utime + ru.ru_stime
        cpu += c
        reaped.append((p, c))
        if p == pid:
            status = os.waitstatus_to_exitcode(st)
    wall = time.monotonic() - t0
    sampler.done.set()
    sampler.join()
    peak, lines = 0, []
    cpus = dict(reaped)
    for p in [p for p, _ in reaped] + sorted(set(sampler.peak) - set(cpus)):
        kb = sampler.peak.get(p, 0)
        peak = max(peak, kb)
        c = "%.3f" % cpus[p] if p in cpus else "-"
        lines.append("%d %s %.0f %s %s" % (p, c, kb / 1024, "main" if p == pid else "descendant", sampler.cmd.get(p, "?")))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
        f.write("total %.3f %.3f %.0f\n" % (cpu, wall, peak / 1024))
    return status


if __name__ == "__main__":
    sys.exit(main())
