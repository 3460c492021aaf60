//! The token check on every API request (header `Authorization: Bearer …`, or `?token=`
//! where a browser API cannot set headers, as with `EventSource`), and a Host check on
//! loopback so a web page elsewhere cannot reach the API through DNS rebinding. The UI's
//! own files hold no data and are public: the page loads, then asks for the token.

use axum::extract::{Request, State};
use axum::http::header;
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

pub async fn check(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if state.loopback {
        let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("localhost");
        if !host_is_loopback(host) {
            return ApiFailure::new(
                ErrorCode::ForbiddenHost,
                format!("requests must name a loopback host, not {host}"),
            )
            .into_response();
        }
    }
    let path = req.uri().path();
    let api = path == "/api" || path.starts_with("/api/");
    if api {
        if let Err(reason) = token(&state, req.headers(), req.uri().query(), None) {
            return ApiFailure::new(ErrorCode::Unauthorized, reason).into_response();
        }
    }
    next.run(req).await
}

/// The token rule of the API, for every route that reads or writes a graph (the API, and
/// `/graphql` and `/a2a/…`, which check it themselves): when the server has a token, the
/// request carries it (`Authorization: Bearer`, `?token=`, or, for JSON-RPC, `in_body`:
/// seed 004's `params.metadata.token`). The reason when it does not.
pub(crate) fn token(
    state: &AppState,
    headers: &axum::http::HeaderMap,
    query: Option<&str>,
    in_body: Option<&str>,
) -> Result<(), &'static str> {
    let Some(expected) = &state.token else { return Ok(()) };
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
        None => Err("this server needs a token: `Authorization: Bearer <token>` or `?token=<token>`"),
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

    /// Regression (issue 11 §3.1): any Host starting with `127.` used to pass.
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
    fn constant_time_compare() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}
