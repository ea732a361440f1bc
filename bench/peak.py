"""Peak memory of this process, for the benches' worker processes.

``ru_maxrss`` is the wrong measure for a worker: Linux keeps it across ``exec``, so a worker
started by a bench that has itself grown (it built a 60k-node decoder, say) reports the bench's
peak, not its own.  ``VmHWM`` in ``/proc/self/status`` is the high-water mark of the process's
current address space, which ``exec`` starts afresh; ``ru_maxrss`` is the fallback elsewhere.
"""
from __future__ import annotations

import resource


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB, counted from its own ``exec``."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024   # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # Linux: KiB
