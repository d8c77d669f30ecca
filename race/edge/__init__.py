"""The edge: websocket connections, their handler, outbox and limits, and the HTTP routes and
static client."""
