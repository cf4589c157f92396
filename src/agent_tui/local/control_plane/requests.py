"""The bodies the local control plane takes: the shared request models, widened to what
the official CLI sends.

`langgraph deploy` names its deployment types ``serverless`` (sent as ``dev_zero``) and
``dedicated`` (sent as ``prod``); the control plane spec knows only ``dev_free``,
``dev`` and ``prod``. Both sets are taken; what is stored and served is the spec's name
(`SPEC_TYPE`), so answers still match the spec.
"""

from __future__ import annotations

from typing import Literal

from agent_tui.client.models.deployment_request import (
    DeploymentCreate,
    DeploymentPatch,
    SourceConfigIn,
)

DeploymentTypeIn = Literal["dev_free", "dev", "prod", "dev_zero", "serverless", "dedicated"]

SPEC_TYPE = {"dev_zero": "dev_free", "serverless": "dev_free", "dedicated": "prod"}
"""The spec's name of each deployment type the CLI sends."""


class LocalSourceConfigIn(SourceConfigIn):
    deployment_type: DeploymentTypeIn | None = None  # type: ignore[assignment]


class LocalDeploymentCreate(DeploymentCreate):
    source_config: LocalSourceConfigIn


class LocalDeploymentPatch(DeploymentPatch):
    source_config: LocalSourceConfigIn | None = None


def spec_source_config(config: dict[str, object]) -> dict[str, object]:
    """``config`` with its deployment type named as the spec names it."""
    kind = config.get("deployment_type")
    if isinstance(kind, str) and kind in SPEC_TYPE:
        return {**config, "deployment_type": SPEC_TYPE[kind]}
    return config
