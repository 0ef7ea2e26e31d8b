"""Load the saved objects of ``opensearch/dashboards/nomos-results.ndjson`` (index patterns of the result indices,
visualisations, one dashboard) into a running OpenSearch Dashboards through its saved-objects import API.

Standard library only (urllib, a hand-built multipart body): one POST does not justify another dependency.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from nomos.errors import NomosError

SAVED_OBJECTS = Path(__file__).resolve().parent / "dashboards" / "nomos-results.ndjson"
DEFAULT_PREFIX = "nomos-results"


class DashboardsError(NomosError):
    """Dashboards refused the import or did not answer; the message says which and why."""


def saved_objects(prefix: str = DEFAULT_PREFIX, path: Path = SAVED_OBJECTS) -> str:
    """The NDJSON text, with index-pattern titles and ids moved to ``prefix`` when it is not the default."""
    text = Path(path).read_text(encoding="utf-8")
    return text if prefix == DEFAULT_PREFIX else text.replace(f'"{DEFAULT_PREFIX}-', f'"{prefix}-')


def multipart(filename: str, content: bytes, boundary: str) -> bytes:
    """A multipart/form-data body with one file field named ``file`` (what the import API expects)."""
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
            "Content-Type: application/ndjson\r\n\r\n").encode()
    return head + content + f"\r\n--{boundary}--\r\n".encode()


def import_saved_objects(url: str, prefix: str = DEFAULT_PREFIX, timeout: float = 30.0, path: Path = SAVED_OBJECTS) -> dict[str, Any]:
    """POST ``<url>/api/saved_objects/_import?overwrite=true`` with the ``osd-xsrf`` header; returns the JSON answer
    (``success``, ``successCount``). Fails with :class:`DashboardsError` on refusal or partial success."""
    boundary = "nomos" + uuid.uuid4().hex
    body = multipart(Path(path).name, saved_objects(prefix, path).encode("utf-8"), boundary)
    req = urllib.request.Request(
        url.rstrip("/") + "/api/saved_objects/_import?overwrite=true", data=body, method="POST",
        headers={"osd-xsrf": "true", "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            answer = json.loads(resp.read().decode("utf-8") or "{}")
    except urllib.error.HTTPError as exc:
        raise DashboardsError(f"Dashboards at {url} refused the import: HTTP {exc.code} {exc.read()[:300]!r}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise DashboardsError(f"no OpenSearch Dashboards answers at {url} ({exc}); start it against the local node with `docker compose --profile host-dashboards up -d dashboards-host` (or `docker compose up -d` for a cluster of its own)") from None
    if not answer.get("success", False):
        raise DashboardsError(f"Dashboards imported only part of the objects: {json.dumps(answer.get('errors', answer))[:500]}")
    return answer
