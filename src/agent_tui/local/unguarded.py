"""The blocking calls the durable store makes on the event loop at every commit, as they
were before langgraph-api's blocking-call guard (blockbuster) wrapped them.

The guard replaces ``os.pwrite``, sqlite3's methods and the like with a check that walks
the caller's stack on every call, looking for an allowed function: about 20 µs a call on
a busy server. A run's checkpoints written with eleven ``executemany`` calls took 290 µs
through it and 46 µs without (benchmarks/durable_runs.py pays for every one). These are
small writes to the operating system's cache, made on purpose (`durable_commits`,
`durable_checkpointer`); the guard still watches every other call.

Captured when this module is imported: `server_process` imports it (through
`durable_commits`) before langgraph-api, which starts the guard later.
"""

from __future__ import annotations

import os
import sqlite3

pwrite = os.pwrite
open_descriptor = os.open
executemany = sqlite3.Connection.executemany
commit = sqlite3.Connection.commit
rollback = sqlite3.Connection.rollback
