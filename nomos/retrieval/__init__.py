"""Turn a query into a ranked list of articles, through one small retriever interface whatever the method."""
