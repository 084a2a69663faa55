"""A CRS that never adapts: the same recommendation whatever the user asks (a known-bad group for
checking adaptation metrics; see examples/known_groups.toml)."""


def respond(history: list[dict[str, str]]) -> dict:
    return {
        "text": "How about Heat? It is a crime thriller with Al Pacino and Robert De Niro.",
        "constraints": {},
    }
