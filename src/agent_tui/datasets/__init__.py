"""Datasets: named sets of examples (inputs, optional reference outputs, metadata) kept
on this machine, in the user data folder; read and written as JSONL in LangSmith's
example shape. Headless: the CLI and the experiments run on them."""
