// The example week of examples/lineage/summarise-prompt.jsonl as the API's `lineage` returns
// it (ids shortened): ten versions, a fork onto "experiment/bullets", a merge with two
// parents, a revert, one head.

import type { EvolutionView, LineageGraph, PromptView } from "../src/api/contract";

const LINEAGE = "66a16ad3-064a-510d-a5ef-d038c3941838";

export function prompt(version: string, timestamp: string, chain_position: number, over: Partial<PromptView> = {}): PromptView {
  return {
    id: `p${version}`, lineage_id: LINEAGE, version, timestamp, chain_position, is_root: chain_position === 1, is_head: false,
    model: "gpt-4o", content: `Prompt text of version ${version}.`, ...over,
  };
}

export function evolution(child: string, parent: string, evolution_type: string, confidence: number | null, primary = true): EvolutionView {
  const rel: Record<string, string> = {
    refines: "WAS_REFINED_FROM", evolves: "WAS_EVOLVED_FROM", derives: "WAS_DERIVED_FROM",
    forks: "WAS_FORKED_FROM", merges: "WAS_MERGED_FROM", reverts: "WAS_REVERTED_FROM",
  };
  return { child: `p${child}`, parent: `p${parent}`, evolution_type, relation: rel[evolution_type], primary, confidence, similarity_score: confidence, reason: `why ${child}` };
}

export function exampleWeek(): LineageGraph {
  const bullets = { branch: "experiment/bullets" };
  return {
    focus: "p1.0.0",
    lineage_id: LINEAGE,
    prompts: [
      prompt("1.0.0", "2026-11-02T09:12:00+00:00", 1),
      prompt("1.0.1", "2026-11-02T15:40:00+00:00", 2),
      prompt("1.0.2", "2026-11-03T10:05:00+00:00", 3),
      prompt("1.1.0", "2026-11-04T11:20:00+00:00", 4, bullets),
      prompt("1.1.1", "2026-11-04T16:02:00+00:00", 5, bullets),
      prompt("1.0.3", "2026-11-05T09:30:00+00:00", 4),
      prompt("2.0.0", "2026-11-06T14:00:00+00:00", 5),
      prompt("2.0.1", "2026-11-07T10:00:00+00:00", 6),
      prompt("2.0.2", "2026-11-08T09:00:00+00:00", 7),
      prompt("2.1.0", "2026-11-08T15:30:00+00:00", 8, { is_head: true }),
    ],
    evolutions: [
      evolution("1.0.1", "1.0.0", "refines", 0.7249),
      evolution("1.0.2", "1.0.1", "refines", 0.8568),
      evolution("1.1.0", "1.0.2", "forks", 0.6573),
      evolution("1.1.1", "1.1.0", "refines", 0.8187),
      evolution("1.0.3", "1.0.2", "evolves", 0.8791),
      evolution("2.0.0", "1.0.3", "merges", 0.6365),
      evolution("2.0.0", "1.1.1", "merges", 0.6365, false),
      evolution("2.0.1", "2.0.0", "refines", 0.8092),
      evolution("2.0.2", "2.0.1", "reverts", 0.8092),
      evolution("2.1.0", "2.0.2", "derives", 0.885611097984946),
    ],
  };
}
