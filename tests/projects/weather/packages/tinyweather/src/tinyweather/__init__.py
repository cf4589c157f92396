"""A package only the weather test project's environment has."""


def forecast(city: str) -> str:
    return f"sunny in {city}"
