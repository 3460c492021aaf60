// The Runs view: rows sorted by any column either way (rows without a value last, ties by
// name), filtered by name or agent, source and "has problems"; a click on a header sorts, a
// click on a row opens its graph, and the list the backend answers next replaces the shown.

import { describe, expect, it, vi } from "vitest";
import type { RunList, RunRow, RunsRequest } from "../src/api/contract";
import { DEFAULT_SORT, NO_FILTER, duration, filterRows, nextSort, problemCount, sortRows } from "../src/runs/rows";
import { RunsView, type RunsHost } from "../src/runs/runs-view";

function row(graph: string, over: Partial<RunRow> = {}): RunRow {
  return {
    graph, sources: [], nodes: 0, edges: 0, first_ms: null, last_ms: null, agents: 0, agent_names: [],
    invalid_signatures: 0, challenged_claims: 0, failed_tools: 0, unavailable: null, ...over,
  };
}

const ROWS: RunRow[] = [
  row("council", {
    sources: ["runtime_events", "signed_statements", "reasoning_traces", "open_telemetry"], nodes: 400, edges: 900,
    first_ms: 1_760_518_800_000, last_ms: 1_760_521_000_000, agents: 6, agent_names: ["Claude 4.5 Sonnet", "GPT-5"],
    invalid_signatures: 2, challenged_claims: 1,
  }),
  row("agent-run", {
    sources: ["runtime_events"], nodes: 60, edges: 80, first_ms: 1_763_798_400_000, last_ms: 1_763_798_419_500,
    agents: 3, agent_names: ["planner", "researcher", "writer"], failed_tools: 1,
  }),
  row("primer", { sources: ["prov"], nodes: 30, edges: 40, agents: 2, agent_names: ["Derek", "Chart Generators Inc"] }),
  row("slow", { unavailable: "graph slow did not answer within 2000 ms" }),
];

const names = (rows: RunRow[]) => rows.map((r) => r.graph);

describe("runs: sorting and filtering", () => {
  it("sorts by each column both ways, rows without a value last, ties by name", () => {
    expect(names(sortRows(ROWS, DEFAULT_SORT))).toEqual(["agent-run", "council", "primer", "slow"]);
    expect(names(sortRows(ROWS, { key: "first", dir: "asc" }))).toEqual(["council", "agent-run", "primer", "slow"]);
    expect(names(sortRows(ROWS, { key: "nodes", dir: "desc" }))).toEqual(["council", "agent-run", "primer", "slow"]);
    expect(names(sortRows(ROWS, { key: "nodes", dir: "asc" }))).toEqual(["slow", "primer", "agent-run", "council"]);
    expect(names(sortRows(ROWS, { key: "graph", dir: "asc" }))).toEqual(["agent-run", "council", "primer", "slow"]);
    expect(names(sortRows(ROWS, { key: "span", dir: "desc" }))).toEqual(["council", "agent-run", "primer", "slow"]);
    expect(names(sortRows(ROWS, { key: "failed_tools", dir: "desc" }))).toEqual(["agent-run", "council", "primer", "slow"]);
    expect(names(sortRows(ROWS, { key: "invalid_signatures", dir: "desc" }))[0]).toBe("council");
    expect(names(sortRows(ROWS, { key: "agents", dir: "asc" }))).toEqual(["slow", "primer", "agent-run", "council"]);
    // By the sources' names: PROV < Runtime events < Runtime events, Signed…; none last.
    expect(names(sortRows(ROWS, { key: "sources", dir: "asc" }))).toEqual(["primer", "agent-run", "council", "slow"]);
    expect(names(sortRows(ROWS, { key: "sources", dir: "desc" }))).toEqual(["council", "agent-run", "primer", "slow"]);
  });

  it("a header click turns the sorted column around, another column starts at its natural end", () => {
    expect(nextSort({ key: "nodes", dir: "desc" }, "nodes")).toEqual({ key: "nodes", dir: "asc" });
    expect(nextSort({ key: "nodes", dir: "asc" }, "graph")).toEqual({ key: "graph", dir: "asc" });
    expect(nextSort({ key: "graph", dir: "asc" }, "failed_tools")).toEqual({ key: "failed_tools", dir: "desc" });
  });

  it("filters by the graph's or an agent's name, by source and by problems, together", () => {
    expect(names(filterRows(ROWS, { ...NO_FILTER, text: "RUN" }))).toEqual(["agent-run"]);
    expect(names(filterRows(ROWS, { ...NO_FILTER, text: "gpt" }))).toEqual(["council"]);
    expect(names(filterRows(ROWS, { ...NO_FILTER, text: "derek" }))).toEqual(["primer"]);
    expect(names(filterRows(ROWS, { ...NO_FILTER, source: "runtime_events" }))).toEqual(["council", "agent-run"]);
    expect(names(filterRows(ROWS, { ...NO_FILTER, source: "knowledge_graph" }))).toEqual([]);
    expect(names(filterRows(ROWS, { ...NO_FILTER, problems: true }))).toEqual(["council", "agent-run"]);
    expect(names(filterRows(ROWS, { text: "r", source: "runtime_events", problems: true }))).toEqual(["agent-run"]);
    expect(names(filterRows(ROWS, NO_FILTER))).toEqual(names(ROWS));
    expect(problemCount(ROWS[0])).toBe(3);
  });

  it("says how long a run lasted in words", () => {
    expect([850, 19_500, 250_000, 7_500_000, 280_000_000].map(duration)).toEqual(["850 ms", "19.5 s", "4 min 10 s", "2 h 5 min", "3 d 5 h"]);
  });
});

/** A backend whose `runs` answers the lists given, one per call; the last one waits. */
function host(lists: RunList[]) {
  const calls: RunsRequest[] = [];
  let release: (l: RunList) => void = () => {};
  const runs = vi.fn((req: RunsRequest) => {
    calls.push(req);
    const next = lists.shift();
    return next ? Promise.resolve(next) : new Promise<RunList>((r) => { release = r; });
  });
  const h = { backend: { runs }, graph: "primer", openGraph: vi.fn(async () => {}) } satisfies RunsHost;
  return { h, calls, push: (l: RunList) => release(l) };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const shown = (v: RunsView) => [...v.el.querySelectorAll<HTMLElement>('[data-testid="runs-row"]')].map((r) => r.dataset.graph);

describe("runs: the view", () => {
  it("lists the rows, sorts on a header click, filters, opens a clicked row, and follows the next list", async () => {
    const { h, calls, push } = host([{ version: 7, rows: ROWS }]);
    const v = new RunsView(h);
    document.body.appendChild(v.el);
    v.open();
    await flush();
    expect(shown(v)).toEqual(["agent-run", "council", "primer", "slow"]);
    expect(v.el.querySelector('[data-testid="runs-summary"]')!.textContent).toMatch(/^4 graphs, 2 with problems · live/);
    const council = v.el.querySelector<HTMLElement>('[data-graph="council"]')!;
    expect([...council.querySelectorAll(".runs-source")].map((s) => s.textContent)).toEqual(["Runtime events", "Signed statements", "Reasoning traces", "OpenTelemetry"]);
    expect(council.querySelector('[data-col="invalid_signatures"] .runs-problem')!.textContent).toBe("2");
    expect(council.querySelector(".runs-agents")!.textContent).toBe("6 Claude 4.5 Sonnet, GPT-5 and 4 more");
    expect(v.el.querySelector('[data-graph="slow"] [data-testid="runs-unavailable"]')!.textContent).toContain("did not answer");
    expect(v.el.querySelector('[data-graph="primer"]')!.classList.contains("current")).toBe(true);

    // The nodes header: largest first, then smallest first.
    v.el.querySelector<HTMLButtonElement>('[data-sort="nodes"]')!.click();
    expect(shown(v)).toEqual(["council", "agent-run", "primer", "slow"]);
    expect(v.el.querySelector('[data-sort="nodes"]')!.closest("th")!.getAttribute("aria-sort")).toBe("descending");
    v.el.querySelector<HTMLButtonElement>('[data-sort="nodes"]')!.click();
    expect(shown(v)).toEqual(["slow", "primer", "agent-run", "council"]);

    const problems = v.el.querySelector<HTMLInputElement>('[data-testid="runs-problems"]')!;
    problems.checked = true;
    problems.dispatchEvent(new Event("change"));
    expect(shown(v)).toEqual(["agent-run", "council"]);
    const text = v.el.querySelector<HTMLInputElement>('[data-testid="runs-filter"]')!;
    text.value = "council";
    text.dispatchEvent(new Event("input"));
    expect(shown(v)).toEqual(["council"]);
    expect(v.el.querySelector('[data-testid="runs-summary"]')!.textContent).toMatch(/^1 of 4 graphs shown/);

    // The next list (a graph was written) is asked with the version, and replaces the rows.
    expect(calls).toEqual([{}, { since: 7, wait_ms: 20_000 }]);
    push({ version: 8, rows: [...ROWS, row("council-2", { nodes: 5, invalid_signatures: 1 })] });
    await flush();
    expect(shown(v)).toEqual(["council-2", "council"]);
    expect(calls[2]).toEqual({ since: 8, wait_ms: 20_000 });

    v.el.querySelector<HTMLElement>('[data-graph="council-2"]')!.click();
    expect(h.openGraph).toHaveBeenCalledWith("council-2");
    expect(v.isOpen).toBe(false);
    v.el.remove();
  });

  it("says when there are no graphs, and shows the error with a retry when the list fails", async () => {
    const empty = host([{ version: 0, rows: [] }]);
    const v = new RunsView(empty.h);
    v.open();
    await flush();
    expect(v.el.textContent).toContain("No graphs yet");
    v.close();

    const failing = { backend: { runs: vi.fn(async () => { throw Object.assign(new Error("x"), { code: "connection", message: "FalkorDB is not reachable" }); }) }, graph: null, openGraph: vi.fn(async () => {}) } satisfies RunsHost;
    const w = new RunsView(failing);
    w.open();
    await flush();
    expect(w.el.querySelector('[data-testid="error-state"]')!.textContent).toContain("Could not list the runs: FalkorDB is not reachable (connection)");
    w.close();
  });
});
