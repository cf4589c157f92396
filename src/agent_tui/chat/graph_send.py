"""Sending to a graph whose input has no `messages` (headless): the user typed its input
as a JSON object (checked by `assistants.graph_input.GraphInput`); the run starts with
it as the graph's input (`RunRequest.input`) and the transcript shows it, as this
module writes it, as what the user sent."""

from __future__ import annotations

import json
from typing import Any


def input_text(value: Any) -> str:
    """The input as the transcript shows it: the JSON object, one key a line."""
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)
