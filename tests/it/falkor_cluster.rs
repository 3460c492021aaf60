//! A real three-shard FalkorDB cluster, started once for the whole test binary and shared
//! by the cluster tests (each with graph names of its own): three primaries and one replica
//! of each, six `redis-server` processes with the FalkorDB module and `cluster-enabled yes`,
//! each with its own port, cluster bus port and `cluster-config-file` in a temp folder. The
//! primaries take a third of the slots each (`CLUSTER ADDSLOTSRANGE`), every node joins with
//! `CLUSTER MEET`, and each replica follows its primary (`CLUSTER REPLICATE`); ready once
//! every node says `cluster_state:ok` and knows the others, and every replica's link to its
//! primary is up. Also the steps of moving a slot from one shard to another, as
//! `redis-cli --cluster reshard` takes them.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use provex::store::cluster::{key_slot, SLOTS};
use provex::store::server::ServerBinaries;

/// The shards.
pub const SHARDS: usize = 3;

/// One node: a primary owning a third of the slots at start.
pub struct Node {
    pub port: u16,
    pub id: String,
}

pub struct Cluster {
    /// The primaries, shard by shard.
    pub nodes: Vec<Node>,
    /// The replica of each shard, in the shards' order.
    pub replicas: Vec<Node>,
}

static CLUSTER: OnceLock<Cluster> = OnceLock::new();

/// The shared cluster (started by the first test that asks).
pub fn cluster() -> &'static Cluster {
    CLUSTER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        // The servers die with the thread that started them (PR_SET_PDEATHSIG): it lives as
        // long as the test process.
        std::thread::spawn(move || {
            let dir = tempfile::tempdir().expect("temp dir");
            // Again on fresh ports when a node could not start: a port found free may be
            // taken by another test's server before this one binds it.
            let mut failed = Vec::new();
            for attempt in 0..3 {
                let mut children = Vec::new();
                match start(&dir.path().join(format!("try{attempt}")), &mut children) {
                    Ok(cluster) => {
                        tx.send(Ok(cluster)).unwrap();
                        // Kept (with the folder) for as long as the test process runs.
                        let _children = children;
                        loop {
                            std::thread::park();
                        }
                    }
                    Err(e) => {
                        for child in &mut children {
                            let _ = child.kill();
                            let _ = child.wait();
                        }
                        failed.push(e);
                    }
                }
            }
            tx.send(Err(failed.join("; "))).unwrap();
        });
        rx.recv().unwrap().expect("start a three-shard FalkorDB cluster")
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start(dir: &std::path::Path, children: &mut Vec<Child>) -> Result<Cluster, String> {
    let bins = ServerBinaries::locate().map_err(|e| e.to_string())?;
    let mut nodes = Vec::new();
    // Primaries first, then their replicas.
    for i in 0..2 * SHARDS {
        let (port, bus) = (free_port(), free_port());
        let data = dir.join(format!("node{i}"));
        std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&bins.redis_server);
        cmd.args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--daemonize", "no"])
            .args(["--cluster-enabled", "yes", "--cluster-port", &bus.to_string()])
            .args(["--cluster-config-file", &data.join("nodes.conf").to_string_lossy()])
            .args(["--cluster-node-timeout", "5000"])
            .args(["--dir", &data.to_string_lossy(), "--save", ""])
            // A replica's first copy is sent at once, over the socket.
            .args(["--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"])
            // The lag test holds a replica still with DEBUG SLEEP.
            .args(["--enable-debug-command", "yes"])
            .args(["--loglevel", "warning", "--logfile", &data.join("redis.log").to_string_lossy()])
            .arg("--loadmodule")
            .arg(&bins.module)
            .args(["TIMEOUT_DEFAULT", "10000", "TIMEOUT_MAX", "60000", "EFFECTS_THRESHOLD", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if i < SHARDS {
            // Each primary keeps an append-only file: the durability barrier waits on each.
            cmd.args(["--appendonly", "yes", "--appendfsync", "always"]);
        }
        die_with_parent(&mut cmd);
        children.push(cmd.spawn().map_err(|e| format!("cannot run redis-server: {e}"))?);
        nodes.push((port, bus));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut cons = Vec::new();
    for (&(port, _), child) in nodes.iter().zip(children.iter_mut()) {
        cons.push(wait_connect(port, child, deadline)?);
    }
    let third = SLOTS / SHARDS as u16;
    for (i, con) in cons.iter_mut().enumerate().take(SHARDS) {
        let lo = third * i as u16;
        let hi = if i == SHARDS - 1 { SLOTS - 1 } else { third * (i as u16 + 1) - 1 };
        redis::cmd("CLUSTER").arg("ADDSLOTSRANGE").arg(lo).arg(hi).exec(con).map_err(|e| e.to_string())?;
    }
    for &(port, bus) in &nodes[1..] {
        redis::cmd("CLUSTER")
            .arg("MEET")
            .arg("127.0.0.1")
            .arg(port)
            .arg(bus)
            .exec(&mut cons[0])
            .map_err(|e| e.to_string())?;
    }
    let mut ids = Vec::new();
    for con in &mut cons {
        ids.push(redis::cmd("CLUSTER").arg("MYID").query::<String>(con).map_err(|e| e.to_string())?);
    }
    // Each replica follows its primary once it has heard of it.
    for shard in 0..SHARDS {
        loop {
            let known: String = redis::cmd("CLUSTER")
                .arg("NODES")
                .query(&mut cons[SHARDS + shard])
                .map_err(|e| e.to_string())?;
            if known.contains(&ids[shard]) {
                break;
            }
            if Instant::now() > deadline {
                return Err(format!("replica {shard} never heard of its primary (see {})", dir.display()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        redis::cmd("CLUSTER")
            .arg("REPLICATE")
            .arg(&ids[shard])
            .exec(&mut cons[SHARDS + shard])
            .map_err(|e| e.to_string())?;
    }
    // Ready: every node sees the whole cluster, with every slot served, and every replica
    // has its primary's data.
    loop {
        let ready = cons.iter_mut().enumerate().all(|(i, con)| {
            let info: String = redis::cmd("CLUSTER").arg("INFO").query(con).unwrap_or_default();
            let replicating = i < SHARDS || {
                let repl: String = redis::cmd("INFO").arg("replication").query(con).unwrap_or_default();
                repl.contains("master_link_status:up")
            };
            replicating
                && info.contains("cluster_state:ok")
                && info.contains(&format!("cluster_known_nodes:{}", 2 * SHARDS))
        });
        if ready {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("the cluster did not come up in time (see {})", dir.display()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // A replica is listed by `CLUSTER SLOTS` (so known to clients) once the others know it
    // holds data, a replication offset above 0 spread by gossip: a write on each primary, then
    // wait until every primary lists a replica for every range.
    for (shard, con) in cons.iter_mut().enumerate().take(SHARDS) {
        let lo = third * shard as u16;
        let hi = if shard == SHARDS - 1 { SLOTS - 1 } else { third * (shard as u16 + 1) - 1 };
        let key = (0..).map(|n| format!("harness:{n}")).find(|k| (lo..=hi).contains(&key_slot(k))).unwrap();
        redis::cmd("SET").arg(key).arg(1).exec(con).map_err(|e| e.to_string())?;
    }
    loop {
        let listed = cons.iter_mut().take(SHARDS).all(|con| {
            let slots: Vec<Vec<redis::Value>> =
                redis::cmd("CLUSTER").arg("SLOTS").query(con).unwrap_or_default();
            !slots.is_empty() && slots.iter().all(|entry| entry.len() > 3)
        });
        if listed {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("CLUSTER SLOTS never listed the replicas (see {})", dir.display()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut all = nodes.into_iter().zip(ids).map(|((port, _), id)| Node { port, id });
    let primaries = all.by_ref().take(SHARDS).collect();
    Ok(Cluster { nodes: primaries, replicas: all.collect() })
}

fn wait_connect(port: u16, child: &mut Child, deadline: Instant) -> Result<redis::Connection, String> {
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("the node for port {port} exited ({status}): the port was taken?"));
        }
        let tried = redis::Client::open(format!("redis://127.0.0.1:{port}"))
            .and_then(|c| c.get_connection_with_timeout(Duration::from_millis(500)))
            .and_then(|mut con| redis::cmd("GRAPH.LIST").query::<Vec<String>>(&mut con).map(|_| con));
        match tried {
            Ok(con) => return Ok(con),
            Err(e) if Instant::now() > deadline => return Err(format!("node on port {port}: {e}")),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

impl Cluster {
    /// The cluster's URL with every node as a seed.
    pub fn url(&self) -> String {
        let nodes: Vec<String> = self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
        format!("redis+cluster://{}", nodes.join(","))
    }

    /// A plain URL of one node.
    pub fn node_url(&self, i: usize) -> String {
        format!("redis://127.0.0.1:{}", self.nodes[i].port)
    }

    /// A connection to one node, not following redirects (to look at what it holds).
    pub fn node(&self, i: usize) -> redis::Connection {
        redis::Client::open(self.node_url(i)).unwrap().get_connection().unwrap()
    }

    /// A connection to the replica of shard `i`.
    pub fn replica(&self, i: usize) -> redis::Connection {
        let url = format!("redis://127.0.0.1:{}", self.replicas[i].port);
        redis::Client::open(url).unwrap().get_connection().unwrap()
    }

    /// The graphs node `i` holds itself.
    pub fn graphs_on(&self, i: usize) -> Vec<String> {
        redis::cmd("GRAPH.LIST").query(&mut self.node(i)).unwrap()
    }

    /// Each slot range and the shard owning it now, as node 0 sees it.
    pub fn ranges(&self) -> Vec<(u16, u16, usize)> {
        let slots: Vec<Vec<redis::Value>> =
            redis::cmd("CLUSTER").arg("SLOTS").query(&mut self.node(0)).unwrap();
        let int = |v: &redis::Value| match v {
            redis::Value::Int(i) => *i,
            other => panic!("{other:?}"),
        };
        slots
            .iter()
            .map(|entry| {
                let redis::Value::Array(primary) = &entry[2] else { panic!("{entry:?}") };
                let port = int(&primary[1]) as u16;
                let shard = self.nodes.iter().position(|n| n.port == port).expect("a node of ours");
                (int(&entry[0]) as u16, int(&entry[1]) as u16, shard)
            })
            .collect()
    }

    /// The shard owning `slot` now, as node 0 sees it.
    pub fn owner(&self, slot: u16) -> usize {
        self.ranges().iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&slot)).expect("slot served").2
    }

    /// A graph name starting with `prefix` whose key shard `shard` owns now.
    pub fn graph_on(&self, shard: usize, prefix: &str) -> String {
        let ranges = self.ranges();
        let pid = std::process::id();
        (0..)
            .map(|n| format!("{prefix}_{pid}_{n}"))
            .find(|name| {
                let slot = key_slot(name);
                ranges.iter().any(|&(lo, hi, s)| s == shard && (lo..=hi).contains(&slot))
            })
            .unwrap()
    }

    /// Starts moving `slot` from its owner to shard `to`: `IMPORTING` on the target,
    /// `MIGRATING` on the source. Until [`Move::migrate_keys`], the source serves the keys
    /// it still holds and answers `ASK` for the others.
    pub fn begin_move(&self, slot: u16, to: usize) -> Move<'_> {
        let from = self.owner(slot);
        assert_ne!(from, to, "slot {slot} is on shard {to} already");
        redis::cmd("CLUSTER")
            .arg("SETSLOT")
            .arg(slot)
            .arg("IMPORTING")
            .arg(&self.nodes[from].id)
            .exec(&mut self.node(to))
            .unwrap();
        redis::cmd("CLUSTER")
            .arg("SETSLOT")
            .arg(slot)
            .arg("MIGRATING")
            .arg(&self.nodes[to].id)
            .exec(&mut self.node(from))
            .unwrap();
        Move { cluster: self, slot, from, to }
    }
}

/// A slot on its way from one shard to another.
pub struct Move<'a> {
    cluster: &'a Cluster,
    pub slot: u16,
    pub from: usize,
    pub to: usize,
}

impl Move<'_> {
    /// Moves every key of the slot to the target (`MIGRATE`); returns the keys moved.
    pub fn migrate_keys(&self) -> Vec<String> {
        let mut source = self.cluster.node(self.from);
        let mut moved = Vec::new();
        loop {
            let keys: Vec<String> = redis::cmd("CLUSTER")
                .arg("GETKEYSINSLOT")
                .arg(self.slot)
                .arg(100)
                .query(&mut source)
                .unwrap();
            if keys.is_empty() {
                return moved;
            }
            redis::cmd("MIGRATE")
                .arg("127.0.0.1")
                .arg(self.cluster.nodes[self.to].port)
                .arg("")
                .arg(0)
                .arg(10_000)
                .arg("KEYS")
                .arg(&keys)
                .exec(&mut source)
                .unwrap();
            moved.extend(keys);
        }
    }

    /// Gives the slot to the target for good (`SETSLOT … NODE` on the target, the source,
    /// then every other node), and waits until every node says so.
    pub fn finish(self) {
        let c = self.cluster;
        let id = &c.nodes[self.to].id;
        let order =
            [self.to, self.from].into_iter().chain((0..SHARDS).filter(|i| *i != self.to && *i != self.from));
        for i in order {
            redis::cmd("CLUSTER")
                .arg("SETSLOT")
                .arg(self.slot)
                .arg("NODE")
                .arg(id)
                .exec(&mut c.node(i))
                .unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while c.owner(self.slot) != self.to {
            assert!(Instant::now() < deadline, "slot {} never showed on shard {}", self.slot, self.to);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
