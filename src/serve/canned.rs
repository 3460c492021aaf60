//! hyper answers a request it cannot parse (a malformed request line or header, a target
//! over 64 KiB, headers over its buffer) by itself, before any handler runs, with an empty
//! body. This listener wraps each connection so that such an answer goes out as the API's
//! `{code, message}` JSON with the same status instead: hyper's own writes are recognised by
//! their shape (a 400, 414 or 431 head with `content-length: 0` and no body), which no
//! handler of this server produces.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use axum::serve::Listener;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::api::{ApiError, ErrorCode};

/// A listener whose connections answer hyper's own refusals in JSON.
pub(crate) struct JsonRefusals<L>(pub L);

impl<L: Listener> Listener for JsonRefusals<L> {
    type Io = Conn<L::Io>;
    type Addr = L::Addr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (io, addr) = self.0.accept().await;
        (Conn { inner: io, pending: Vec::new(), at: 0 }, addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// One connection: reads pass through; a write of hyper's own refusal is replaced.
pub(crate) struct Conn<T> {
    inner: T,
    pending: Vec<u8>,
    at: usize,
}

/// The JSON answer for a head hyper wrote on its own, if `head` is one.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    if head.len() > 1024 || !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    let status = text.strip_prefix("HTTP/1.1 ").or_else(|| text.strip_prefix("HTTP/1.0 "))?.get(..3)?;
    let (code, message) = match status {
        "400" => (
            ErrorCode::BadRequest,
            "the request could not be read as HTTP/1.1 (a malformed request line, header or body framing)",
        ),
        "414" => (ErrorCode::UriTooLong, "the request target is longer than this server reads (64 KiB)"),
        "431" => (
            ErrorCode::HeadersTooLarge,
            "the request's headers are larger than this server reads (at most 100 headers, about 400 KiB)",
        ),
        _ => return None,
    };
    let mut lines = text.trim_end().split("\r\n");
    let first = lines.next()?;
    let mut rest = Vec::new();
    let mut empty = false;
    for l in lines {
        let lower = l.to_ascii_lowercase();
        if lower == "content-length: 0" {
            empty = true;
        } else if !lower.starts_with("content-type:") {
            rest.push(l);
        }
    }
    if !empty {
        return None;
    }
    let body = serde_json::to_vec(&ApiError::new(code, message)).ok()?;
    let mut out = format!("{first}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n", body.len());
    for l in rest {
        out.push_str(l);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(&body);
    Some(out)
}

impl<T: AsyncWrite + Unpin> Conn<T> {
    /// Writes what replaced a refusal, before anything else.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.at < self.pending.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.at..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.at += n;
        }
        self.pending.clear();
        self.at = 0;
        Poll::Ready(Ok(()))
    }

    fn intercept(&mut self, cx: &mut Context<'_>, head: &[u8]) -> Option<Poll<io::Result<usize>>> {
        let out = replacement(head)?;
        self.pending = out;
        self.at = 0;
        Some(match self.drain(cx) {
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            // The rest goes out on the next write or flush.
            _ => Poll::Ready(Ok(head.len())),
        })
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Conn<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Conn<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.drain(cx))?;
        if let Some(p) = self.intercept(cx, buf) {
            return p;
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.drain(cx))?;
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if total <= 1024 && total > 0 {
            let head: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
            if let Some(p) = self.intercept(cx, &head) {
                return p;
            }
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_empty_refusals_are_replaced() {
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(replacement(head).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "{out}");
        assert!(out.contains("content-type: application/json\r\n") && out.contains("date: x\r\n"), "{out}");
        let body: serde_json::Value =
            serde_json::from_str(&out[out.find("\r\n\r\n").unwrap() + 4..]).unwrap();
        assert_eq!(body["code"], "headers_too_large");
        assert!(replacement(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n").is_none());
        assert!(replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}").is_none());
    }
}
