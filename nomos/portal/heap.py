"""A served portal's long-lived objects kept out of the cyclic garbage collector's full passes (issue 51: CPU a page).

A results page allocates tens of thousands of containers (every response's hits, a learned ranker's pool of ~330
articles); those still alive when a young collection runs are promoted, and every few pages CPython's full collection
walks every object it tracks in the process. Most of them never die: the modules, classes and functions that the
first search of a method imports (the learned ranker's LightGBM with scipy and scikit-learn, the encoder, the
lemmatiser: about 100,000 objects) beside the portal's own. In a process shaped like a portal's worker (the search
stage, the stand-in's hybrid pages with the ranker) the full passes cost ~5 ms of CPU a page on the loaded 2-core
machine (docs/benchmarks.md, "The ranker's page: where the portal's CPU goes").

:func:`gc.freeze` after the first search of each method moves what exists then into the permanent generation, which
the collector never walks again; every object later allocated is collected as before (and frozen objects are still
freed when their reference count drops: only cyclic garbage alive at the freeze is kept). Only in a served portal
(:func:`nomos.portal.app.serve`): a test process builds and drops many apps, and freezing there would keep their
cycles for the rest of the session.
"""

from __future__ import annotations

import gc
import threading
from dataclasses import dataclass, field


@dataclass
class HeapFreeze:
    """Freezes the heap once after the first search of each method (``enabled`` only where the portal is served)."""

    enabled: bool = False
    seen: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def after_search(self, method: str) -> bool:
        """Called when a search of ``method`` has finished (its lazy imports and caches made); True where it froze."""
        if not self.enabled or method in self.seen:
            return False
        with self._lock:
            if method in self.seen:
                return False
            self.seen.add(method)
            gc.freeze()
            return True
