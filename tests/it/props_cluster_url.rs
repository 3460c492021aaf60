//! Property tests of the FalkorDB URL (`provex::store::cluster_url::parse`): any text is read
//! or refused with a reason (the fuzz target's check); a cluster URL built from random seed
//! nodes, user, password, database, query and `read_from` gives one URL per node, in order,
//! each with the whole's user, password, database and query and without `read_from`; and a
//! broken one is refused without showing its password.

use proptest::prelude::*;
use provex::store::cluster_url::{parse, ReadFrom};

use crate::fuzz_regressions::url_checks;

fn host() -> impl Strategy<Value = String> {
    let name = "[a-z][a-z0-9-]{0,9}(\\.[a-z]{1,6}){0,2}";
    let ipv4 =
        (0u8..=255, 0u8..=255, 0u8..=255, 1u8..=254).prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}"));
    let host = prop_oneof![name.prop_map(String::from), ipv4, Just("[::1]".to_owned())];
    (host, proptest::option::of(1u16..=65_535))
        .prop_map(|(h, port)| port.map_or(h.clone(), |p| format!("{h}:{p}")))
}

/// The parts of a cluster URL.
#[derive(Debug, Clone)]
struct Parts {
    tls: bool,
    hosts: Vec<String>,
    user: Option<(String, String)>,
    db0: bool,
    params: Vec<(String, String)>,
    read_from: Option<(bool, usize)>,
}

fn parts() -> impl Strategy<Value = Parts> {
    (
        any::<bool>(),
        proptest::collection::vec(host(), 1..8),
        // The password: an upper-case letter and a digit first, which no host, user or
        // query value holds, so it can be looked for in messages.
        proptest::option::of(("[a-z]{0,8}", "[A-Z][0-9][A-Za-z0-9%!*~]{6,14}")),
        any::<bool>(),
        proptest::collection::vec(("[a-z]{1,6}", "[a-z0-9]{0,6}"), 0..3),
        proptest::option::of((any::<bool>(), 0usize..4)),
    )
        .prop_map(|(tls, hosts, user, db0, params, read_from)| Parts {
            tls,
            hosts,
            user: user.map(|(u, p)| (u, p.replace('%', "%25"))),
            db0,
            params: params.into_iter().filter(|(k, _)| k != "read_from").collect(),
            read_from,
        })
}

impl Parts {
    fn userinfo(&self) -> String {
        self.user.as_ref().map_or(String::new(), |(u, p)| format!("{u}:{p}@"))
    }

    fn query(&self, with_read_from: bool) -> String {
        let mut pairs: Vec<String> = self.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if let (true, Some((replicas, at))) = (with_read_from, self.read_from) {
            let value = if replicas { "replicas" } else { "primaries" };
            pairs.insert(at.min(pairs.len()), format!("read_from={value}"));
        }
        if pairs.is_empty() {
            String::new()
        } else {
            format!("?{}", pairs.join("&"))
        }
    }

    fn tail(&self, with_read_from: bool) -> String {
        format!("{}{}", if self.db0 { "/0" } else { "" }, self.query(with_read_from))
    }

    fn url(&self) -> String {
        let scheme = if self.tls { "rediss+cluster" } else { "redis+cluster" };
        format!("{scheme}://{}{}{}", self.userinfo(), self.hosts.join(","), self.tail(true))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_text_is_read_or_refused_with_a_reason(text in "\\PC{0,200}") {
        url_checks::cluster_url(text.as_bytes());
    }

    #[test]
    fn url_like_text_is_read_or_refused_with_a_reason(
        scheme in "(redis|rediss|redis\\+cluster|rediss\\+cluster|http)",
        rest in "[a-zA-Z0-9:@/?&=,.\\[\\]%#-]{0,80}",
    ) {
        url_checks::cluster_url(format!("{scheme}://{rest}").as_bytes());
    }

    #[test]
    fn a_cluster_url_gives_one_url_per_node_in_order(p in parts()) {
        let read = parse(&p.url()).unwrap();
        let base = if p.tls { "rediss" } else { "redis" };
        let expected: Vec<String> =
            p.hosts.iter().map(|h| format!("{base}://{}{h}{}", p.userinfo(), p.tail(false))).collect();
        prop_assert_eq!(&read.nodes, &expected);
        prop_assert!(read.declared);
        let read_from = match p.read_from {
            Some((true, _)) => ReadFrom::Replicas,
            _ => ReadFrom::Primaries,
        };
        prop_assert_eq!(read.read_from, read_from);
        url_checks::cluster_url(p.url().as_bytes());
    }

    #[test]
    fn a_broken_cluster_url_is_refused_without_showing_its_password(p in parts(), how in 0usize..5, at in any::<prop::sample::Index>()) {
        prop_assume!(p.user.is_some());
        let mut hosts = p.hosts.clone();
        let i = at.index(hosts.len());
        let url = match how {
            0 => { hosts[i] = format!("{}:x", hosts[i].split(':').next().unwrap()); Parts { hosts, ..p.clone() }.url() }
            1 => { hosts.insert(i, String::new()); Parts { hosts, ..p.clone() }.url() }
            2 => p.url().replacen(&p.hosts.join(","), &format!("{}/3", p.hosts.join(",")), 1).replace("/3/0", "/3"),
            3 => format!("{}{}read_from=anywhere", p.url(), if p.url().contains('?') { "&" } else { "?" }),
            _ => p.url().replacen("redis", "http", 1),
        };
        let message = parse(&url).unwrap_err().to_string();
        let password = &p.user.as_ref().unwrap().1;
        prop_assert!(!message.contains(password.as_str()), "{} shows {}", message, password);
        prop_assert!(!message.is_empty());
    }
}
