"""The OpenSearch layer: the one client factory, the one transport searches and reads go through, the local node
(install, start, stop, status), and the stores of results and judgments. Import public names from here
(``from nomos.opensearch import make_transport``); they load on first use (:mod:`nomos.exports`)."""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".client": ("cluster_version", "make_client"),
    ".transport": ("Transport", "make_transport", "require_transport", "typed_error"),
    ".node": ("NodeConfig", "install", "start", "stop"),
    ".dashboards_import": ("DashboardsError", "import_saved_objects"),
})
