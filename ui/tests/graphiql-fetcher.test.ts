// The GraphQL page's link to the server: the graph from the address, the endpoint relative
// to the page, and the fetcher GraphiQL calls (token, body, a non-JSON answer as an error).

import { describe, expect, it } from "vitest";
import { endpoint, fetcherFor, graphFromUrl, isSubscription, operationOf, sseResults } from "../src/graphiql/fetcher";

/** A body that arrives in these chunks. */
function body(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

async function all(it: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("the GraphiQL fetcher", () => {
  it("takes the graph from ?graph= and builds the endpoint beside the page", () => {
    expect(graphFromUrl(new URL("http://x/graphql.html?graph=%20council%20"))).toBe("council");
    expect(graphFromUrl(new URL("http://x/graphql.html?graph="))).toBeUndefined();
    expect(graphFromUrl(new URL("http://x/graphql.html"))).toBeUndefined();
    expect(endpoint("a b/c")).toBe("graphql?graph=a%20b%2Fc");
    expect(new URL(endpoint("council"), "http://x/graphql.html").pathname).toBe("/graphql");
  });

  it("posts the query, variables and operation name with the tab's token", async () => {
    const sent: { url: string; init: RequestInit }[] = [];
    const fake = (async (url: string, init: RequestInit) => {
      sent.push({ url, init });
      return new Response(JSON.stringify({ data: { __typename: "Query" } }), { status: 200 });
    }) as unknown as typeof fetch;
    const got = await fetcherFor("council", "tok-1", fake)({ query: "query A { __typename }", operationName: "A" });
    expect(got).toEqual({ data: { __typename: "Query" } });
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe("graphql?graph=council");
    const headers = sent[0].init.headers as Record<string, string>;
    expect(headers.Authorization).toBe("Bearer tok-1");
    expect(JSON.parse(String(sent[0].init.body))).toEqual({ query: "query A { __typename }", variables: null, operationName: "A" });
    await fetcherFor("council", undefined, fake)({ query: "{ __typename }" });
    expect((sent[1].init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it("turns an answer that is not JSON into a GraphQL error naming the status", async () => {
    const fake = (async () => new Response("upstream timed out", { status: 502 })) as unknown as typeof fetch;
    const got = await fetcherFor("council", undefined, fake)({ query: "{ __typename }" }) as { errors: { message: string }[] };
    expect(got.errors[0].message).toBe("HTTP 502: upstream timed out");
  });

  it("knows a subscription by the operation it would run", () => {
    expect(isSubscription({ query: "subscription { triples { op } }" })).toBe(true);
    expect(isSubscription({ query: "{ triples { id } }" })).toBe(false);
    const two = "query A { __typename } subscription B { triples { op } }";
    expect(isSubscription({ query: two, operationName: "B" })).toBe(true);
    expect(isSubscription({ query: two, operationName: "A" })).toBe(false);
    expect(isSubscription({ query: "subscription {" })).toBe(false);
    // A name the document does not hold (GraphiQL just after a tab switch): its only operation.
    expect(operationOf({ query: "subscription Watch { triples { op } }", operationName: "Zoning" })).toEqual({ name: "Watch", subscription: true });
    expect(operationOf({ query: two, operationName: "C" })).toEqual({ name: "C", subscription: false });
  });

  it("reads GraphQL-over-SSE results across chunk boundaries, skipping keep-alives, until complete", async () => {
    const got = await all(sseResults(body([
      ":\n\nevent: next\ndata: {\"data\":{\"triples\":",
      "{\"op\":\"add\"}}}\n\n",
      "event: next\r\ndata: {\"data\":{\"triples\":{\"op\":\"remove\"}}}\r\n\r\n",
      "event: complete\ndata:\n\nevent: next\ndata: {\"late\":true}\n\n",
    ])));
    expect(got).toEqual([{ data: { triples: { op: "add" } } }, { data: { triples: { op: "remove" } } }]);
  });

  it("streams a subscription: asks for text/event-stream and hands GraphiQL the results", async () => {
    let accept = "";
    const fake = (async (_url: string, init: RequestInit) => {
      accept = (init.headers as Record<string, string>).Accept;
      return new Response(body(["event: next\ndata: {\"data\":{\"triples\":{\"op\":\"add\"}}}\n\nevent: complete\ndata:\n\n"]),
        { status: 200, headers: { "content-type": "text/event-stream" } });
    }) as unknown as typeof fetch;
    const it = await fetcherFor("council", "t", fake)({ query: "subscription { triples { op } }" });
    expect(accept).toBe("text/event-stream");
    expect(await all(it as AsyncIterable<unknown>)).toEqual([{ data: { triples: { op: "add" } } }]);
    // A refusal (not a stream) is an ordinary result.
    const refused = (async () => new Response(JSON.stringify({ errors: [{ message: "no" }] }), { status: 406 })) as unknown as typeof fetch;
    expect(await fetcherFor("council", "t", refused)({ query: "subscription { triples { op } }" })).toEqual({ errors: [{ message: "no" }] });
  });
});
