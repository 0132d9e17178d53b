#!/usr/bin/env python3
"""Run a command and account for every process it starts, detached ones
included: the CPU (user + system) of the whole tree, the peak resident set
of each process, and the wall time until the last of them exits.

git konteks starts its background runner detached; /usr/bin/time counts
only its direct child and would leave the runner's work out. Here this
process becomes the tree's subreaper (prctl PR_SET_CHILD_SUBREAPER), so
orphaned descendants are reparented to it and reaped with their rusage.

    usage: cpurun.py OUT COMMAND [ARG...]

OUT receives one line per reaped process ("pid cpu_s maxrss_mb argv0")
and a last line "total cpu_s wall_s max_rss_mb". The command's own stdout
and stderr pass through; the exit status is the command's.
"""
import ctypes
import os
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out, argv = sys.argv[1], sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("cpurun: prctl(PR_SET_CHILD_SUBREAPER) failed\n")
        return 1
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    status, lines, cpu, peak = 0, [], 0.0, 0
    while True:
        try:
            p, st, ru = os.wait4(-1, 0)
        except ChildProcessError:
            break
        c = ru.ru_utime + ru.ru_stime
        cpu += c
        peak = max(peak, ru.ru_maxrss)
        lines.append("%d %.3f %.0f %s" % (p, c, ru.ru_maxrss / 1024, "main" if p == pid else "descendant"))
        if p == pid:
            status = os.waitstatus_to_exitcode(st)
    wall = time.monotonic() - t0
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
        f.write("total %.3f %.3f %.0f\n" % (cpu, wall, peak / 1024))
    return status


if __name__ == "__main__":
    sys.exit(main())
