"""What ran, where: a report's `provenance` (and a scan manifest's) as a person reads it, and what makes two runs
incomparable (another host, CPU model or CPU within it, core count or lanes commit)."""

import shlex


def commit_text(git):
    """A git_commit {commit, dirty} as "0123456789ab (with local changes)"; None when not built from a checkout."""
    if not isinstance(git, dict) or not git.get("commit"):
        return None
    return git["commit"][:12] + (" (with local changes)" if git.get("dirty") else "")


def cores_text(cores):
    if not isinstance(cores, dict):
        return None
    parts = [f"{cores[kind]} {kind}" for kind in ("logical", "physical") if cores.get(kind)]
    return ", ".join(parts) or None


def cpu_text(provenance):
    """"AMD EPYC (family 25 model 17 stepping 1)": the model name, and which CPU of that name where recorded."""
    model, identity = provenance.get("cpu_model"), provenance.get("cpu_id")
    if model and identity:
        return f"{model} ({identity})"
    return model or identity


def started_text(started):
    """2025-01-31T12:34:56Z as 2025-01-31 12:34:56 UTC."""
    if not isinstance(started, str) or not started:
        return None
    return started.replace("T", " ").removesuffix("Z") + (" UTC" if started.endswith("Z") else "")


def menu_text(menu):
    if not isinstance(menu, dict) or not menu.get("path"):
        return None
    return f"{menu['path']} (SHA-256 {menu.get('sha256', '')[:16]}…)"


def rows(provenance):
    """[(name, text, title or None)] of the figures the provenance has, in reading order."""
    if not isinstance(provenance, dict):
        return []
    command = provenance.get("command")
    lanes = provenance.get("lanes_version")
    commit = commit_text(provenance.get("git_commit"))
    shown = [
        ("command", shlex.join(command) if isinstance(command, list) and command else None, None),
        ("menu", menu_text(provenance.get("menu")), (provenance.get("menu") or {}).get("sha256")),
        ("started", started_text(provenance.get("started")), provenance.get("started")),
        ("host", provenance.get("host"), None),
        ("hosts of the parts", ", ".join(provenance["hosts"]) if provenance.get("hosts") else None, None),
        ("CPU", cpu_text(provenance), None),
        ("cores", cores_text(provenance.get("cores")), None),
        ("NUMA nodes", provenance.get("numa_nodes"), None),
        ("kernel", provenance.get("kernel"), None),
        ("lanes", None if lanes is None else f"{lanes}, " + (f"commit {commit}" if commit
                                                           else "not built from a git checkout"),
         (provenance.get("git_commit") or {}).get("commit")),
        ("ROOT", provenance.get("root_version"), None),
        ("oneTBB", provenance.get("tbb_version"), None),
        ("compiler", provenance.get("compiler"), None),
    ]
    return [(name, str(text), title) for name, text, title in shown if text not in (None, "")]


def machine(provenance):
    """What must match for two runs' figures to be compared: {what: text}. "CPU" (which CPU of its model name: one
    name such as "AMD EPYC" spans generations) only where the report records it."""
    provenance = provenance if isinstance(provenance, dict) else {}
    found = {"host": provenance.get("host"), "CPU model": provenance.get("cpu_model"),
             "cores": cores_text(provenance.get("cores")),
             "lanes commit": commit_text(provenance.get("git_commit"))}
    if provenance.get("cpu_id"):
        found["CPU"] = provenance["cpu_id"]
    return found


def differences(a, b):
    """[{what, a, b}] where two provenances differ in host, CPU model, CPU (where both record it), core count or
    lanes commit; where a side has none (a report of an older lanes), that alone."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        said = lambda p: "recorded" if isinstance(p, dict) else "not recorded (an older lanes)"  # noqa: E731
        return [{"what": "provenance", "a": said(a), "b": said(b)}]
    ma, mb = machine(a), machine(b)
    return [{"what": what, "a": ma[what], "b": mb[what]} for what in ma if what in mb and ma[what] != mb[what]]


def warning(found):
    """One line naming every difference, or None."""
    if not found:
        return None
    said = "; ".join(f"{d['what']} {d['a'] or 'unknown'} / {d['b'] or 'unknown'}" for d in found)
    if found[0]["what"] == "provenance":
        return f"cannot tell whether A and B ran on the same machine and build ({said})"
    return f"A and B ran on different machines or builds ({said}): their figures may differ for that alone"
