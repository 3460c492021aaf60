// The GraphQL page's link to the server: the graph from the address, the endpoint relative
// to the page, and the fetcher GraphiQL calls (token, body, a non-JSON answer as an error).

import { describe, expect, it } from "vitest";
import { endpoint, fetcherFor, graphFromUrl } from "../src/graphiql/fetcher";

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
});
