"""The local OpenSearch node (install, start, stop, status) and the client factory."""
