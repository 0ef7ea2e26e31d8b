"""How the portal answers a failure: by the error's type (:mod:`nomos.errors`), never by words in its message.

Every handler sees only :class:`~nomos.errors.NomosError` types: blocking work runs inside
:func:`nomos.stages.searching.cluster_errors`, which types opensearch-py's errors (:func:`nomos.portal.web.run`).
:func:`classify` gives each type its status and a Greek message a person can read; an expected failure is logged
as one line, only an unexpected exception with its traceback.

========================================== ======
type                                       status
========================================== ======
MethodUnavailable, VectorsMissing           400
MethodUnavailable (vectors being computed)  409
QueryTooLong                                400
SearchError, ConfigError, DataError         400
NotFound                                    404
LLMError                                    502
IndexNotFound, ClusterUnavailable           503
AccessDenied 401 (the portal's account)     503
ClusterError (any other)                    503
SearchCancelled (the node's time bound)     504
DeadlineExceeded                            504
========================================== ======
"""

from __future__ import annotations

import logging

from nomos.errors import (
    AccessDenied,
    ClusterError,
    ClusterUnavailable,
    ConfigError,
    DataError,
    IndexNotFound,
    LLMError,
    NomosError,
    NotFound,
    QueryTooLong,
    SearchCancelled,
    SearchError,
    VectorsMissing,
)
from nomos.safe_text import escape_controls
from nomos.stages.searching import MethodUnavailable

log = logging.getLogger("nomos.portal")

UNAVAILABLE = "Η μηχανή αναζήτησης δεν είναι διαθέσιμη αυτή τη στιγμή. Δοκιμάστε ξανά σε λίγο."
NO_INDEX = "Το ευρετήριο των άρθρων δεν είναι διαθέσιμο αυτή τη στιγμή."
REFUSED = "Η μηχανή αναζήτησης δεν δέχτηκε το ερώτημα. Διατυπώστε το διαφορετικά."
BAD_ANSWER = "Η μηχανή αναζήτησης δεν απάντησε σωστά. Δοκιμάστε ξανά σε λίγο."
CUT = ("Η μηχανή αναζήτησης διέκοψε το ερώτημα, γιατί ξεπέρασε τον χρόνο που δίνει σε μία αναζήτηση. Διατυπώστε το "
       "πιο σύντομα ή δοκιμάστε ξανά σε λίγο.")
REFUSED_ACCOUNT = ("Η πύλη δεν έχει πρόσβαση στη μηχανή αναζήτησης αυτή τη στιγμή (δεν έγιναν δεκτά τα στοιχεία "
                   "σύνδεσής της). Το πρόβλημα καταγράφηκε· δοκιμάστε ξανά σε λίγο.")
LLM_FAILED = "Το γλωσσικό μοντέλο δεν απάντησε. Δοκιμάστε τη μέθοδο BM25."
INTERNAL = "Παρουσιάστηκε εσωτερικό σφάλμα. Το πρόβλημα καταγράφηκε."


class PortalError(NomosError):
    """An error a person should read: a status code and a Greek message, never a stack trace."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class DeadlineExceeded(NomosError):
    """A request (``llm``: a search with an LLM method) did not finish within the portal's deadline."""

    def __init__(self, seconds: float, llm: bool = False) -> None:
        super().__init__(f"the {'search' if llm else 'request'} did not finish within {seconds:g} seconds")
        self.seconds = seconds
        self.llm = llm


def greek_readiness(percent: int, eta_s: float | None) -> str:
    """«17% έτοιμα, περίπου 40 λεπτά ακόμη» (the time only where the indexer noted its rate recently)."""
    if eta_s is None:
        return f"{percent}% έτοιμα"
    minutes = round(eta_s / 60)
    left = "λιγότερο από ένα λεπτό" if minutes < 1 else f"περίπου {minutes} λεπτά" if minutes < 60 else \
        f"περίπου {minutes // 60} ώρ. {minutes % 60} λεπτά"
    return f"{percent}% έτοιμα, {left} ακόμη"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def classify(exc: NomosError, embedder: str = "") -> PortalError:
    """The status and Greek message for an expected failure (the module's table). ``embedder``: the portal's, named
    when a method needs its vectors."""
    if isinstance(exc, PortalError):
        return exc
    if isinstance(exc, MethodUnavailable):
        if exc.needs == "llm":
            return PortalError(400, f"Η μέθοδος {exc.method} χρειάζεται LLM: ο διαχειριστής ορίζει NOMOS_LLM_BASE_URL "
                                    "και NOMOS_LLM_MODEL ή ξεκινά τον τοπικό διακομιστή (python cli.py llm start)")
        if exc.needs == "vectors" and exc.readiness is not None:
            return PortalError(409, f"Η μέθοδος {exc.method} θα είναι διαθέσιμη μόλις υπολογιστούν τα διανύσματα όλων "
                                    f"των άρθρων: {greek_readiness(exc.readiness.percent, exc.readiness.eta_s)}. "
                                    "Μέχρι τότε αναζητήστε με BM25.")
        return PortalError(400, f"Η μέθοδος {exc.method} δεν προσφέρεται στην πύλη")
    if isinstance(exc, VectorsMissing):
        return PortalError(400, f"Η μέθοδος χρειάζεται διανύσματα ({embedder or 'του κωδικοποιητή'}) στο ευρετήριο, "
                                "που δεν τα έχει. Επιλέξτε τη μέθοδο BM25.")
    if isinstance(exc, IndexNotFound):  # before NotFound: a missing index is the service's fault, not the reader's
        return PortalError(503, NO_INDEX)
    if isinstance(exc, ClusterUnavailable):
        return PortalError(503, UNAVAILABLE)
    if isinstance(exc, AccessDenied) and exc.status == 401:  # the portal's own account, not the reader's doing
        return PortalError(503, REFUSED_ACCOUNT)
    if isinstance(exc, SearchCancelled):  # before SearchError: the node cut a costly (or queued) search
        return PortalError(504, CUT)
    if isinstance(exc, SearchError):
        return PortalError(400, REFUSED)
    if isinstance(exc, ClusterError):
        return PortalError(503, BAD_ANSWER)
    if isinstance(exc, LLMError):
        return PortalError(502, LLM_FAILED)
    if isinstance(exc, DeadlineExceeded):
        if exc.llm:
            return PortalError(504, f"Η μέθοδος δεν ολοκληρώθηκε σε {exc.seconds:g} δευτερόλεπτα. Δοκιμάστε τη μέθοδο BM25.")
        return PortalError(504, f"Η μηχανή αναζήτησης δεν απάντησε σε {exc.seconds:g} δευτερόλεπτα. Δοκιμάστε ξανά σε λίγο.")
    if isinstance(exc, NotFound):
        return PortalError(404, "Δεν βρέθηκε.")
    if isinstance(exc, QueryTooLong):  # its Greek message without the operator's hint (the variable)
        return PortalError(400, _capitalised(exc.message))
    if isinstance(exc, (ConfigError, DataError)):
        return PortalError(400, _capitalised(str(exc)))
    return PortalError(500, INTERNAL)


def log_failure(method: str, path: str, exc: NomosError, status: int) -> None:
    """One line per expected failure, no traceback: a warning for the service's failures (5xx), info for refused
    requests (4xx)."""
    level = logging.WARNING if status >= 500 else logging.INFO
    log.log(level, "%s %s: %d %s: %s", method, escape_controls(path), status, type(exc).__name__,
            escape_controls(str(exc)))  # one line: the path is the visitor's, the message may quote it
