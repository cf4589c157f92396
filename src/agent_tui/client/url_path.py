"""An id as one segment of a request's path.

Ids come from servers and from the command line; put into a path as they are, an id such
as ``../../assistants/a1`` would ask for another resource (URLs resolve dot segments, so a
`DELETE` of that "thread" deletes an assistant), and one holding ``?`` or ``#`` would cut
the path short. `segment` quotes every character that could change the path's shape, and
a dot segment, so an id can only ever name itself: a server answers "not found" for an id
it does not have, never another resource.
"""

from __future__ import annotations

from urllib.parse import quote

_DOT_SEGMENTS = frozenset({".", ".."})


def segment(value: object) -> str:
    """`value` quoted to stay one path segment (a lone surrogate is sent as its bytes, so
    the server answers for it rather than the request failing here)."""
    text = str(value)
    if text in _DOT_SEGMENTS:
        return text.replace(".", "%2E")
    return quote(text, safe="", errors="surrogatepass")
