"""A checker of the Chrome trace-event format (the JSON Object Format that Perfetto and chrome://tracing read):
required fields per phase, balanced B/E per thread, complete events, metadata, and flows that resolve."""

from collections import defaultdict

PHASES = {"X", "B", "E", "i", "I", "M", "s", "t", "f", "C"}
METADATA = {"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index",
            "thread_sort_index": "sort_index"}


class TraceError(AssertionError):
    pass


def require(condition, event, why):
    if not condition:
        raise TraceError(f"{why}: {event}")


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def slices_of(events):
    """{(pid, tid): [(begin, end)]} of the complete events and the B/E pairs, checking that B/E balance."""
    slices = defaultdict(list)
    open_ = defaultdict(list)
    for event in sorted((e for e in events if e["ph"] in "XBE"), key=lambda e: (e["ts"], e["ph"] != "E")):
        thread = (event["pid"], event["tid"])
        if event["ph"] == "X":
            slices[thread].append((event["ts"], event["ts"] + event["dur"]))
        elif event["ph"] == "B":
            open_[thread].append(event)
        else:
            require(open_[thread], event, "an E with no B open on its thread")
            begin = open_[thread].pop()
            require(begin.get("name", event.get("name")) == event.get("name", begin.get("name")), event,
                    "an E that closes another slice's B")
            slices[thread].append((begin["ts"], event["ts"]))
    for thread, still in open_.items():
        require(not still, still[-1] if still else None, f"a B never closed on thread {thread}")
    return slices


def within_a_slice(event, slices, end_binding=False):
    """A flow event binds to the slice that encloses its timestamp on its thread ("bp": "e": or ends there)."""
    ts = event["ts"]
    for begin, end in slices.get((event["pid"], event["tid"]), []):
        if begin <= ts <= end or (end_binding and abs(ts - end) < 1e-3):
            return True
    return False


def check(trace):
    """Checks a loaded trace; returns {pids: {pid: process name}, threads: {(pid, tid): name}, flows: N, events}."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    require(isinstance(events, list) and events, trace if not isinstance(trace, dict) else "traceEvents",
            "no traceEvents list")
    processes, threads = {}, {}
    for event in events:
        require(isinstance(event, dict), event, "an event that is not an object")
        require(event.get("ph") in PHASES, event, "an unknown or missing ph")
        require(isinstance(event.get("pid"), int) and isinstance(event.get("tid"), int), event, "pid and tid")
        if event["ph"] == "M":
            require(event.get("name") in METADATA, event, "unknown metadata")
            require(METADATA[event["name"]] in event.get("args", {}), event, "metadata without its argument")
            if event["name"] == "process_name":
                require(event["pid"] not in processes, event, "a process named twice")
                processes[event["pid"]] = event["args"]["name"]
            if event["name"] == "thread_name":
                threads[(event["pid"], event["tid"])] = event["args"]["name"]
            continue
        require(isinstance(event.get("name"), str), event, "no name")
        require(number(event.get("ts")) and event["ts"] >= 0, event, "no timestamp, or one before the origin")
        if event["ph"] == "X":
            require(number(event.get("dur")) and event["dur"] >= 0, event, "a complete event without dur")
        if event["ph"] in "stf":
            require("id" in event and isinstance(event.get("cat"), str), event, "a flow event without id or cat")
    slices = slices_of(events)
    flows = defaultdict(dict)
    for event in (e for e in events if e["ph"] in "sf"):
        key = (event["cat"], event["id"])
        require(event["ph"] not in flows[key], event, "a flow begun or ended twice")
        flows[key][event["ph"]] = event
        require(within_a_slice(event, slices, event.get("bp") == "e"), event, "a flow event outside any slice")
    for key, ends in flows.items():
        require(set(ends) == {"s", "f"}, ends, f"flow {key} does not resolve")
        require(ends["s"]["ts"] <= ends["f"]["ts"], ends, f"flow {key} ends before it begins")
    for pid in {e["pid"] for e in events}:
        require(pid in processes, pid, "a process without process_name")
    return {"processes": processes, "threads": threads, "flows": len(flows), "events": events}
