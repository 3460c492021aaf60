//! One command and its reply over a plain connection of its own, with the reply read by a
//! small streaming RESP2 parser. For the whole-graph reads of `provex diff` (replies of
//! 20 MB and more) the `redis` crate's parser took about a second per reply that the server
//! had sent in a quarter of that (docs/BENCHMARKS.md, "Diff"); this one reads at
//! the speed of the socket. TLS connections (`rediss://`) go through the `redis` crate.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A parsed reply (the `redis` crate's value type).
pub use redis::Value;
use redis::{ConnectionAddr, IntoConnectionInfo};
/// The value types of FalkorDB's compact format (its `ValueType`), read here and by
/// `compact` (the reader sits below the decoder, not beside it).
pub(crate) mod kind {
    pub const NULL: i64 = 1;
    pub const STRING: i64 = 2;
    pub const INTEGER: i64 = 3;
    pub const BOOLEAN: i64 = 4;
    pub const DOUBLE: i64 = 5;
    pub const ARRAY: i64 = 6;
    pub const MAP: i64 = 10;
}

/// Nesting deeper than this is refused (FalkorDB's compact replies nest a few levels).
const MAX_DEPTH: usize = 64;

trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

/// Why a command failed: the connection, or the server's error reply.
#[derive(Debug)]
pub enum Failure {
    Connection(String),
    Server(String),
}

fn connection(e: impl std::fmt::Display) -> Failure {
    Failure::Connection(e.to_string())
}

/// Appends one command in RESP form.
fn encode(out: &mut Vec<u8>, args: &[&[u8]]) {
    out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("malformed reply: {what}"))
}

/// The `n` bytes of a bulk string and its CRLF. Read as they come, so that a length no
/// reply can have fails at the end of the input rather than allocating it up front.
fn bulk_bytes<R: BufRead>(r: &mut R, n: usize) -> io::Result<Vec<u8>> {
    let want = n.checked_add(2).ok_or_else(|| bad("length"))?;
    let mut data = Vec::with_capacity(want.min(1 << 20));
    r.take(want as u64).read_to_end(&mut data)?;
    if data.len() < want {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed mid-reply"));
    }
    if !data.ends_with(b"\r\n") {
        return Err(bad("bulk string without CRLF"));
    }
    data.truncate(n);
    Ok(data)
}

fn number(body: &[u8]) -> io::Result<i64> {
    std::str::from_utf8(body).ok().and_then(|s| s.parse().ok()).ok_or_else(|| bad("not a number"))
}

/// Reads one RESP2 value. A server error reply is returned as [`Value::ServerError`]-like
/// text in `Err` of the outer result's `Ok`: `Ok(Err(message))`.
pub fn read_value<R: BufRead>(r: &mut R) -> io::Result<std::result::Result<Value, String>> {
    let mut line = Vec::with_capacity(64);
    read_at(r, &mut line, 0)
}

fn read_at<R: BufRead>(
    r: &mut R,
    line: &mut Vec<u8>,
    depth: usize,
) -> io::Result<std::result::Result<Value, String>> {
    if depth > MAX_DEPTH {
        return Err(bad("nested too deeply"));
    }
    line.clear();
    if r.read_until(b'\n', line)? == 0 {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed mid-reply"));
    }
    if line.len() < 3 || !line.ends_with(b"\r\n") {
        return Err(bad("line without CRLF"));
    }
    let body = &line[1..line.len() - 2];
    Ok(Ok(match line[0] {
        b'+' => Value::SimpleString(String::from_utf8_lossy(body).into_owned()),
        b'-' => return Ok(Err(String::from_utf8_lossy(body).into_owned())),
        b':' => Value::Int(number(body)?),
        b'$' => {
            let n = number(body)?;
            if n < 0 {
                Value::Nil
            } else {
                let n = usize::try_from(n).map_err(|_| bad("length"))?;
                Value::BulkString(bulk_bytes(r, n)?)
            }
        }
        b'*' => {
            let n = number(body)?;
            if n < 0 {
                Value::Nil
            } else {
                let n = usize::try_from(n).map_err(|_| bad("length"))?;
                let mut items = Vec::with_capacity(n.min(1 << 12));
                for _ in 0..n {
                    match read_at(r, line, depth + 1)? {
                        Ok(v) => items.push(v),
                        Err(e) => return Ok(Err(e)),
                    }
                }
                Value::Array(items)
            }
        }
        _ => return Err(bad("unknown type byte")),
    }))
}

/// Reads a line and returns its type byte and body (without CRLF).
fn head<R: BufRead>(r: &mut R, line: &mut Vec<u8>) -> io::Result<u8> {
    line.clear();
    if r.read_until(b'\n', line)? == 0 {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed mid-reply"));
    }
    if line.len() < 3 || !line.ends_with(b"\r\n") {
        return Err(bad("line without CRLF"));
    }
    let tag = line[0];
    line.truncate(line.len() - 2);
    line.remove(0);
    Ok(tag)
}

/// A bulk string's bytes (`None` for a null bulk string).
fn bulk<R: BufRead>(r: &mut R, line: &mut Vec<u8>) -> io::Result<Option<Vec<u8>>> {
    match head(r, line)? {
        b'$' => {
            let n = number(line)?;
            if n < 0 {
                return Ok(None);
            }
            let n = usize::try_from(n).map_err(|_| bad("length"))?;
            Ok(Some(bulk_bytes(r, n)?))
        }
        b'+' => Ok(Some(line.clone())),
        _ => Err(bad("expected a string")),
    }
}

fn owned(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// An array's length (`*n`).
fn array_len<R: BufRead>(r: &mut R, line: &mut Vec<u8>) -> io::Result<usize> {
    match head(r, line)? {
        b'*' => usize::try_from(number(line)?).map_err(|_| bad("length")),
        _ => Err(bad("expected an array")),
    }
}

fn float(f: f64) -> serde_json::Value {
    serde_json::Number::from_f64(f).map(serde_json::Value::Number).unwrap_or(serde_json::Value::Null)
}

/// One value of FalkorDB's compact format (`[type, value]`), read straight into JSON, as
/// `compact::decode` makes it from a parsed reply.
pub fn compact_value<R: BufRead>(
    r: &mut R,
    line: &mut Vec<u8>,
    depth: usize,
) -> io::Result<serde_json::Value> {
    use serde_json::Value as J;
    // `depth` counts arrays as the generic parser does: this value's pair is at `depth`, what
    // it holds at `depth + 1`, the pairs inside that at `depth + 2`.
    if depth + 1 > MAX_DEPTH {
        return Err(bad("nested too deeply"));
    }
    if array_len(r, line)? != 2 {
        return Err(bad("a compact value is a pair"));
    }
    let kind = match head(r, line)? {
        b':' => number(line)?,
        _ => return Err(bad("a compact value's type is an integer")),
    };
    let text = |b: Option<Vec<u8>>| b.map(owned);
    Ok(match kind {
        kind::NULL => match read_at(r, line, depth + 1)? {
            Ok(_) => J::Null,
            Err(e) => return Err(bad(&e)),
        },
        kind::STRING => text(bulk(r, line)?).map(J::String).unwrap_or(J::Null),
        kind::INTEGER => match head(r, line)? {
            b':' => J::from(number(line)?),
            _ => return Err(bad("an integer")),
        },
        kind::BOOLEAN => J::Bool(bulk(r, line)?.as_deref() == Some(b"true")),
        kind::DOUBLE => text(bulk(r, line)?).and_then(|s| s.parse().ok()).map(float).unwrap_or(J::Null),
        kind::ARRAY => {
            let n = array_len(r, line)?;
            let mut items = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                items.push(compact_value(r, line, depth + 2)?);
            }
            J::Array(items)
        }
        kind::MAP => {
            let n = array_len(r, line)?;
            if n % 2 != 0 {
                return Err(bad("a map's array holds key and value pairs"));
            }
            let mut m = serde_json::Map::new();
            for _ in 0..n / 2 {
                let k = bulk(r, line)?.map(owned).unwrap_or_default();
                let v = compact_value(r, line, depth + 2)?;
                m.insert(k, v);
            }
            J::Object(m)
        }
        _ => match read_at(r, line, depth + 1)? {
            Ok(Value::Nil) => J::Null,
            Ok(Value::BulkString(b)) => J::String(owned(b)),
            Ok(Value::SimpleString(s)) => J::String(s),
            Ok(Value::Int(i)) => J::from(i),
            Ok(other) => J::String(format!("{other:?}")),
            Err(e) => return Err(bad(&e)),
        },
    })
}

/// The rows of a compact graph-query reply (`[header, rows, statistics]`), each column as
/// JSON; a reply without rows (no RETURN) has none. A server error is `Ok(Err(message))`.
pub fn compact_rows<R: BufRead>(
    r: &mut R,
) -> io::Result<std::result::Result<Vec<Vec<serde_json::Value>>, String>> {
    let mut line = Vec::with_capacity(64);
    let parts = match head(r, &mut line)? {
        b'*' => usize::try_from(number(&line)?).map_err(|_| bad("length"))?,
        b'-' => return Ok(Err(owned(line))),
        _ => return Err(bad("a graph reply is an array")),
    };
    if parts < 3 {
        for _ in 0..parts {
            if let Err(e) = read_at(r, &mut line, 1)? {
                return Ok(Err(e));
            }
        }
        return Ok(Ok(Vec::new()));
    }
    if let Err(e) = read_at(r, &mut line, 1)? {
        return Ok(Err(e));
    }
    let n = array_len(r, &mut line)?;
    let mut rows = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let cols = array_len(r, &mut line)?;
        let mut row = Vec::with_capacity(cols.min(1 << 10));
        for _ in 0..cols {
            // [header, rows, stats] › rows › row › this column's pair: three arrays down.
            row.push(compact_value(r, &mut line, 3)?);
        }
        rows.push(row);
    }
    for _ in 2..parts {
        if let Err(e) = read_at(r, &mut line, 1)? {
            return Ok(Err(e));
        }
    }
    Ok(Ok(rows))
}

fn open(url: &str, timeout: Duration) -> std::result::Result<Option<Box<dyn Stream>>, Failure> {
    let info = url.into_connection_info().map_err(connection)?;
    let stream: Box<dyn Stream> = match info.addr() {
        ConnectionAddr::Tcp(host, port) => {
            let s = TcpStream::connect((host.as_str(), *port)).map_err(connection)?;
            s.set_read_timeout(Some(timeout)).map_err(connection)?;
            s.set_nodelay(true).map_err(connection)?;
            Box::new(s)
        }
        #[cfg(unix)]
        ConnectionAddr::Unix(path) => {
            let s = std::os::unix::net::UnixStream::connect(path).map_err(connection)?;
            s.set_read_timeout(Some(timeout)).map_err(connection)?;
            Box::new(s)
        }
        _ => return Ok(None),
    };
    let settings = info.redis_settings();
    let mut hello = Vec::new();
    let mut replies = 0;
    if let Some(password) = settings.password() {
        match settings.username() {
            Some(user) => encode(&mut hello, &[b"AUTH", user.as_bytes(), password.as_bytes()]),
            None => encode(&mut hello, &[b"AUTH", password.as_bytes()]),
        }
        replies += 1;
    }
    if settings.db() != 0 {
        encode(&mut hello, &[b"SELECT", settings.db().to_string().as_bytes()]);
        replies += 1;
    }
    let mut stream = stream;
    if replies > 0 {
        stream.write_all(&hello).map_err(connection)?;
        let mut r = BufReader::new(&mut stream);
        for _ in 0..replies {
            if let Err(e) = read_value(&mut r).map_err(connection)? {
                return Err(Failure::Connection(e));
            }
        }
    }
    Ok(Some(stream))
}

/// Sends one graph query on a new connection to `url` and reads its compact reply's rows;
/// `Ok(None)` when the URL needs what this reader does not do (TLS), so the caller uses the
/// `redis` crate.
pub fn compact_query(
    url: &str,
    args: &[&[u8]],
    timeout: Duration,
) -> std::result::Result<Option<Vec<Vec<serde_json::Value>>>, Failure> {
    let Some(mut stream) = open(url, timeout)? else { return Ok(None) };
    let mut out = Vec::new();
    encode(&mut out, args);
    stream.write_all(&out).map_err(connection)?;
    let mut r = BufReader::with_capacity(1 << 20, stream);
    match compact_rows(&mut r).map_err(connection)? {
        Ok(rows) => Ok(Some(rows)),
        Err(message) => Err(Failure::Server(message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> io::Result<std::result::Result<Value, String>> {
        read_value(&mut io::Cursor::new(bytes))
    }

    #[test]
    fn reads_every_resp2_type() {
        let reply = b"*5\r\n+OK\r\n:-12\r\n$5\r\na\r\nb!\r\n$-1\r\n*2\r\n*0\r\n$0\r\n\r\n";
        assert_eq!(
            parse(reply).unwrap().unwrap(),
            Value::Array(vec![
                Value::SimpleString("OK".into()),
                Value::Int(-12),
                Value::BulkString(b"a\r\nb!".to_vec()),
                Value::Nil,
                Value::Array(vec![Value::Array(vec![]), Value::BulkString(vec![])]),
            ])
        );
    }

    #[test]
    fn a_server_error_is_its_message() {
        assert_eq!(parse(b"-ERR no such graph\r\n").unwrap(), Err("ERR no such graph".into()));
        assert_eq!(parse(b"*2\r\n:1\r\n-ERR inner\r\n").unwrap(), Err("ERR inner".into()));
    }

    #[test]
    fn malformed_and_truncated_replies_are_errors_not_panics() {
        for bytes in
            [&b""[..], b"*2\r\n:1\r\n", b"$5\r\nab\r\n", b"?x\r\n", b":x\r\n", b"$3\r\nabcde", b":1\n"]
        {
            assert!(parse(bytes).is_err(), "{:?}", String::from_utf8_lossy(bytes));
        }
        let deep = "*1\r\n".repeat(MAX_DEPTH + 2) + ":1\r\n";
        assert!(parse(deep.as_bytes()).is_err());
        let ok = "*1\r\n".repeat(MAX_DEPTH - 1) + ":1\r\n";
        assert!(parse(ok.as_bytes()).unwrap().is_ok());
    }

    #[test]
    fn compact_rows_read_straight_into_json() {
        use serde_json::json;
        let reply = b"*3\r\n*2\r\n*2\r\n:1\r\n$1\r\na\r\n*2\r\n:1\r\n$1\r\nb\r\n\
*1\r\n*2\r\n*2\r\n:3\r\n:7\r\n*2\r\n:10\r\n*6\r\n$1\r\nk\r\n*2\r\n:2\r\n$2\r\nv\"\r\n\
$1\r\nd\r\n*2\r\n:5\r\n$3\r\n0.5\r\n$1\r\nl\r\n*2\r\n:6\r\n*2\r\n*2\r\n:4\r\n$4\r\ntrue\r\n*2\r\n:1\r\n$-1\r\n\
*1\r\n$10\r\nstats here\r\n";
        let rows = compact_rows(&mut io::Cursor::new(&reply[..])).unwrap().unwrap();
        assert_eq!(rows, vec![vec![json!(7), json!({"k": "v\"", "d": 0.5, "l": [true, null]})]]);
        // The same reply parsed generically and decoded gives the same JSON.
        let Ok(Value::Array(mut parts)) = read_value(&mut io::Cursor::new(&reply[..])).unwrap() else {
            panic!()
        };
        let Value::Array(generic) = parts.swap_remove(1) else { panic!() };
        let Value::Array(cols) = generic.into_iter().next().unwrap() else { panic!() };
        assert_eq!(cols.into_iter().map(super::super::compact::decode).collect::<Vec<_>>(), rows[0]);
        assert_eq!(
            compact_rows(&mut io::Cursor::new(&b"-ERR boom\r\n"[..])).unwrap(),
            Err("ERR boom".into())
        );
        assert!(compact_rows(&mut io::Cursor::new(&reply[..reply.len() - 9])).is_err(), "truncated");
    }

    #[test]
    fn commands_are_encoded_as_resp_arrays() {
        let mut out = Vec::new();
        encode(&mut out, &[b"GRAPH.RO_QUERY", b"g", b"MATCH (n) RETURN n"]);
        assert_eq!(out, b"*3\r\n$14\r\nGRAPH.RO_QUERY\r\n$1\r\ng\r\n$18\r\nMATCH (n) RETURN n\r\n");
    }
}
