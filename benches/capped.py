"""Run a command; kill its process group when its memory or time passes a cap.

    python benches/capped.py GIB SECONDS command...

For a tool that would need more memory than the machine has (MS Recommenders at 10M
rows in benches/recsys.py): on a machine without swap, the kernel's OOM killer may pick
another process; this kills the command first and says when and at what size. Prints
``exit <code> after <s>s peak <GiB> GiB`` (``KILLED at ...`` first when it killed).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time


def group_rss(group: int) -> int:
    """Resident bytes of the processes of process group ``group``."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) == group:
                with open(f"/proc/{entry}/statm") as f:
                    total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            continue  # gone meanwhile
    return total


def main() -> None:
    limit, seconds, command = float(sys.argv[1]) * 2**30, float(sys.argv[2]), sys.argv[3:]
    start = time.time()
    child = subprocess.Popen(command, start_new_session=True)
    peak = 0
    while child.poll() is None:
        rss = group_rss(child.pid)
        peak = max(peak, rss)
        if rss > limit or time.time() - start > seconds:
            os.killpg(child.pid, 9)
            print(f"KILLED at {time.time() - start:.0f}s rss {rss / 2**30:.1f} GiB", flush=True)
            break
        time.sleep(1)
    code = child.wait()
    print(f"exit {code} after {time.time() - start:.0f}s peak {peak / 2**30:.1f} GiB", flush=True)


if __name__ == "__main__":
    main()
