"""Encoders (text → L2-normalised vectors) and the on-disk vector cache: the one place both ``ingest`` (filling
k-NN fields) and ``retrieval`` (embedding queries) get vectors from, so neither imports the other."""
