"""How many examples a property test draws: the counts in the tests, scaled for the run.

The counts written in the tests are the README's test command's (CI runs it on every
push, within its time budget). ``POLARS_RANK_EXAMPLES`` scales every count at once: 10
for a thorough run before a release, a fraction for CI's second pass on the oldest
Polars (``.ci/run``), which looks for that Polars' defects, not for new inputs.
"""

from __future__ import annotations

import os

SCALE = float(os.environ.get("POLARS_RANK_EXAMPLES", "1"))


def examples(count: int) -> int:
    """``count`` examples scaled by ``POLARS_RANK_EXAMPLES`` (never fewer than 3)."""
    return max(3, round(count * SCALE))
