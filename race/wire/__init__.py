"""What crosses the wire: the client protocol's messages and the envelopes between processes."""
