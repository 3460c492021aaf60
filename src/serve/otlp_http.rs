//! OTLP/HTTP trace export (docs/FORMATS.md, "OpenTelemetry traces of AI agents", wire
//! forms): `POST /v1/traces` into the graph `otel` and `POST /otlp/{graph}/v1/traces`, so an
//! SDK with `OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT/otlp/{graph}` writes into that
//! graph. Protobuf or JSON, identity or gzip; the answer in the request's encoding, as the
//! OTLP/HTTP specification says. The API's token rule applies; the server's origin rules
//! (`auth::check`) have already refused pages on other origins.

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::{post, MethodRouter};
use futures_util::StreamExt;

use super::otlp::{self, Encoding, Failure, Kind};
use super::{auth, AppState};

/// Bodies up to this size are decoded where they are received; larger ones on a blocking thread.
const INLINE_DECODE: usize = 256 << 10;

/// The routes, to be merged into the server's router.
pub(crate) fn routes() -> axum::Router<AppState> {
    let refuse_method = || async {
        let f = Failure::new(Kind::BadRequest, "OTLP trace export takes POST only");
        answer_failure(&f, Encoding::Json, StatusCode::METHOD_NOT_ALLOWED)
    };
    let default: MethodRouter<AppState> = post(export_default).fallback(refuse_method);
    let named: MethodRouter<AppState> = post(export_named).fallback(refuse_method);
    axum::Router::new().route("/v1/traces", default).route("/otlp/{graph}/v1/traces", named)
}

async fn export_default(State(state): State<AppState>, req: Request) -> Response {
    export(state, otlp::DEFAULT_GRAPH.to_owned(), req).await
}

async fn export_named(State(state): State<AppState>, Path(graph): Path<String>, req: Request) -> Response {
    export(state, graph, req).await
}

/// The body's encoding from its `Content-Type`, if it is one OTLP/HTTP uses.
fn encoding(headers: &HeaderMap) -> Result<Encoding, Failure> {
    let t = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    match t.split(';').next().unwrap_or("").trim().to_ascii_lowercase().as_str() {
        "application/x-protobuf" => Ok(Encoding::Protobuf),
        "application/json" => Ok(Encoding::Json),
        "" => Err(Failure::new(
            Kind::Unsupported,
            "an OTLP body needs Content-Type application/x-protobuf or application/json",
        )),
        other => Err(Failure::new(
            Kind::Unsupported,
            format!("OTLP/HTTP bodies are application/x-protobuf or application/json, not {other}"),
        )),
    }
}

/// Whether the body is gzip (else identity); any other coding is refused.
fn gzipped(headers: &HeaderMap) -> Result<bool, Failure> {
    let mut gzip = false;
    for v in headers.get_all(header::CONTENT_ENCODING) {
        for coding in v.to_str().unwrap_or("?").split(',').map(|c| c.trim().to_ascii_lowercase()) {
            match coding.as_str() {
                "" | "identity" => {}
                "gzip" | "x-gzip" if !gzip => gzip = true,
                other => {
                    return Err(Failure::new(
                        Kind::Unsupported,
                        format!("OTLP bodies may be gzip-encoded, or not encoded; not {other}"),
                    ))
                }
            }
        }
    }
    Ok(gzip)
}

async fn export(state: AppState, graph: String, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let enc = encoding(&parts.headers).unwrap_or(Encoding::Json);
    match receive(&state, &graph, &parts.headers, parts.uri.query(), body).await {
        Ok(bytes) => {
            let mut res = Response::new(Body::from(bytes));
            res.headers_mut().insert(header::CONTENT_TYPE, content_type(enc));
            res
        }
        Err(f) => {
            let status = StatusCode::from_u16(f.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            answer_failure(&f, enc, status)
        }
    }
}

fn content_type(enc: Encoding) -> HeaderValue {
    HeaderValue::from_static(match enc {
        Encoding::Protobuf => "application/x-protobuf",
        Encoding::Json => "application/json",
    })
}

fn answer_failure(f: &Failure, enc: Encoding, status: StatusCode) -> Response {
    let mut res = Response::new(Body::from(f.body(enc)));
    *res.status_mut() = status;
    res.headers_mut().insert(header::CONTENT_TYPE, content_type(enc));
    if f.retry() {
        res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(otlp::RETRY_AFTER_SECS));
    }
    res
}

/// Checks, reads, decodes and stores one export; the encoded answer.
async fn receive(
    state: &AppState,
    graph: &str,
    headers: &HeaderMap,
    query: Option<&str>,
    body: Body,
) -> Result<Vec<u8>, Failure> {
    auth::token(state, headers, query, None).map_err(|why| Failure::new(Kind::Unauthorized, why))?;
    crate::store::validate_graph_name(graph)?;
    let enc = encoding(headers)?;
    let gzip = gzipped(headers)?;
    let gate = &state.limits.otlp;
    // The place is taken before the body is read, so bodies in memory are bounded too.
    let _place = gate.enter()?;
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > gate.max_body as u64) {
        return Err(too_large(gate.max_body));
    }
    let raw = read_body(body, gate.max_body, state.limits.body_idle).await?;
    let raw_len = raw.len();
    let max_decoded = gate.max_decoded;
    let unpack = move || {
        let plain = if gzip { otlp::gunzip(&raw, max_decoded)? } else { raw };
        if plain.len() > max_decoded {
            return Err(too_large(max_decoded));
        }
        let request = otlp::decode(&plain, enc)?;
        Ok((plain, request))
    };
    // Inflating and decoding a large body takes milliseconds: off the threads that answer.
    let (plain, request) = if raw_len > INLINE_DECODE {
        tokio::task::spawn_blocking(unpack)
            .await
            .map_err(|e| Failure::new(Kind::Internal, format!("decoding stopped: {e}")))??
    } else {
        unpack()?
    };
    let res = otlp::export(state, graph, request, &plain).await?;
    Ok(otlp::encode_response(&res, enc))
}

fn too_large(max: usize) -> Failure {
    Failure::new(Kind::TooLarge, format!("an OTLP request body may hold at most {} MiB", max >> 20))
}

/// The whole body, refused as soon as it passes `limit` bytes or sends nothing for `idle`.
async fn read_body(body: Body, limit: usize, idle: std::time::Duration) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let mut data = body.into_data_stream();
    loop {
        let next = tokio::time::timeout(idle, data.next()).await.map_err(|_| {
            Failure::new(Kind::Timeout, format!("the body sent nothing for {} s", idle.as_secs_f64()))
        })?;
        let Some(chunk) = next else { return Ok(out) };
        let chunk =
            chunk.map_err(|e| Failure::new(Kind::BadRequest, format!("cannot read the body: {e}")))?;
        if out.len() + chunk.len() > limit {
            return Err(too_large(limit));
        }
        out.extend_from_slice(&chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn content_types() {
        let enc = |t| encoding(&headers(&[("content-type", t)])).map_err(|f| f.http_status());
        assert_eq!(enc("application/x-protobuf"), Ok(Encoding::Protobuf));
        assert_eq!(enc("Application/JSON; charset=utf-8"), Ok(Encoding::Json));
        for t in
            ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "application/grpc"]
        {
            assert_eq!(enc(t), Err(415), "{t}");
        }
        assert_eq!(encoding(&HeaderMap::new()).map_err(|f| f.http_status()), Err(415));
    }

    #[test]
    fn content_encodings() {
        let gz =
            |pairs: &[(&'static str, &'static str)]| gzipped(&headers(pairs)).map_err(|f| f.http_status());
        assert_eq!(gz(&[]), Ok(false));
        assert_eq!(gz(&[("content-encoding", "identity")]), Ok(false));
        assert_eq!(gz(&[("content-encoding", "GZIP")]), Ok(true));
        assert_eq!(gz(&[("content-encoding", "br")]), Err(415));
        assert_eq!(gz(&[("content-encoding", "deflate")]), Err(415));
        // gzip twice would need inflating twice: refused.
        assert_eq!(gz(&[("content-encoding", "gzip, gzip")]), Err(415));
    }
}
