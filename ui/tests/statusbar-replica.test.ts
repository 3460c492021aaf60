// The status bar says when the backend reads views from a cluster's replicas, and how far
// behind the replica is (the lag `health` reports, docs/SCALING.md "Read replicas").

import { describe, expect, it } from "vitest";
import type { Health } from "../src/api/contract";
import { StatusBar, type StatusHost } from "../src/shell/statusbar";
import { emptyFilters } from "../src/graph/filters";

function bar(health: Health): string {
  const host: StatusHost = {
    model: { nodes: new Map(), edges: new Map(), seq: 0, mode: "whole", totalNodes: 0 } as unknown as StatusHost["model"],
    streamState: "open",
    filters: emptyFilters(),
    timelineAt: null,
    jobs: { jobs: [], stop: async () => {} },
    health,
    database: null,
  };
  const b = new StatusBar(host);
  b.render();
  return b.el.querySelector(".status-server")!.textContent ?? "";
}

const base: Health = { version: "0.9", database: "redis+cluster://h:1", private_server: false, auth: false };
const lag = { replica: "10.0.0.2:6379", primary: "10.0.0.1:6379", bytes_behind: 512, behind_ms: 230, link_up: true };

describe("status bar: reading from a replica", () => {
  it("says nothing of replicas when reads go to the primaries", () => {
    expect(bar(base)).toBe("Provex 0.9");
  });
  it("says how far behind the replica is, in seconds", () => {
    expect(bar({ ...base, replica: lag })).toBe("Provex 0.9 · reading from a replica, 0.2 s behind");
  });
  it("says when the replica's link to its primary is down", () => {
    expect(bar({ ...base, replica: { ...lag, link_up: false } })).toContain("its link to the primary is down");
  });
});
