//! The FalkorDB URL a user gives (`--falkordb`, `PROVEX_FALKORDB`, the desktop settings): one
//! server (`redis://`, `rediss://`), or a Redis Cluster by several seed nodes
//! (`redis+cluster://host:port,host:port`, `rediss+cluster://…`), each with an optional
//! `read_from=replicas` in its query (reads of views and explore may be served by replicas,
//! see docs/SCALING.md). It is outside input, so it is read in bounded time and memory: at
//! most [`MAX_URL_BYTES`] and [`MAX_NODES`] seed nodes, and every refusal names the URL with
//! its password hidden.

use crate::error::{Error, Result};

/// The longest URL read (a cluster of [`MAX_NODES`] seeds named by address fits).
pub const MAX_URL_BYTES: usize = 16 * 1024;

/// The most seed nodes a cluster URL may name (Redis Cluster's own advice is at most 1,000
/// nodes; a client needs one that answers).
pub const MAX_NODES: usize = 1_000;

/// Where read-only queries of views and explore go on a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadFrom {
    /// Every command goes to the primary owning its key (the default).
    #[default]
    Primaries,
    /// Views and explore read from a replica of the owning shard (`READONLY`); writes, and
    /// the reads an ingest makes, still go to the primary.
    Replicas,
}

/// A FalkorDB URL, read: one `redis://` or `rediss://` URL per seed node (with the user,
/// password, path and query of the whole, `read_from` taken out), whether it asked for a
/// cluster (`redis+cluster://`), and where reads go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterUrl {
    pub nodes: Vec<String>,
    pub declared: bool,
    pub read_from: ReadFrom,
}

/// Reads `url` (see the module docs); a refusal is a usage error naming the URL with its
/// password hidden and the reason.
pub fn parse(url: &str) -> Result<ClusterUrl> {
    if url.len() > MAX_URL_BYTES {
        return Err(Error::Usage(format!(
            "the FalkorDB URL is {} bytes long; at most {MAX_URL_BYTES} are read",
            url.len()
        )));
    }
    parse_shown(url, &super::redact(url))
}

/// [`parse`] with the URL as messages show it.
fn parse_shown(url: &str, shown: &str) -> Result<ClusterUrl> {
    let Some((scheme, rest)) = url.split_once("://") else {
        super::check_url(url, shown)?;
        return Ok(ClusterUrl {
            nodes: vec![url.to_owned()],
            declared: false,
            read_from: ReadFrom::Primaries,
        });
    };
    let declared = match scheme.to_ascii_lowercase().as_str() {
        "redis+cluster" => Some("redis"),
        "rediss+cluster" => Some("rediss"),
        _ => None,
    };
    // The user and password end at the last `@` (a password may hold an unencoded `@`).
    let (userinfo, after) = match rest.rfind('@') {
        Some(at) => (&rest[..=at], &rest[at + 1..]),
        None => ("", rest),
    };
    // The `url` crate (and the `redis` crate after it) would end the host at one of these and
    // take the password for a host, port or path; messages would then show it.
    if userinfo.contains(['/', '?', '#']) {
        return Err(Error::Usage(format!(
            "{shown}: the part before the last `@` holds `/`, `?` or `#`; percent-encode them in a user or password (%2F, %3F, %23), and an `@` after the host (%40)"
        )));
    }
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (hosts, tail) = after.split_at(end);
    let (tail, read_from) = take_read_from(tail, shown)?;
    let Some(base) = declared else {
        let one = format!("{scheme}://{userinfo}{hosts}{tail}");
        super::check_url(&one, shown)?;
        return Ok(ClusterUrl { nodes: vec![one], declared: false, read_from });
    };
    if hosts.is_empty() {
        return Err(Error::Usage(format!("{shown}: the URL names no host")));
    }
    let count = hosts.split(',').count();
    if count > MAX_NODES {
        return Err(Error::Usage(format!(
            "{shown}: the URL names {count} nodes; at most {MAX_NODES} (one that answers is enough)"
        )));
    }
    let mut nodes = Vec::with_capacity(count);
    for host in hosts.split(',') {
        if host.is_empty() {
            return Err(Error::Usage(format!(
                "{shown}: an empty node in the list; a cluster URL is {scheme}://host:port,host:port"
            )));
        }
        let one = format!("{base}://{userinfo}{host}{tail}");
        super::check_url(&one, shown)?;
        let db =
            url::Url::parse(&one).ok().map(|u| u.path().trim_matches('/').to_owned()).unwrap_or_default();
        if !(db.is_empty() || db == "0") {
            return Err(Error::Usage(format!(
                "{shown}: a Redis Cluster has database 0 only, and the URL names database {db}"
            )));
        }
        nodes.push(one);
    }
    Ok(ClusterUrl { nodes, declared: true, read_from })
}

/// Takes `read_from=…` out of the query of `tail` (the path, query and fragment after the
/// hosts): the rest of the tail as it was, and where reads go.
fn take_read_from(tail: &str, shown: &str) -> Result<(String, ReadFrom)> {
    let fragment_at = tail.find('#').unwrap_or(tail.len());
    let Some(q) = tail[..fragment_at].find('?') else { return Ok((tail.to_owned(), ReadFrom::Primaries)) };
    let (path, query_and_fragment) = tail.split_at(q);
    let query_and_fragment = &query_and_fragment[1..];
    let (query, fragment) = match query_and_fragment.find('#') {
        Some(h) => query_and_fragment.split_at(h),
        None => (query_and_fragment, ""),
    };
    let mut read_from = None;
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name != "read_from" {
            kept.push(pair);
            continue;
        }
        let chosen = match value.to_ascii_lowercase().as_str() {
            "replicas" | "replica" => ReadFrom::Replicas,
            "primaries" | "primary" => ReadFrom::Primaries,
            _ => {
                return Err(Error::Usage(format!(
                "{shown}: read_from={value} is not a choice; use read_from=replicas or read_from=primaries"
            )))
            }
        };
        if read_from.is_some_and(|r| r != chosen) {
            return Err(Error::Usage(format!("{shown}: read_from is given twice, differently")));
        }
        read_from = Some(chosen);
    }
    let Some(read_from) = read_from else { return Ok((tail.to_owned(), ReadFrom::Primaries)) };
    let mut out = path.to_owned();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out.push_str(fragment);
    Ok((out, read_from))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(u: &str) -> std::result::Result<(Vec<String>, bool), String> {
        parse(u).map(|c| (c.nodes, c.declared)).map_err(|e| e.to_string())
    }

    #[test]
    fn cluster_urls_name_one_url_per_node() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            nodes("redis+cluster://h1:7000,h2:7001"),
            Ok((v(&["redis://h1:7000", "redis://h2:7001"]), true))
        );
        assert_eq!(
            nodes("rediss+cluster://ann:p%40ss@[::1]:7000,db.example/0?protocol=resp3"),
            Ok((
                v(&[
                    "rediss://ann:p%40ss@[::1]:7000/0?protocol=resp3",
                    "rediss://ann:p%40ss@db.example/0?protocol=resp3"
                ]),
                true
            ))
        );
        assert_eq!(nodes("REDIS+CLUSTER://h:1"), Ok((v(&["redis://h:1"]), true)));
        assert_eq!(nodes("redis://h:1"), Ok((v(&["redis://h:1"]), false)));
        assert_eq!(nodes("redis+cluster://"), Err("redis+cluster://: the URL names no host".into()));
        let usage = |u: &str| match parse(u) {
            Err(Error::Usage(m)) => m,
            other => panic!("{u}: {other:?}"),
        };
        assert_eq!(
            usage("redis+cluster://u:pw@h1:1,,h2:2"),
            "redis+cluster://***@h1:1,,h2:2: an empty node in the list; a cluster URL is redis+cluster://host:port,host:port"
        );
        assert_eq!(
            usage("redis+cluster://u:pw@h1:1,h2:x"),
            "redis+cluster://***@h1:1,h2:x: not a URL (invalid port number); a FalkorDB URL is redis://host:port"
        );
        assert_eq!(
            usage("redis+cluster://h1:1,h2:2/3"),
            "redis+cluster://h1:1,h2:2/3: a Redis Cluster has database 0 only, and the URL names database 3"
        );
        assert_eq!(
            usage("redis://u:12/Secret@h:1"),
            "redis://***@h:1: the part before the last `@` holds `/`, `?` or `#`; percent-encode them in a user or password (%2F, %3F, %23), and an `@` after the host (%40)"
        );
        assert_eq!(
            usage("localhost:6379"),
            "localhost:6379: a FalkorDB URL starts with redis:// or rediss:// (a Redis Cluster: redis+cluster:// or rediss+cluster://)"
        );
    }

    #[test]
    fn read_from_is_taken_out_of_every_node() {
        let p = |u: &str| parse(u).unwrap();
        let c = p("redis+cluster://u:pw@h1:1,h2:2/0?read_from=replicas&protocol=resp3#x");
        assert_eq!(c.read_from, ReadFrom::Replicas);
        assert_eq!(
            c.nodes,
            vec!["redis://u:pw@h1:1/0?protocol=resp3#x", "redis://u:pw@h2:2/0?protocol=resp3#x"]
        );
        let c = p("redis://h:1?read_from=replicas");
        assert_eq!(
            (c.nodes, c.declared, c.read_from),
            (vec!["redis://h:1".to_owned()], false, ReadFrom::Replicas)
        );
        assert_eq!(p("redis+cluster://h:1?read_from=primaries").read_from, ReadFrom::Primaries);
        assert_eq!(p("redis+cluster://h:1?a=1").nodes, vec!["redis://h:1?a=1"]);
        assert_eq!(p("redis+cluster://h:1").read_from, ReadFrom::Primaries);
        // In a fragment it is no query parameter.
        assert_eq!(p("redis+cluster://h:1#?read_from=all").nodes, vec!["redis://h:1#?read_from=all"]);
        let usage = |u: &str| parse(u).unwrap_err().to_string();
        assert_eq!(
            usage("redis+cluster://u:secret@h:1?read_from=all"),
            "redis+cluster://***@h:1?read_from=all: read_from=all is not a choice; use read_from=replicas or read_from=primaries"
        );
        assert!(usage("redis+cluster://h:1?read_from=replicas&read_from=primaries").contains("given twice"));
    }

    #[test]
    fn long_urls_and_long_node_lists_are_refused_without_echoing_them() {
        let many = format!("redis+cluster://{}", vec!["h:1"; MAX_NODES].join(","));
        assert_eq!(parse(&many).unwrap().nodes.len(), MAX_NODES);
        let too_many = format!("{many},h:2");
        assert!(parse(&too_many).unwrap_err().to_string().contains("names 1001 nodes; at most 1000"));
        let long = format!("redis://u:{}@h:1", "p".repeat(MAX_URL_BYTES));
        let e = parse(&long).unwrap_err().to_string();
        assert!(e.contains("at most 16384") && !e.contains("ppp"), "{e}");
    }
}
