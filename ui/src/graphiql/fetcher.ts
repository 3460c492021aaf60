// The query page's link to `/graphql?graph=G`: the endpoint, and a GraphiQL fetcher that
// posts `{query, variables, operationName}` with the token. A subscription is posted asking
// for `text/event-stream` (GraphQL over SSE) and handed to GraphiQL as the results arrive.

import { getOperationAST, parse } from "graphql";

export type GqlParams = { query: string; variables?: unknown; operationName?: string | null };

/** The graph named by the page's `?graph=`, if any. */
export function graphFromUrl(url: URL): string | undefined {
  const g = url.searchParams.get("graph")?.trim();
  return g ? g : undefined;
}

/** The endpoint, relative to the page (served at `/graphql`). */
export function endpoint(graph: string): string {
  return `graphql?graph=${encodeURIComponent(graph)}`;
}

/** The operation to run: the one named, or (GraphiQL may still name the last tab's
 *  operation just after a tab switch) the document's only operation. */
export function operationOf(params: GqlParams): { name: string | null; subscription: boolean } {
  const name = params.operationName ?? null;
  try {
    const doc = parse(params.query);
    const op = getOperationAST(doc, name ?? undefined) ?? getOperationAST(doc);
    if (!op) return { name, subscription: false };
    return { name: op.name?.value ?? null, subscription: op.operation === "subscription" };
  } catch {
    return { name, subscription: false }; // not GraphQL: the server says why
  }
}

/** Whether the operation the page would run is a subscription. */
export function isSubscription(params: GqlParams): boolean {
  return operationOf(params).subscription;
}

/** The results of a GraphQL-over-SSE response: each `event: next`'s data, until `complete`. */
export async function* sseResults(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      let end: number;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (event === "complete") return;
        if (event === "next" && data.length > 0) yield JSON.parse(data.join("\n"));
      }
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

export function fetcherFor(graph: string, token: string | undefined, fetchFn: typeof fetch = fetch) {
  return async (params: GqlParams): Promise<unknown> => {
    const op = operationOf(params);
    const streams = op.subscription;
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: streams ? "text/event-stream" : "application/graphql-response+json, application/json",
    };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetchFn(endpoint(graph), {
      method: "POST",
      headers,
      body: JSON.stringify({
        query: params.query,
        variables: params.variables ?? null,
        operationName: op.name,
      }),
    });
    if (streams && res.ok && res.body && (res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      return sseResults(res.body);
    }
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      return { errors: [{ message: `HTTP ${res.status}: ${text.slice(0, 500)}` }] };
    }
  };
}

export const exampleQuery = `# The A2AP statements of this graph about a topic, with their evidence and verifications.
query Zoning {
  statementsAbout(topic: "zoning") {
    id
    claimText
    consensusScore
    verified
    standing
    signature
    generatedBy { name reputation }
    evidence { text timestampStart document { title } }
    verifications {
      verdict confidence signature
      verifier { name }
    }
  }
}
`;

export const watchQuery = `# The knowledge-graph statements of this graph. Run Watch,
# then add one with knowledge/update at /a2a/<graph>:
# each change shows here as it commits.
subscription Watch {
  triples {
    op
    timestamp
    statement {
      subject { id }
      predicate { id }
      object { id value }
      certainty
    }
  }
}
`;
