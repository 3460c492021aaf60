#!/usr/bin/env python3
"""Writes summarise-prompt.jsonl: one team's week of work on a council-meeting summarisation
prompt, as the prompt-lineage agent (LLM-Dev-Ops/memory-graph, agents/prompt-lineage)
records it: a LineageOutput and a DecisionEvent per tracked prompt, with the field names,
nesting, enum spellings and optional-field omissions of its serde types
(contracts/mod.rs), and two LineageInput records at the end, which Provex tracks itself.

Refinements, a fork for an experiment (bullet points), a merge of the experiment back, a
regression and its revert. Ids are UUIDv5 so the file is the same on every run.
"""
import hashlib
import json
import re
import sys
import uuid
from pathlib import Path

NS = uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
SESSION = str(uuid.uuid5(NS, "council-digest/session"))
AGENT = str(uuid.uuid5(NS, "council-digest/agent"))
LINEAGE = str(uuid.uuid5(NS, "council-digest/lineage"))


def uid(name):
    return str(uuid.uuid5(NS, "council-digest/" + name))


def tokens(t):
    return {x for x in re.split(r"[^0-9a-zA-Z]+", t.lower()) if x}


def lev(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def confidence(a, b):
    ta, tb = tokens(a), tokens(b)
    j = len(ta & tb) / len(ta | tb) if ta | tb else 1.0
    m = max(len(a), len(b))
    e = 1.0 - lev(a, b) / m if m else 1.0
    return j, round((0.40 * j + 0.25 * e) / 0.65, 4)


BASE = (
    "You are the clerk's assistant. Summarise the city council meeting transcript below for "
    "residents. Keep it under 300 words. Cover every agenda item and the decision taken on it."
)
V2 = BASE + " For each decision, cite the minute of the meeting (hh:mm:ss) where it was taken."
V3 = V2.replace("under 300 words", "under 200 words") + " Do not speculate beyond the transcript."
FORK = (
    "You are the clerk's assistant. Summarise the city council meeting transcript below as "
    "bullet points, one bullet per agenda item, each with the decision and the minute "
    "(hh:mm:ss) where it was taken. Do not speculate beyond the transcript."
)
FORK2 = FORK + " Put votes as for/against/abstain counts after each decision."
V4 = V3 + " Name the council member who moved each motion."
MERGED = (
    "You are the clerk's assistant. Summarise the city council meeting transcript below for "
    "residents as bullet points, one bullet per agenda item, each with the decision, the vote "
    "(for/against/abstain), the council member who moved it, and the minute (hh:mm:ss) where "
    "it was taken. Keep it under 200 words. Do not speculate beyond the transcript."
)
REGRESSED = MERGED.replace(", and the minute (hh:mm:ss) where it was taken", "") + " Be concise."

# (name, parent, evolution, day/time, content, branch, reason category, trigger, description)
STEPS = [
    ("v1", None, None, "2026-11-02T09:12:00Z", BASE, None, None, None, None),
    ("v2", "v1", "refines", "2026-11-02T15:40:00Z", V2, None, "quality", "review",
     "Reviewers could not check claims: cite the minute of each decision"),
    ("v3", "v2", "refines", "2026-11-03T10:05:00Z", V3, None, "cost", "feedback",
     "Summaries ran long; tighter limit and no speculation"),
    ("fork", "v3", "forks", "2026-11-04T11:20:00Z", FORK, "experiment/bullets", "experiment", "human",
     "Try one bullet per agenda item"),
    ("fork2", "fork", "refines", "2026-11-04T16:02:00Z", FORK2, "experiment/bullets", "capability", "feedback",
     "Residents asked how each member voted"),
    ("v4", "v3", "evolves", "2026-11-05T09:30:00Z", V4, None, "capability", "human",
     "Attribute each motion to its mover"),
    ("merged", "v4", "merges", "2026-11-06T14:00:00Z", MERGED, None, "quality", "review",
     "Bullets won the reader test: merge the experiment into the main prompt"),
    ("regressed", "merged", "refines", "2026-11-07T10:00:00Z", REGRESSED, None, "cost", "automated",
     "Automated shortening to cut tokens"),
    ("reverted", "regressed", "reverts", "2026-11-08T09:00:00Z", MERGED, None, "correction", "review",
     "The shortening dropped the minute citations: back to the merged prompt"),
]


def bump(v, t):
    major, minor, patch = v
    if t in ("evolves", "refines", "reverts"):
        return (major, minor, patch + 1)
    if t in ("derives", "forks"):
        return (major, minor + 1, 0)
    return (major + 1, 0, 0)


def main(out):
    nodes, lines = {}, []
    heads = {s[0] for s in STEPS} - {s[1] for s in STEPS if s[1]} - {"fork2"}
    for name, parent, kind, ts, content, branch, cat, trig, why in STEPS:
        pid = uid(name)
        if parent is None:
            version, position = (1, 0, 0), 1
        else:
            version, position = bump(nodes[parent]["version"], kind), nodes[parent]["position"] + 1
        nodes[name] = {"version": version, "position": position, "content": content}
        node = {
            "id": pid, "session_id": SESSION, "timestamp": ts, "content": content,
            "metadata": {"model": "gpt-4o", "temperature": 0.2, "max_tokens": 600},
            "lineage_id": LINEAGE,
            "lineage_version": {"major": version[0], "minor": version[1], "patch": version[2]},
            "chain_position": position, "is_root": parent is None, "is_head": name in heads,
        }
        if branch:
            node["branch"] = branch
        node["creating_agent"] = AGENT
        node["lineage_tracked_at"] = ts.replace(":00Z", ":01Z")
        edge, conf = None, 1.0
        if parent:
            j, conf = confidence(nodes[parent]["content"], content)
            edge = {
                "id": uid("edge/" + name), "from": uid(parent), "to": pid,
                "edge_type": {"evolves": "evolves", "reverts": "evolves", "refines": "refines"}.get(kind, "derives"),
                "evolution_type": kind,
                "evolution_reason": {"category": cat, "description": why, "trigger_source": trig},
                "similarity_score": round(j, 4),
                "diff_summary": {
                    "chars_added": max(0, len(content) - len(nodes[parent]["content"])),
                    "chars_removed": max(0, len(nodes[parent]["content"]) - len(content)),
                    "lines_changed": 0,
                },
                "created_at": ts,
            }
            if kind == "merges":
                edge["properties"] = {"merged_from": uid("fork2")}
        out_rec = {"lineage_node": node, "lineage_id": LINEAGE}
        if edge:
            out_rec["evolution_edge"] = edge
        out_rec.update({
            "chain_position": position, "chain_depth": position, "confidence": conf,
            "constraints_applied": (["single_root_per_chain"] if not parent
                                    else ["evolution_must_have_parent", "no_circular_lineage"]),
            "warnings": [], "timestamp": ts.replace(":00Z", ":01Z"),
        })
        lines.append(out_rec)
        outputs = {"node_id": pid, "lineage_id": LINEAGE}
        if edge:
            outputs["edge_id"] = edge["id"]
        outputs.update({"chain_position": position, "chain_depth": position})
        lines.append({
            "event_id": uid("event/" + name), "agent_id": "prompt-lineage-agent", "agent_version": "1.0.0",
            "decision_type": "prompt_lineage_tracking",
            "inputs_hash": hashlib.sha256(content.encode()).hexdigest(),
            "outputs": outputs, "confidence": conf,
            "constraints_applied": out_rec["constraints_applied"],
            "execution_ref": {"trace_id": uid("trace/" + name).replace("-", ""), "span_id": hashlib.sha256(name.encode()).hexdigest()[:16],
                              "session_id": SESSION},
            "timestamp": ts.replace(":00Z", ":01Z"),
        })
    # Two prompts sent untracked (LineageInput): Provex does the agent's work on them.
    lines.append({
        "prompt_content": MERGED + " Write it in plain language for a newsletter.",
        "session_id": SESSION, "parent_prompt_id": uid("reverted"), "evolution_type": "derives",
        "evolution_reason": {"category": "capability", "description": "A newsletter variant",
                             "trigger_source": "human"},
        "metadata": {"model": "gpt-4o", "temperature": 0.4},
        "timestamp": "2026-11-08T15:30:00Z",
    })
    lines.append({
        "prompt_content": "List the planning-committee items of the transcript below with their outcome.",
        "session_id": SESSION, "metadata": {"model": "gpt-4o-mini"},
        "tags": ["planning"], "timestamp": "2026-11-08T16:00:00Z",
    })
    out.write_text("".join(json.dumps(r) + "\n" for r in lines))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("summarise-prompt.jsonl")))
