"""The co-scheduling GPCs of a gputopo report (compute.gpcCount's evidence.gpcs), for the GPC
experiments' scripts."""


def find_gpcs(node):
    """The first `gpcCount` attribute's GPCs found anywhere in `node`, else []."""
    if isinstance(node, dict):
        if isinstance(node.get("gpcCount"), dict):
            return node["gpcCount"].get("evidence", {}).get("gpcs", [])
        for value in node.values():
            found = find_gpcs(value)
            if found:
                return found
    return []
