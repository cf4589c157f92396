"""The screens: one module (+ .tcss beside it) per screen; an area's screens share a package."""
