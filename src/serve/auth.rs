//! The token check on every API request (header `Authorization: Bearer …`, or `?token=`
//! where a browser API cannot set headers, as with `EventSource`), and a Host check on
//! loopback so a web page elsewhere cannot reach the API through DNS rebinding. The UI's
//! own files hold no data and are public: the page loads, then asks for the token.

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{ApiFailure, AppState};
use crate::api::ErrorCode;

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn query_token(query: Option<&str>) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes()).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned())
}

fn host_is_loopback(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    matches!(name, "localhost" | "127.0.0.1" | "::1") || name.starts_with("127.")
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
    if let (Some(expected), true) = (&state.token, api) {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .map(str::to_owned)
            .or_else(|| query_token(req.uri().query()));
        match given {
            Some(t) if same(t.as_bytes(), expected.as_bytes()) => {}
            Some(_) => {
                return ApiFailure::new(ErrorCode::Unauthorized, "the token is wrong")
                    .into_response()
            }
            None => {
                return ApiFailure::new(
                    ErrorCode::Unauthorized,
                    "this server needs a token: `Authorization: Bearer <token>` or `?token=<token>`",
                )
                .into_response()
            }
        }
    }
    next.run(req).await
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
        for h in ["localhost:7878", "127.0.0.1:1", "[::1]:80", "localhost", "127.0.0.2"] {
            assert!(host_is_loopback(h), "{h}");
        }
        for h in ["evil.example:7878", "192.168.1.2", "localhost.evil.example"] {
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
