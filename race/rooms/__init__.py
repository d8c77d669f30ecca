"""The room model and what is derived from it: rooms and seats, the record, replays, ghosts, the
tutorial, the pace rules, and what clients see of a room. Pure: no I/O."""
