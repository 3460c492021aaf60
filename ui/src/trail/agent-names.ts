// Agents' display names: agent ids resolved to the `agent_name` of their nodes, as trails
// and the walkthrough need them, and kept until another graph is opened.

import { BackendError, type Backend } from "../api/backend";
import type { Notifier } from "../shared/host";
import { agentName } from "./labels";

/** What the name lookup needs of the app. */
export interface NamesHost {
  readonly backend: Pick<Backend, "node">;
  readonly graph: string | null;
  readonly toasts: Notifier;
}

export class AgentNameCache {
  /** Agent id → display name. */
  readonly names = new Map<string, string>();

  constructor(private readonly host: NamesHost) {}

  /** Fills `names` for these agent ids from their nodes' `agent_name`. */
  async resolve(ids: Iterable<string>): Promise<void> {
    const graph = this.host.graph;
    if (!graph) return;
    const missing = [...new Set(ids)].filter((id) => !this.names.has(id));
    await Promise.all(missing.map(async (id) => {
      try {
        const rec = await this.host.backend.node({ graph, id });
        // Another graph was opened meanwhile: its names are not this one's.
        if (this.host.graph !== graph) return;
        const props = rec.properties ?? {};
        const name = props.agent_name ?? props.name;
        this.names.set(id, typeof name === "string" && name !== id ? name : agentName(id));
      } catch (e) {
        if (this.host.graph !== graph) return;
        // A verifier named in a trail need not have a node of its own; only report real failures.
        this.names.set(id, agentName(id));
        if (!(e instanceof BackendError && /not.?found/i.test(e.code))) this.host.toasts.error(e, `Looking up agent ${id}`);
      }
    }));
  }
}
