import { describe, expect, it } from "vitest";
import { COVERAGE_SOURCES, coverageCsv, csvField, mergeCoverage, replayCoverage, type Coverage } from "./coverage";
import type { SessionEvent } from "./events";
import type { Policy, ToolRule } from "./policy";
import { policyWith, requestEdit, modelSeqs, run, sessionOf, toolSteps } from "./testing";
import type { ReplayResult } from "./replay";

const history: ToolRule = { type: "history", scope: "baseline", on_miss: "error_result" };

/** search "a" twice (turns 0 and 1), search "b" once, lookup once, then send_email. */
function base(): SessionEvent[] {
  return sessionOf(
    [{ name: "search", args: { q: "a", page: 1 }, result: ["a1"] }],
    [
      { name: "search", args: { q: "a", page: 1 }, result: ["a2"] },
      { name: "search", args: { q: "b", page: 1 }, result: ["b1"] },
      { name: "lookup", args: { id: 7 }, result: { name: "seven" } },
    ],
    [{ name: "send_email", args: { to: "x@example.com" }, result: "sent" }],
  );
}

const policy: Policy = policyWith(history, {
  send_email: { type: "blocked" },
  lookup: {
    type: "static",
    cases: [{ match_mode: "subset", match: { id: 7 }, result: "static seven" }],
    on_miss: "fail",
  },
});

const seqOf = (events: SessionEvent[], name: string, q?: string) =>
  events
    .filter(
      (e) =>
        e.kind === "tool_call" &&
        e.name === name &&
        (q === undefined || JSON.stringify(e.input).includes(`"q":"${q}"`)),
    )
    .map((e) => e.seq);

function sourceCounts(r: ReplayResult, tool: string) {
  const counts = Object.fromEntries(COVERAGE_SOURCES.map((s) => [s, 0]));
  for (const s of toolSteps(r)) if (s.name === tool && s.source in counts) counts[s.source]!++;
  return counts;
}

function tool(c: Coverage, name: string) {
  const t = c.tools.find((x) => x.tool === name);
  if (!t) throw new Error(`no coverage row for ${name}`);
  return t;
}

describe("replayCoverage", () => {
  it("counts per tool equal the replay's step sources, and every recording was used when nothing changed", async () => {
    const events = base();
    const r = await run(events, policy);
    expect(r.status).toBe("completed");
    const c = replayCoverage({ base: events, steps: r.steps, policy });
    expect(c.tools.map((t) => t.tool)).toEqual(["lookup", "search", "send_email"]);
    for (const t of c.tools) {
      expect(t.bySource).toEqual(sourceCounts(r, t.tool));
      expect(t.calls).toBe(toolSteps(r).filter((s) => s.name === t.tool).length);
    }
    expect(tool(c, "search").bySource).toEqual({ ...zero(), recorded: 3 });
    expect(tool(c, "lookup").bySource).toEqual({ ...zero(), static: 1 });
    expect(tool(c, "send_email").bySource).toEqual({ ...zero(), blocked: 1 });
    // Static and blocked answers do not play the recording; history played all three searches.
    expect(tool(c, "search").unused).toEqual([]);
    expect(tool(c, "lookup").unused).toEqual([
      { seq: seqOf(events, "lookup")[0], args: { id: 7 }, status: "completed" },
    ]);
    expect(tool(c, "send_email").unused).toEqual([
      { seq: seqOf(events, "send_email")[0], args: { to: "x@example.com" }, status: "completed" },
    ]);
    expect(c.tools.every((t) => t.misses.length === 0)).toBe(true);
  });

  it("identical calls consume the recordings in order: the later recording of search a is the unused one", async () => {
    const events = base();
    const [turn0] = modelSeqs(events);
    // Turn 0 now searches "b": it plays the only "b" recording, so turn 1's "b" call finds its occurrence used up.
    const r = await run(events, policy, {
      edits: [requestEdit(events, turn0!, [{ id: "call_0", name: "search", args: { q: "b", page: 1 } }])],
    });
    const steps = toolSteps(r).filter((s) => s.name === "search");
    expect(steps.map((s) => s.source)).toEqual(["recorded", "recorded", "error_result"]);
    const c = replayCoverage({ base: events, steps: r.steps, policy });
    const search = tool(c, "search");
    expect(search.bySource).toEqual({ ...zero(), recorded: 2, error_result: 1 });
    expect(search.bySource).toEqual(sourceCounts(r, "search"));
    // The branch's one "a" call came at turn 1, but it played the first "a" recording (turn 0's).
    const [a0, a1] = seqOf(events, "search", "a");
    expect(search.unused).toEqual([{ seq: a1, args: { q: "a", page: 1 }, status: "completed" }]);
    expect(a0).toBeLessThan(a1!);
    expect(search.misses).toEqual([
      {
        reason: "occurrences_used_up",
        count: 1,
        steps: [steps[2]!.seq],
        pending: false,
        closest: { seq: seqOf(events, "search", "b")[0], args: { q: "b", page: 1 }, status: "completed" },
        differingPaths: [],
      },
    ]);
  });

  it("groups misses by reason with the closest recorded call and the differing argument paths", async () => {
    const events = base();
    const [, turn1] = modelSeqs(events);
    const r = await run(events, policy, {
      edits: [
        requestEdit(events, turn1!, [
          { id: "call_1", name: "search", args: { q: "a", page: 2 } },
          { id: "call_2", name: "search", args: { q: "z", page: 1 } },
          { id: "call_3", name: "lookup", args: { id: 8 } },
        ]),
      ],
    });
    const c = replayCoverage({ base: events, steps: r.steps, policy });
    const search = tool(c, "search");
    expect(search.bySource).toEqual(sourceCounts(r, "search"));
    expect(search.bySource).toEqual({ ...zero(), recorded: 1, error_result: 2 });
    expect(search.misses).toHaveLength(1);
    expect(search.misses[0]).toMatchObject({ reason: "no_recorded_call", count: 2, pending: false });
    expect(search.misses[0]!.differingPaths).toEqual(["page", "q"]);
    expect(search.misses[0]!.closest).toEqual({
      seq: seqOf(events, "search", "a")[0],
      args: { q: "a", page: 1 },
      status: "completed",
    });
    // The static rule for lookup misses with on_miss "fail": the branch stops, no step for it.
    expect(r.status).toBe("failed");
    expect(tool(c, "lookup").calls).toBe(0);
    // Without a pending call the stop's miss is not a step; a paused call's miss is counted as pending.
    const paused = replayCoverage({
      base: events,
      steps: r.steps,
      policy,
      pending: { tool: "lookup", miss: r.stop!.miss },
    });
    expect(tool(paused, "lookup").misses).toEqual([
      {
        reason: "no_static_case_matched",
        count: 1,
        steps: [],
        pending: true,
        closest: { seq: seqOf(events, "lookup")[0], args: { id: 7 }, status: "completed" },
        differingPaths: ["id"],
      },
    ]);
  });

  it("merges branches of an experiment, naming the session and replay of each unused recording", async () => {
    const events = base();
    const r = await run(events, policy);
    const one = replayCoverage({ base: events, steps: r.steps, policy });
    const merged = mergeCoverage([
      { sessionId: "s1", replayId: "r1", coverage: one },
      { sessionId: "s2", replayId: "r2", coverage: one },
    ]);
    expect(tool(merged, "search").bySource).toEqual({ ...zero(), recorded: 6 });
    expect(tool(merged, "search").calls).toBe(6);
    expect(tool(merged, "lookup").unused).toEqual([
      { seq: seqOf(events, "lookup")[0], args: { id: 7 }, status: "completed", sessionId: "s1", replayId: "r1" },
      { seq: seqOf(events, "lookup")[0], args: { id: 7 }, status: "completed", sessionId: "s2", replayId: "r2" },
    ]);
  });
});

describe("coverageCsv", () => {
  it("quotes commas, quotes and line breaks, and defuses formula cells", () => {
    expect(csvField('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField("plain")).toBe("plain");
    expect(csvField(-3)).toBe("-3");
    expect(csvField(null)).toBe("");
  });

  it("writes one tool row, one row per miss reason and one per unused recording, all with the header's width", () => {
    const c: Coverage = {
      tools: [
        {
          tool: 'we,ird"tool',
          calls: 2,
          bySource: { ...zero(), recorded: 1, error_result: 1 },
          edited: 0,
          misses: [
            {
              reason: "no_recorded_call",
              count: 1,
              steps: [4],
              pending: false,
              closest: null,
              differingPaths: ["a.b", "c[0]"],
            },
          ],
          unused: [{ seq: 9, args: { text: "x,y" }, status: "completed" }],
        },
      ],
    };
    const lines = coverageCsv(c).split("\r\n");
    expect(lines).toEqual([
      "row,tool,calls,recorded,static,fixture,live,llm,error_result,blocked,edited,reason,count,steps,closest_seq,differing_paths,session_id,replay_id,seq,args",
      'tool,"we,ird""tool",2,1,0,0,0,0,1,0,0,,,,,,,,,',
      'miss,"we,ird""tool",,,,,,,,,,no_recorded_call,1,4,,a.b c[0],,,,',
      'unused,"we,ird""tool",,,,,,,,,,,,,,,,,9,"{""text"":""x,y""}"',
      "",
    ]);
  });
});

function zero() {
  return { recorded: 0, static: 0, fixture: 0, live: 0, llm: 0, error_result: 0, blocked: 0 };
}
