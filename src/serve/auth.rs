//! Who may reach the graphs over HTTP. Every request names one host (`Host`, exactly once;
//! on loopback, a loopback name, so a web page elsewhere cannot come through DNS
//! rebinding). Every request that reads or writes a graph (the API, its streams, `/graphql`,
//! `/a2a/…`) carries the server's token (`Authorization: Bearer …`, or `?token=` where a
//! browser API cannot set headers, as with `EventSource`), and a browser's request to them
//! comes from Provex's own pages: its `Origin`, when it has one, is the server's, and its
//! `Sec-Fetch-Site` is `same-origin` or `none`. A request that changes something also
//! carries what a web form cannot send (the `Authorization` header, or a content type other
//! than a form's), so no page elsewhere can send it without asking the server first. The
//! UI's own files hold no data and are public: the page loads, then uses the token from its
//! address.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use subtle::ConstantTimeEq;

use super::{ApiFailure, AppState};
use crate::api::ErrorCode;

/// Compares in time that does not depend on where the first difference is (`subtle`).
fn same(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

fn query_token(query: Option<&str>) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes()).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned())
}

/// True when the Host header names exactly `localhost` (any case) or a literal loopback
/// IP address, with or without a port: `localhost:7878`, `127.0.0.1`, `[::1]:80`. Names
/// are not resolved, so `127.attacker.example` or `localhost.` are refused.
fn host_is_loopback(host: &str) -> bool {
    // A bare IPv6 address (not valid in a Host header, but harmless to accept).
    if let Ok(ip) = host.parse::<IpAddr>() {
        return ip.is_loopback();
    }
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((inside, after)) => match after.strip_prefix(':') {
                Some(port) => (inside, Some(port)),
                None if after.is_empty() => (inside, None),
                None => return false,
            },
            None => return false,
        },
        None => match host.split_once(':') {
            Some((h, port)) => (h, Some(port)),
            None => (host, None),
        },
    };
    if port.is_some_and(|p| p.parse::<u16>().is_err()) {
        return false;
    }
    if host.starts_with('[') {
        return name.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback());
    }
    name.eq_ignore_ascii_case("localhost") || name.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// The one host the request names: its `Host` header, present once, in visible ASCII, and
/// the same as the request target's authority when that has one (`GET http://h/ HTTP/1.1`).
fn request_host(req: &Request) -> Result<&str, ApiFailure> {
    let bad = |why: &str| ApiFailure::new(ErrorCode::BadRequest, format!("the request {why}"));
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(h), None) => h.to_str().map_err(|_| bad("names its host in bytes that are not text"))?,
        (None, _) => return Err(bad("has no Host header")),
        (Some(_), Some(_)) => return Err(bad("has more than one Host header")),
    };
    if host.is_empty() {
        return Err(bad("has an empty Host header"));
    }
    if let Some(authority) = req.uri().authority() {
        if !authority.as_str().eq_ignore_ascii_case(host) {
            return Err(bad("names two hosts (its target and its Host header)"));
        }
    }
    Ok(host)
}

/// Whether a path is one that reads or writes graphs (everything but the UI's files).
fn reaches_data(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/") || path == "/graphql" || path.starts_with("/a2a/")
}

pub async fn check(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let host = match request_host(&req) {
        Ok(h) => h,
        Err(f) => return f.into_response(),
    };
    if state.loopback && !host_is_loopback(host) {
        return ApiFailure::new(
            ErrorCode::ForbiddenHost,
            format!("requests must name a loopback host, not {host}"),
        )
        .into_response();
    }
    let path = req.uri().path();
    // The UI's files are read-only and public; anything else (a graph's data, or any
    // request that is not a read) must come from this server's own pages or a tool.
    if reaches_data(path) || !req.method().is_safe() {
        if let Err(reason) = from_own_page(req.method(), req.headers(), host) {
            return ApiFailure::new(ErrorCode::ForbiddenOrigin, reason).into_response();
        }
    }
    if path == "/api" || path.starts_with("/api/") {
        if let Err(reason) = token(&state, req.headers(), req.uri().query(), None) {
            return ApiFailure::new(ErrorCode::Unauthorized, reason).into_response();
        }
    }
    next.run(req).await
}

/// Whether a browser sent the request from one of this server's own pages (or it was not
/// sent by a web page at all: a tool, the address bar), judged by what a page cannot forge.
/// The reason when not.
fn from_own_page(method: &Method, headers: &HeaderMap, host: &str) -> Result<(), String> {
    for site in headers.get_all("sec-fetch-site") {
        match site.to_str() {
            Ok("same-origin" | "none") => {}
            Ok(other) => {
                return Err(format!(
                    "a page on another {} sent this request: only Provex's own pages may",
                    if other == "same-site" { "port or subdomain" } else { "site" }
                ))
            }
            Err(_) => return Err("the request's Sec-Fetch-Site is not text".into()),
        }
    }
    let mut origins = headers.get_all(header::ORIGIN).iter();
    match (origins.next(), origins.next()) {
        (None, _) => {}
        (Some(o), None) => match o.to_str() {
            Ok(o) if origin_is_host(o, host) => {}
            Ok(o) => return Err(format!("a page on {o} sent this request: only Provex's own pages may")),
            Err(_) => return Err("the request's Origin is not text".into()),
        },
        (Some(_), Some(_)) => return Err("the request has more than one Origin".into()),
    }
    if !method.is_safe()
        && !headers.contains_key(header::AUTHORIZATION)
        && !content_type_is_not_a_forms(headers)
    {
        return Err("a request that changes something carries `Authorization: Bearer <token>`, or a body \
                    whose Content-Type a web form cannot send (such as application/json)"
            .into());
    }
    Ok(())
}

/// Whether the request has one Content-Type and it is none a web form (or a page's
/// `fetch` without asking the server first) can send: not `text/plain`,
/// `application/x-www-form-urlencoded` nor `multipart/form-data`.
fn content_type_is_not_a_forms(headers: &HeaderMap) -> bool {
    let mut types = headers.get_all(header::CONTENT_TYPE).iter();
    let (Some(t), None) = (types.next(), types.next()) else { return false };
    let Ok(t) = t.to_str() else { return false };
    let essence = t.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    !essence.is_empty()
        && !matches!(
            essence.as_str(),
            "text/plain" | "application/x-www-form-urlencoded" | "multipart/form-data"
        )
}

/// Whether the origin `o` (`scheme://host[:port]`, as browsers send it) names the host
/// `host` (a Host header): the same name and port, a missing port being the scheme's.
fn origin_is_host(o: &str, host: &str) -> bool {
    let Some((scheme, authority)) = o.split_once("://") else { return false };
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => "80",
        "https" => "443",
        _ => return false,
    };
    match (with_port(authority, default), with_port(host, default)) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(&b),
        _ => false,
    }
}

/// `name:port`, the port `default` when `authority` has none; `None` when it is not a
/// plain `name[:port]` (a path, user information, an empty name).
fn with_port(authority: &str, default: &str) -> Option<String> {
    if authority.is_empty() || authority.contains(['/', '@', '?', '#', ' ']) {
        return None;
    }
    let has_port = match authority.rfind(']') {
        Some(end) => authority[end + 1..].starts_with(':'),
        None => authority.contains(':'),
    };
    Some(if has_port { authority.to_owned() } else { format!("{authority}:{default}") })
}

/// The token rule of the API, for every route that reads or writes a graph (the API, and
/// `/graphql` and `/a2a/…`, which check it themselves): the request carries the server's
/// token (`Authorization: Bearer`, `?token=`, or, for JSON-RPC, `in_body`:
/// the knowledge-graph extension's `params.metadata.token`). The reason when it does not.
pub(crate) fn token(
    state: &AppState,
    headers: &axum::http::HeaderMap,
    query: Option<&str>,
    in_body: Option<&str>,
) -> Result<(), &'static str> {
    let expected = &state.token;
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::to_owned)
        .or_else(|| query_token(query))
        .or_else(|| in_body.map(str::to_owned));
    match given {
        Some(t) if same(t.as_bytes(), expected.as_bytes()) => Ok(()),
        Some(_) => Err("the token is wrong"),
        None => Err("this server needs its token: open the address `provex serve` printed (it ends in \
                     `token=…`), or send `Authorization: Bearer <token>` (the token is in the data \
                     folder's serve-PORT.token)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_from_queries() {
        assert_eq!(query_token(Some("since=3&token=abc%2Fdef")), Some("abc/def".into()));
        assert_eq!(query_token(Some("since=3")), None);
        assert_eq!(query_token(None), None);
    }

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost:7878",
            "localhost",
            "LOCALHOST:7878",
            "LocalHost",
            "127.0.0.1:1",
            "127.0.0.2",
            "127.255.255.254:80",
            "[::1]:80",
            "[::1]",
            "::1",
            "[0:0:0:0:0:0:0:1]:7878",
        ] {
            assert!(host_is_loopback(h), "{h}");
        }
    }

    /// Regression: any Host starting with `127.` used to pass.
    #[test]
    fn names_that_only_look_loopback_are_refused() {
        for h in [
            "127.attacker.example",
            "127.attacker.example:7878",
            "127.0.0.1.attacker.example",
            "127.1",
            "localhost.",
            "localhost.:7878",
            "localhost.evil.example",
            "evil.example:7878",
            "192.168.1.2",
            "0.0.0.0",
            "[::]:80",
            "[::2]:80",
            "[::1",
            "[::1]x",
            "[::1]:notaport",
            "localhost:notaport",
            "localhost:80:80",
            "[127.0.0.1]:80",
            "[localhost]",
            "",
            ":80",
        ] {
            assert!(!host_is_loopback(h), "{h}");
        }
    }

    #[test]
    fn origins_match_the_host_they_name() {
        for (o, h) in [
            ("http://127.0.0.1:7878", "127.0.0.1:7878"),
            ("http://localhost:7878", "LOCALHOST:7878"),
            ("http://[::1]:7878", "[::1]:7878"),
            ("http://provex.example", "provex.example:80"),
            ("http://provex.example:80", "provex.example"),
            ("https://provex.example", "provex.example"),
            ("https://provex.example", "provex.example:443"),
            ("HTTP://[::1]", "[::1]:80"),
        ] {
            assert!(origin_is_host(o, h), "{o} {h}");
        }
        for (o, h) in [
            ("http://127.0.0.1:7879", "127.0.0.1:7878"),
            ("http://localhost:7878", "127.0.0.1:7878"),
            ("http://127.0.0.1", "127.0.0.1:7878"),
            ("https://provex.example", "provex.example:80"),
            ("null", "127.0.0.1:7878"),
            ("", "127.0.0.1:7878"),
            ("file://", "127.0.0.1:7878"),
            ("ftp://127.0.0.1:7878", "127.0.0.1:7878"),
            ("http://127.0.0.1:7878/", "127.0.0.1:7878"),
            ("http://user@127.0.0.1:7878", "127.0.0.1:7878"),
            ("http://127.0.0.1:7878.evil.example", "127.0.0.1:7878"),
            ("http://[::1]", "[::1]:7878"),
        ] {
            assert!(!origin_is_host(o, h), "{o} {h}");
        }
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, axum::http::HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn pages_elsewhere_and_forms_are_refused() {
        let host = "127.0.0.1:7878";
        let own =
            |m: Method, pairs: &[(&'static str, &'static str)]| from_own_page(&m, &headers(pairs), host);
        // Tools and the UI's own requests.
        assert!(own(Method::GET, &[]).is_ok());
        assert!(own(Method::GET, &[("sec-fetch-site", "same-origin")]).is_ok());
        assert!(own(Method::GET, &[("sec-fetch-site", "none")]).is_ok());
        assert!(own(Method::POST, &[("authorization", "Bearer x")]).is_ok());
        assert!(own(Method::POST, &[("content-type", "application/json")]).is_ok());
        assert!(own(Method::POST, &[("content-type", "application/octet-stream")]).is_ok());
        assert!(own(
            Method::POST,
            &[
                ("origin", "http://127.0.0.1:7878"),
                ("sec-fetch-site", "same-origin"),
                ("content-type", "application/json")
            ]
        )
        .is_ok());
        // Pages elsewhere, whatever else they send.
        for pairs in [
            &[("sec-fetch-site", "cross-site"), ("authorization", "Bearer x")][..],
            &[("sec-fetch-site", "same-site")],
            &[("sec-fetch-site", "same-origin"), ("sec-fetch-site", "cross-site")],
            &[("sec-fetch-site", "weird")],
            &[("origin", "http://127.0.0.1:7879"), ("content-type", "application/json")],
            &[("origin", "null")],
            &[("origin", "http://127.0.0.1:7878"), ("origin", "http://evil.example")],
        ] {
            assert!(own(Method::GET, pairs).is_err(), "{pairs:?}");
            assert!(own(Method::POST, pairs).is_err(), "{pairs:?}");
        }
        // A change a form could send.
        for pairs in [
            &[][..],
            &[("content-type", "text/plain")],
            &[("content-type", "Text/Plain; charset=utf-8")],
            &[("content-type", "application/x-www-form-urlencoded")],
            &[("content-type", "multipart/form-data; boundary=b")],
            &[("content-type", "")],
            &[("content-type", "application/json"), ("content-type", "text/plain")],
        ] {
            for m in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
                assert!(own(m.clone(), pairs).is_err(), "{m} {pairs:?}");
            }
            assert!(own(Method::GET, pairs).is_ok(), "{pairs:?}");
        }
    }

    #[test]
    fn constant_time_compare() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}
