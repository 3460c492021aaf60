//! Who may reach `provex serve` over HTTP: a token made at each start guards loopback too
//! (and is kept in a file only its owner reads); a browser's request from another origin
//! (another port of localhost included) is refused by its `Origin` or `Sec-Fetch-Site`,
//! with or without the token; a request that changes something and could come from a web
//! form is refused; the Host header is present once, in text. Regressions of the finding
//! that any web page could write into a local Provex with `text/plain` posts.

use std::sync::Arc;
use std::time::Duration;

use provex::facade::Provex;
use provex::serve::{self, Running, ServeOptions};
use serde_json::{json, Value};

use crate::common;
use crate::serve::{anonymous, client, TOKEN};

/// `provex serve` on loopback with no token given, the made token kept under `token_dir`.
async fn serve_without_token(provex: Arc<Provex>, token_dir: &std::path::Path) -> (Running, String) {
    let opts = ServeOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: None,
        token_dir: Some(token_dir.to_owned()),
        ui: Some(std::env::temp_dir().join("provex-no-ui-here")),
        open: false,
        allow_dirs: Vec::new(),
        limits: Default::default(),
    };
    let running = serve::start(provex, opts).await.expect("serve");
    let base = format!("http://{}", running.addr);
    (running, base)
}

#[tokio::test(flavor = "multi_thread")]
async fn loopback_without_a_token_given_makes_one_and_needs_it() {
    let (provex, graph) = common::open("origin_made").await;
    let provex = Arc::new(provex);
    let dir = tempfile::tempdir().unwrap();
    let (running, base) = serve_without_token(provex.clone(), dir.path()).await;
    let token = running.token().to_owned();
    assert_eq!(token.len(), 48, "{token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
    // The token file: the token, readable by its owner only, named after the port.
    let file = serve::token_file(dir.path(), running.addr.port());
    assert_eq!(running.token_file(), Some(file.as_path()));
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // No token: nothing is read nor written, on any route that reaches a graph.
    let http = anonymous();
    let r = http.get(format!("{base}/api/graphs")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "unauthorized");
    let r = http.get(format!("{base}/api/graphs/{graph}/stream?since=0")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let r = http
        .post(format!("{base}/api/graphs/{graph}/events?format=a2a"))
        .header("content-type", "application/x-ndjson")
        .body(first_event())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = http
        .post(format!("{base}/graphql?graph={graph}"))
        .json(&json!({"query": "{ triples { subject } }"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = http.post(format!("{base}/a2a/{graph}")).json(&kg_update()).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(!provex.graphs().await.unwrap().contains(&graph), "nothing was written");
    // The token opens every door.
    let r = http.get(format!("{base}/api/graphs")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = http.get(format!("{base}/api/health?token={token}")).send().await.unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["auth"], true);
    let r =
        http.post(format!("{base}/a2a/{graph}")).bearer_auth(&token).json(&kg_update()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.json::<Value>().await.unwrap()["result"].is_object());
    // Each start makes another token; stopping removes the file.
    let (again, _) = serve_without_token(provex.clone(), dir.path()).await;
    assert_ne!(again.token(), token);
    running.stop().await;
    assert!(!file.exists(), "the token file is removed at stop");
    let again_file = again.token_file().unwrap().to_owned();
    assert!(again_file.exists());
    again.stop().await;
    assert!(!again_file.exists());
    provex.delete_graph(&graph).await.unwrap();
}

fn first_event() -> String {
    let text = std::fs::read_to_string(common::repo().join("examples/a2a-run.jsonl")).unwrap();
    text.lines().next().unwrap().to_owned() + "\n"
}

fn kg_update() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "knowledge/update", "params": {
        "mutations": [{"op": "add", "statement": {"subject": {"id": "ex:Riverton"},
            "predicate": {"id": "ex:hasMayor"}, "object": {"id": "ex:Mallory"}, "certainty": 0.99}}],
        "sourceAgentId": "urn:agent:attacker", "justification": "planted"}})
}

/// What a page elsewhere sends without asking first: a POST whose body is `text/plain`.
struct Simple {
    path: String,
    body: String,
}

fn simple_posts(graph: &str) -> Vec<Simple> {
    vec![
        Simple { path: format!("/api/graphs/{graph}/events?format=a2a"), body: first_event() },
        Simple { path: format!("/api/graphs/{graph}/upload?name=x.jsonl"), body: first_event() },
        Simple { path: format!("/api/graphs/{graph}/demo"), body: String::new() },
        Simple { path: format!("/api/graphs/{graph}/tidy"), body: String::new() },
        Simple { path: format!("/a2a/{graph}"), body: kg_update().to_string() },
        Simple {
            path: format!("/graphql?graph={graph}"),
            body: json!({"query": "{ triples { subject } }"}).to_string(),
        },
    ]
}

/// Refused as a request from another page: 403 `forbidden_origin`, no CORS grant.
async fn assert_refused(r: reqwest::Response, what: &str) {
    assert_eq!(r.status(), 403, "{what}");
    assert!(r.headers().get("access-control-allow-origin").is_none(), "{what}: no CORS grant");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "forbidden_origin", "{what}: {body}");
    assert!(!body["message"].as_str().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_on_other_origins_can_neither_write_nor_read() {
    let (provex, graph, running, base) = crate::serve::start("origin_pages", None).await;
    let port = running.addr.port();
    let other = format!("http://127.0.0.1:{}", port.wrapping_add(1).max(1));
    // Even holding the token (as a page never does), a foreign Origin or a cross-site or
    // same-site fetch is refused, so the check stands on its own.
    for with_token in [false, true] {
        for s in simple_posts(&graph) {
            for (name, value) in [
                ("origin", other.as_str()),
                ("origin", "http://localhost:1"),
                ("origin", "null"),
                ("sec-fetch-site", "cross-site"),
                ("sec-fetch-site", "same-site"),
            ] {
                let mut req = anonymous()
                    .post(format!("{base}{}", s.path))
                    .header("content-type", "text/plain;charset=UTF-8")
                    .header(name, value)
                    .body(s.body.clone());
                if with_token {
                    req = req.bearer_auth(TOKEN);
                }
                assert_refused(req.send().await.unwrap(), &format!("POST {} {name}: {value}", s.path)).await;
            }
        }
        // Reads, and the stream, likewise.
        for path in [
            "/api/graphs".to_owned(),
            format!("/api/graphs/{graph}/stats"),
            format!("/api/graphs/{graph}/stream?since=0"),
            format!("/graphql?graph={graph}&query=%7Btriples%7Bsubject%7D%7D"),
        ] {
            let mut req = anonymous().get(format!("{base}{path}")).header("origin", &other);
            if with_token {
                req = req.bearer_auth(TOKEN);
            }
            assert_refused(req.send().await.unwrap(), &format!("GET {path}")).await;
            let mut req = anonymous().get(format!("{base}{path}")).header("sec-fetch-site", "cross-site");
            if with_token {
                req = req.bearer_auth(TOKEN);
            }
            assert_refused(req.send().await.unwrap(), &format!("GET {path} cross-site")).await;
        }
    }
    // A preflight from elsewhere gets no CORS grant either.
    let r = anonymous()
        .request(reqwest::Method::OPTIONS, format!("{base}/api/graphs/{graph}/events"))
        .header("origin", &other)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization, content-type")
        .send()
        .await
        .unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());
    assert!(!r.status().is_success(), "{}", r.status());
    assert!(!provex.graphs().await.unwrap().contains(&graph), "nothing was created");
    assert!(provex.jobs().is_empty(), "no job was started");
    // Provex's own pages: their Origin is the server's, their fetches same-origin.
    for own in [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")] {
        let host = own.trim_start_matches("http://").to_owned();
        let r = client()
            .post(format!("{base}/api/graphs/{graph}/events?format=a2a"))
            .header("host", &host)
            .header("origin", &own)
            .header("sec-fetch-site", "same-origin")
            .header("content-type", "application/x-ndjson")
            .body(first_event())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{own}: {}", r.text().await.unwrap());
    }
    // The address bar (`none`) and tools (no header) read.
    for site in [Some("none"), None] {
        let mut req = client().get(format!("{base}/api/graphs"));
        if let Some(s) = site {
            req = req.header("sec-fetch-site", s);
        }
        let r = req.send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert!(r.json::<Vec<String>>().await.unwrap().contains(&graph));
    }
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

/// A change needs what a web form cannot send: the `Authorization` header, or a content
/// type other than a form's. A token in the query alone (which a page could have read from
/// somewhere) does not make a form's post acceptable.
#[tokio::test(flavor = "multi_thread")]
async fn a_change_carries_what_a_form_cannot_send() {
    let (provex, graph, running, base) = crate::serve::start("origin_forms", None).await;
    let http = anonymous();
    for s in simple_posts(&graph) {
        let sep = if s.path.contains('?') { '&' } else { '?' };
        let url = format!("{base}{}{sep}token={TOKEN}", s.path);
        for ct in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("TEXT/PLAIN; charset=utf-8"),
        ] {
            let mut req = http.post(&url).body(s.body.clone());
            if let Some(ct) = ct {
                req = req.header("content-type", ct);
            }
            assert_refused(req.send().await.unwrap(), &format!("POST {} as {ct:?}", s.path)).await;
        }
    }
    let r = http.delete(format!("{base}/api/graphs/{graph}?token={TOKEN}")).send().await.unwrap();
    assert_refused(r, "DELETE with the token in the query").await;
    assert!(!provex.graphs().await.unwrap().contains(&graph), "nothing was created");
    assert!(provex.jobs().is_empty(), "no job was started");
    // With the header, or a content type no form sends, the same requests work.
    let r = http.post(format!("{base}/api/graphs/{graph}/tidy")).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = http
        .post(format!("{base}/api/graphs/{graph}/events?format=a2a&token={TOKEN}"))
        .header("content-type", "application/x-ndjson")
        .body(first_event())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r = http
        .post(format!("{base}/api/graphs/{graph}/events?format=a2a"))
        .bearer_auth(TOKEN)
        .header("content-type", "text/plain")
        .body(first_event())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // A JSON-RPC client with the token in the body, as seed 004's does.
    let mut update = kg_update();
    update["params"]["metadata"] = json!({"token": TOKEN});
    let r = http.post(format!("{base}/a2a/{graph}")).json(&update).send().await.unwrap();
    assert_eq!(r.status(), 200);
    running.stop().await;
    provex.delete_graph(&graph).await.unwrap();
}

/// Sends `head` (request line and headers, without the blank line) on a raw connection and
/// returns the status and the body.
fn raw(addr: std::net::SocketAddr, head: &[u8]) -> (u16, String) {
    let mut r = crate::raw_http::Raw::open(&addr.to_string());
    r.write_bytes(head);
    r.write("Connection: close\r\n\r\n");
    let answer = r.answer();
    (answer.status, answer.body)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_host_header_is_present_once_and_text() {
    let (_provex, _graph, running, _base) = crate::serve::start("origin_host", None).await;
    let addr = running.addr;
    let auth = format!("Authorization: Bearer {TOKEN}\r\n");
    let get = |extra: &[u8]| {
        let mut head = b"GET /api/graphs HTTP/1.1\r\n".to_vec();
        head.extend_from_slice(auth.as_bytes());
        head.extend_from_slice(extra);
        raw(addr, &head)
    };
    let (status, body) = get(format!("Host: {addr}\r\n").as_bytes());
    assert_eq!(status, 200, "{body}");
    for (what, extra) in [
        ("no Host", Vec::new()),
        ("two Hosts", format!("Host: {addr}\r\nHost: {addr}\r\n").into_bytes()),
        ("two Hosts, the second foreign", format!("Host: {addr}\r\nHost: evil.example\r\n").into_bytes()),
        ("a Host in bytes that are not text", b"Host: 127.0.0.1\xff\xfe\r\n".to_vec()),
        ("an empty Host", b"Host: \r\n".to_vec()),
    ] {
        let (status, body) = get(&extra);
        assert_eq!(status, 400, "{what}: {body}");
        let e: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{what}: {body}"));
        assert_eq!(e["code"], "bad_request", "{what}: {e}");
    }
    // A target naming another host than the Host header.
    let head = format!("GET http://evil.example/api/graphs HTTP/1.1\r\n{auth}Host: {addr}\r\n");
    let (status, body) = raw(addr, head.as_bytes());
    assert_eq!(status, 400, "{body}");
    // The UI's files too are only served to a request that names its host.
    let (status, _) = raw(addr, b"GET / HTTP/1.1\r\n");
    assert_eq!(status, 400);
    running.stop().await;
}

/// `serve --open` hands the browser a page in the data folder (the owner's only) that goes on
/// to the address with the token, so the token is never in a command line that other users
/// can list; the page and the token file are removed when the server stops.
#[cfg(unix)]
#[test]
fn open_gives_the_browser_a_private_page_not_the_token() {
    use std::io::BufRead;
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let asked = bin.path().join("asked");
    let opener = bin.path().join("xdg-open");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\nprintf '%s' \"$*\" > {}.part\nmv {0}.part {0}\n", asked.display()),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("provex"))
        .args(["--falkordb", common::url(), "--data-dir"])
        .arg(data.path())
        .args(["serve", "--bind", "127.0.0.1:0", "--open", "--ui"])
        .arg(data.path())
        .env("PATH", path)
        .env_remove("PROVEX_TOKEN")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let url = loop {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "serve ended before listening");
        if let Some(rest) = line.split("serving on ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let port: u16 = url.split(':').nth(2).unwrap().split('/').next().unwrap().parse().unwrap();
    let token_file = serve::token_file(data.path(), port);
    let token = std::fs::read_to_string(&token_file).unwrap().trim().to_owned();
    assert!(url.contains(&format!("token={token}")), "{url}");

    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !asked.exists() {
        assert!(std::time::Instant::now() < deadline, "the browser was never asked to open anything");
        std::thread::sleep(Duration::from_millis(50));
    }
    let argument = std::fs::read_to_string(&asked).unwrap();
    assert!(!argument.contains(&token), "the token is on the browser's command line: {argument}");
    let page = std::path::PathBuf::from(&argument);
    assert!(page.starts_with(data.path()), "{argument}");
    assert_eq!(std::fs::metadata(&page).unwrap().permissions().mode() & 0o777, 0o600);
    let html = std::fs::read_to_string(&page).unwrap();
    let href = url.replace('&', "&amp;");
    assert!(html.contains(&format!("content=\"0;url={href}\"")), "{html}");
    assert!(html.contains(&format!("<a href=\"{href}\">")), "{html}");

    // SIGTERM: the page and the token file go with the server.
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(child.wait().unwrap().success());
    assert!(!page.exists(), "the page outlived the server");
    assert!(!token_file.exists(), "the token file outlived the server");
}
