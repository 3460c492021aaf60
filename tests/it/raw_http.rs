//! A raw HTTP/1.1 connection to `provex serve`, for what a client library will not send:
//! bodies written piece by piece, cut mid-line or left idle, and malformed requests.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::serve::TOKEN;

/// A raw HTTP/1.1 connection.
pub(crate) struct Raw {
    pub(crate) sock: TcpStream,
    pub(crate) addr: String,
}

/// An answer: status, head and body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
}

impl Answer {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", self.head, self.body))
    }
}

impl Raw {
    pub(crate) fn open(base: &str) -> Raw {
        let addr = base.trim_start_matches("http://").to_owned();
        let sock = TcpStream::connect(&addr).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        Raw { sock, addr }
    }

    /// Starts a chunked POST of the events endpoint.
    pub(crate) fn events(base: &str, graph: &str) -> Raw {
        let mut r = Raw::open(base);
        let addr = r.addr.clone();
        r.write(&format!(
            "POST /api/graphs/{graph}/events HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
        ));
        r
    }

    pub(crate) fn write(&mut self, text: &str) {
        self.write_bytes(text.as_bytes());
    }

    /// Sends bytes as they are (a header that is not text, say).
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) {
        self.sock.write_all(bytes).unwrap();
        self.sock.flush().unwrap();
    }

    pub(crate) fn chunk(&mut self, text: &str) {
        self.write(&format!("{:x}\r\n{text}\r\n", text.len()));
    }

    /// Sends a chunk unless the server already closed the connection.
    pub(crate) fn try_chunk(&mut self, text: &str) -> bool {
        self.sock.write_all(format!("{:x}\r\n{text}\r\n", text.len()).as_bytes()).is_ok()
    }

    /// Ends a chunked body and reads the answer.
    pub(crate) fn finish(mut self) -> Answer {
        self.write("0\r\n\r\n");
        self.answer()
    }

    /// Reads one answer (its body by `content-length`, or to the end of the connection).
    pub(crate) fn answer(&mut self) -> Answer {
        let mut buf = Vec::new();
        let mut piece = [0u8; 8192];
        loop {
            let text = String::from_utf8_lossy(&buf).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let head = text[..end].to_owned();
                let len = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned())
                    })
                    .and_then(|v| v.parse::<usize>().ok());
                if len.is_some_and(|n| buf.len() >= end + 4 + n) {
                    let status = head[9..12].parse().unwrap();
                    let body = String::from_utf8_lossy(&buf[end + 4..end + 4 + len.unwrap()]).into_owned();
                    return Answer { status, head, body };
                }
            }
            let n = match self.sock.read(&mut piece) {
                Ok(n) => n,
                Err(e) if !buf.is_empty() => panic!("{e}: {}", String::from_utf8_lossy(&buf)),
                Err(e) => panic!("{e}"),
            };
            if n == 0 {
                let text = String::from_utf8_lossy(&buf).into_owned();
                let end = text.find("\r\n\r\n").unwrap_or_else(|| panic!("no answer: {text:?}"));
                let status = text[9..12].parse().unwrap();
                return Answer { status, head: text[..end].to_owned(), body: text[end + 4..].to_owned() };
            }
            buf.extend_from_slice(&piece[..n]);
        }
    }
}
