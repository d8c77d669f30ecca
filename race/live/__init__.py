"""This process's live parts: the hub's fan-out, presence, and the scheduler's timers."""
