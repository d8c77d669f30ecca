"""The server benchmark behind ``python -m race bench``: what it measures and how is in the
docstring of :mod:`race.commands.bench`, which holds the command (its options) and runs the
phases against each server.

- :mod:`race.bench.load`: the simulated clients (players, echo clients) and the phases they are
  measured in.
- :mod:`race.bench.processes`: starting and stopping the servers it benchmarks (the race
  server, ``redis-server``) and reading their CPU time and memory.
- :mod:`race.bench.report`: the results of one server and the output (table, goals, JSON).
"""
