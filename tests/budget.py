"""How many examples a property test draws: the counts in the tests, scaled for the run.

The counts written in the tests are the README's test command's (CI runs it on every
push, within its time budget: the whole of CI under 30 minutes on two cores). A count
is sized so that its test takes at most about 15 worker-seconds there; where an
example plans every metric (about 60 expressions, half a second of planning), that is
25 examples or fewer. (2026-11-28: the counts of the nine heaviest test files halved
or more, the README step's tests from 3,120 worker-seconds; see docs/performance.md.)
``POLARS_RANK_EXAMPLES`` scales every count at once: 4 to 10 for a thorough run
before a release, a fraction for CI's second pass on the oldest Polars
(``.ci/run``), which looks for that Polars' defects, not for new inputs.
"""

from __future__ import annotations

import os

SCALE = float(os.environ.get("POLARS_RANK_EXAMPLES", "1"))


def examples(count: int) -> int:
    """``count`` examples scaled by ``POLARS_RANK_EXAMPLES`` (never fewer than 3)."""
    return max(3, round(count * SCALE))
