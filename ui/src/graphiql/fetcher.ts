// The query page's link to `/graphql?graph=G`: the endpoint, and a GraphiQL fetcher that
// posts `{query, variables, operationName}` with the token.

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

export function fetcherFor(graph: string, token: string | undefined, fetchFn: typeof fetch = fetch) {
  return async (params: GqlParams): Promise<unknown> => {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: "application/graphql-response+json, application/json",
    };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetchFn(endpoint(graph), {
      method: "POST",
      headers,
      body: JSON.stringify({
        query: params.query,
        variables: params.variables ?? null,
        operationName: params.operationName ?? null,
      }),
    });
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      return { errors: [{ message: `HTTP ${res.status}: ${text.slice(0, 500)}` }] };
    }
  };
}

export const exampleQuery = `# Seed 001 §5.1 over this graph's A2AP statements.
query Zoning {
  statementsAbout(topic: "zoning") {
    id
    claimText
    consensusScore
    verified
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
