"""The co-scheduling GPCs of a gputopo report (compute.gpcCount's evidence.gpcs), for the GPC
experiments' scripts."""


def find_count(node):
    """The first `gpcCount` attribute found anywhere in `node`, else {}."""
    if isinstance(node, dict):
        if isinstance(node.get("gpcCount"), dict):
            return node["gpcCount"]
        for value in node.values():
            found = find_count(value)
            if found:
                return found
    return {}


def find_gpcs(node):
    """The first `gpcCount` attribute's GPCs found anywhere in `node`, else []."""
    return find_count(node).get("evidence", {}).get("gpcs", [])


def port_test(node):
    """The GPCs as the port test found them (before it placed any loose unit), in the order of its
    evidence.portPlacement.gpcGbps, and the loose units it tried; ([], []) without a port test."""
    evidence = find_count(node).get("evidence", {})
    units = [u["sms"] for u in evidence.get("portPlacement", {}).get("units", [])]
    if not units:
        return [], []
    loose = {s for u in units for s in u}
    return [sorted(s for s in g if s not in loose) for g in evidence.get("gpcs", [])], units
