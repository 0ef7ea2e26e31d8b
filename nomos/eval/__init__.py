"""Read and write run files and score them with ranx. Nothing here talks to OpenSearch."""
