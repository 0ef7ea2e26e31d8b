"""Turn a dataset into validated records and bulk requests for OpenSearch."""
