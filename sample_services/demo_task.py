"""The hand-written task the task, probe, facts, wrong-writes and admission notebooks (09_task .. 10_admission) teach with.

A Slack channel planted in s0 gives a code, the email about that code names a venue, and the agent posts the venue back
in Slack's #general channel (a revisit: the record it writes depends on what gmail revealed). The programmatic author
(`compoworld_nb.author`) writes tasks like this one.
"""
from __future__ import annotations
from compoworld_nb.compose import ComposedEnv, joint_hash
from compoworld_nb.walk import DependencyGraph
from compoworld_nb.task import Task, apply_overrides, _fixture

def demo_parts(library: dict, seed: int = 3) -> dict:
    """The hand-written task's parts over the fixtures of `seed`: `plant` (s0's overrides: the email and the Slack channel
    with its message), `reference` (five calls), `rubric` (c1, the venue posted in #general; c2, c3, collateral),
    `u`, `walk`, `general` (#general's channel id) and `me` (the user's Slack id). KeyError if `library` lacks gmail or slack."""
    fx = {n: _fixture(library[n], seed) for n in ("gmail", "slack")}
    chan = next(c for c in fx["slack"].channels.values() if c.name == "general")
    me, poster = fx["slack"].me, sorted(fx["slack"].users)[1]
    plant = {"gmail": {"messages": {"msg_p1": {
        "id": "msg_p1", "threadId": "thr_p1", "sender": "ann@example.com", "sender_name": "Ann Lee", "to": [fx["gmail"].address],
        "subject": "Update on falcon-417", "body": "We have booked the venue: Tyler, TX. See you there.",
        "date": "2025-03-02T10:00:00Z", "labelIds": ["INBOX", "UNREAD"]}}},
             "slack": {"channels": {"C_p2": {"id": "C_p2", "name": "quartz-552", "created": 1740900000, "members": [me, poster]}},
                       "messages": {"m_p3": {"id": "m_p3", "channel_id": "C_p2", "ts": "1740900100.000000", "user": poster,
                                             "text": "The code for the next step is falcon-417."}}}}
    ref = [{"tool": "slack.slack_list_channels", "arguments": {"limit": 100}},
           {"tool": "slack.slack_get_channel_history", "arguments": {"channel_id": "C_p2"}},
           {"tool": "gmail.search_emails", "arguments": {"query": "falcon-417"}},
           {"tool": "gmail.read_email", "arguments": {"messageId": "msg_p1"}},
           {"tool": "slack.slack_post_message", "arguments": {"channel_id": chan.id, "text": "Venue: Tyler, TX"}}]
    rubric = [{"id": "c1", "kind": "state", "service": "slack", "collection": "messages", "where": {"channel_id": chan.id, "user": me},
               "field": "text", "op": "contains", "value": "Tyler, TX", "edge": [1, 2], "covers": [[0, 1]]},
              {"id": "c2", "kind": "unchanged", "service": "slack", "collection": "messages", "where": {"channel_id": "C_p2"}},
              {"id": "c3", "kind": "unchanged", "service": "gmail", "collection": "messages", "where": {"id": "msg_p1"}}]
    u = ("Open the chat channel named 'quartz-552' and read the latest message. Find the email about the code "
         "posted there, and post the venue it names in the #general channel.")
    return {"plant": plant, "reference": ref, "rubric": rubric, "u": u, "walk": ["slack", "gmail", "slack"], "general": chan.id, "me": me}

def demo_task(library: dict, collateral: bool = False) -> Task:
    """The hand-written task over the services `gmail`, `slack` (C) and `maps` (a distractor) of `library`, fixture seed 3
    (its parts: `demo_parts`).

    Without `collateral` its rubric is one goal criterion `c1` (the venue posted in #general), so admission rejects it
    (`collateral_per_service`); with `collateral` it adds `c2` (the planted Slack channel's messages unchanged) and `c3`
    (the planted email unchanged), and admission admits it. KeyError if `library` lacks one of the three services."""
    P = demo_parts(library, 3)
    s0 = apply_overrides({n: _fixture(library[n], 3) for n in ("gmail", "slack", "maps")}, P["plant"])
    env, g = ComposedEnv([library[n] for n in ("gmail", "slack", "maps")]), s0
    for c in P["reference"]: g, _ = env.call(g, c["tool"], c["arguments"])
    walk = P["walk"]
    return Task(id="t_demo", u=P["u"], services=["slack", "gmail"], distractors=["maps"], walk=walk,
                graph=DependencyGraph(["slack", "gmail"], walk, ["maps"]).to_json(),
                s0={"seed": 3, "overrides": P["plant"]}, s0_hash=joint_hash(s0), reference=P["reference"], g_hash=joint_hash(g),
                rubric=P["rubric"] if collateral else P["rubric"][:1],
                meta={"K": 2, "L": 3, "visits": [0, 0, 1, 1, 2], "changes": [{"visit": 2, "service": "slack", "criteria": ["c1"]}]})
