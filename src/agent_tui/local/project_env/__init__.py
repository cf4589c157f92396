"""The project's environment: what its ``langgraph.json`` declares, installed with uv.

`environment` plans it from the config and builds it when the plan changed
(`ensure_environment`); `plan` is the plan's record and the server stack it pins;
`builder` runs uv. The supervisor is handed the interpreter this returns.
"""
