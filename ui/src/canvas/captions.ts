//! What a node's label says, so that a person can read the canvas without opening anything:
//! a claim or quote its own text, a verification its verdict and verifier, a runtime event
//! what it did (the message's words, the tool, the model, the task and its state). The view
//! carries a node's text or, for a node without text, what names it (a verdict, a tool, a
//! model, a task state: docs/FORMATS.md); this turns that into words.

import type { ViewNode } from "../api/contract";

/** What a caption needs of a node. */
export type CaptionNode = Pick<ViewNode, "id" | "label" | "text" | "agent" | "status">;

/** An agent's display name from its id, when the graph has it (an agent node's name). */
export type AgentNameOf = (agentId: string) => string | undefined;

/** Words for a verdict: its mark (never colour alone) and how a person says it. */
export function verdictWords(verdict: string): string {
  const v = verdict.trim().toUpperCase();
  if (/^(VALIDATED|VERIFIED|CONFIRMED|SUPPORTED|PASS(ED)?)$/.test(v)) return "✓ Validated";
  if (/^(CHALLENGED|DISPUTED|REJECTED|REFUTED|FAIL(ED)?)$/.test(v)) return "✗ Challenged";
  return `? ${sentence(v.replace(/[_-]+/g, " ").toLowerCase())}`;
}

/** An agent id as a name: `urn:agent:civic-fact-checker-1.2` → `Civic Fact Checker`. */
export function agentFromId(id: string): string {
  const tail = id.replace(/^urn:agent:/, "").replace(/^agent_instance:/, "");
  // A version (`-1.2`) or a date (`-20241022`) at the end is not part of the name.
  const words = tail.replace(/[-_](v?\d+(\.\d+)+|\d{8})$/, "").split(/[-_\s]+/).filter(Boolean);
  if (words.length === 0) return id;
  return words.map((w) => (/^\d/.test(w) ? w : w[0].toUpperCase() + w.slice(1))).join(" ");
}

/** `urn:uuid:5857aaae-2c8e-…` → `5857aaae…`: long ids shortened inside text. */
function shortIds(text: string): string {
  return text.replace(/urn:uuid:([0-9a-f]{8})-[0-9a-f-]{27}/gi, "$1…");
}

function sentence(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** The part of an id after its kind (`task:task-x` → `x`), words spaced. */
function idTail(id: string, prefix: RegExp): string {
  return id.replace(prefix, "").replace(/^task-/, "").replace(/[-_]+/g, " ").trim();
}

/** A message's or prompt's words: the content of a JSON chat (the last user turn), a list's
 *  items, or the text itself. */
export function spokenText(text: string): string {
  const t = text.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      const v: unknown = JSON.parse(t);
      const msgs = Array.isArray(v) ? v : (v as { messages?: unknown }).messages;
      if (Array.isArray(msgs)) {
        const turns = msgs.filter((m): m is { role?: string, content?: unknown } => typeof m === "object" && m !== null);
        const user = [...turns].reverse().find((m) => m.role === "user") ?? turns[turns.length - 1];
        if (user && typeof user.content === "string") return user.content;
        const strings = msgs.filter((m): m is string => typeof m === "string");
        if (strings.length > 0) return strings.join(" ");
      }
    } catch {
      // Not JSON after all (a list printed by the store): its brackets go below.
    }
    if (t.startsWith("[") && t.endsWith("]")) return t.slice(1, -1).replace(/^"|"$/g, "");
  }
  return t;
}

/** The whole text a node's label shows (wrapped and cut by the label layer). */
export function nodeCaption(n: CaptionNode, nameOf: AgentNameOf = () => undefined): string {
  const text = (n.text ?? "").replace(/\s+/g, " ").trim();
  const who = (id: string | null) => (id ? nameOf(id) ?? agentFromId(id) : "");
  switch (n.label) {
    case "Verification": {
      const verdict = text ? verdictWords(text) : "? Verification";
      const by = who(n.agent);
      const forged = n.status === "invalid" ? "✗ Forged: " : "";
      const head = forged ? `${forged}${verdict.replace(/^[✓✗?] /, "")}` : verdict;
      return by ? `${head} · ${by}` : head;
    }
    case "Message":
      return text ? `Message: ${shortIds(spokenText(text))}` : "Message";
    case "LlmPrompt":
      return text ? `Prompt: ${shortIds(spokenText(text))}` : "Prompt";
    case "LlmCall":
      return text ? `Model call · ${text}` : "Model call";
    case "ToolCall":
      return text ? `Tool · ${text}` : "Tool call";
    case "ToolArgs":
      return "Tool arguments";
    case "A2ATask":
      return `Task · ${idTail(n.id, /^task:/)}`;
    case "A2ATaskExecution":
      return `Running · ${idTail(n.id, /^task_execution_/)}`;
    case "A2ATaskState": {
      const task = idTail(n.id.replace(/:\d+(:old)?$/, ""), /^task_state:/);
      const was = n.id.endsWith(":old") ? " (before)" : "";
      return `${task}: ${text || "state"}${was}`;
    }
    case "A2AMessageProcessing":
      return `Handling message ${n.id.replace(/^message_processing:/, "")}`;
    case "Artifact":
      return text ? `Artifact · ${sentence(text.replace(/^[a-z0-9]+:/i, "").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase())}` : "Artifact";
    case "AgentRuntimeInstance":
      return text ? `Agent run · ${text}` : "Agent run";
    case "AgentBoot":
      return text ? `Agent start · ${text}` : "Agent start";
    case "AgentArchive":
      return text ? `Archive · ${text}` : "Agent archive";
    case "Agent":
      return text || who(n.id) || "Agent";
    default:
      return text ? shortIds(spokenText(text)) : n.label || n.id;
  }
}
