"""Experiments: a dataset run on two or more assistants or versions, each answer judged
against the example's reference, summed up per assistant, with regressions marked.
Headless: the CLI runs them, the UI will show them."""
