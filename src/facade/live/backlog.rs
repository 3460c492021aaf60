//! A graph's numbered stream: the sequence counter, the fan-out to connected clients, and
//! the recent messages kept for clients that reconnect, bounded in bytes (oldest dropped
//! first; a client that asks for a dropped message gets a `reset`).

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use tokio::sync::broadcast;

use crate::api::StreamMessage;

/// Bytes of recent messages kept per graph unless [`crate::facade::Provex::set_stream_backlog_bytes`]
/// says otherwise.
pub const DEFAULT_BACKLOG_BYTES: usize = 32 << 20;

/// Messages a connected client may fall behind by before it is told it lagged (it then asks
/// the backlog for what it missed).
const CHANNEL: usize = 256;

/// Counts the bytes a message takes as JSON, without keeping them.
struct Count(usize);

impl io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The size of a message as sent (its JSON).
pub(super) fn json_bytes(msg: &StreamMessage) -> usize {
    let mut c = Count(0);
    serde_json::to_writer(&mut c, msg).expect("a stream message serialises");
    c.0
}

/// See the module docs.
pub(super) struct Backlog {
    graph: String,
    seq: u64,
    recent: VecDeque<(Arc<StreamMessage>, usize)>,
    bytes: usize,
    budget: usize,
    tx: broadcast::Sender<Arc<StreamMessage>>,
}

/// What a reconnecting client gets: the messages after the one it saw, or a reset.
pub(super) enum Since {
    Messages(Vec<Arc<StreamMessage>>),
    Reset(Arc<StreamMessage>),
}

impl Backlog {
    pub(super) fn new(graph: &str, budget: usize) -> Backlog {
        let (tx, _) = broadcast::channel(CHANNEL);
        Backlog { graph: graph.to_owned(), seq: 0, recent: VecDeque::new(), bytes: 0, budget, tx }
    }

    /// The number of the last message sent.
    pub(super) fn seq(&self) -> u64 {
        self.seq
    }

    /// The number the next message gets.
    pub(super) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Bytes held now.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.bytes
    }

    pub(super) fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
        self.trim();
    }

    /// Keeps and sends a message numbered by [`Backlog::next_seq`].
    pub(super) fn publish(&mut self, msg: StreamMessage) {
        debug_assert_eq!(msg.seq(), self.seq, "numbered by next_seq");
        let size = json_bytes(&msg);
        let msg = Arc::new(msg);
        self.recent.push_back((msg.clone(), size));
        self.bytes += size;
        self.trim();
        let _ = self.tx.send(msg);
    }

    /// Sends a delta's knowledge-graph changes as one `knowledge` message (none: nothing).
    pub(super) fn publish_knowledge(&mut self, graph: &str, changes: &[crate::api::KnowledgeChange]) {
        if changes.is_empty() {
            return;
        }
        let seq = self.next_seq();
        self.publish(StreamMessage::Knowledge { graph: graph.to_owned(), seq, changes: changes.to_vec() });
    }

    /// Sends a `database` message (the database went away or came back).
    pub(super) fn publish_database(&mut self, state: &str, message: &str) {
        let seq = self.next_seq();
        let graph = self.graph.clone();
        self.publish(StreamMessage::Database {
            graph,
            seq,
            state: state.to_owned(),
            message: message.to_owned(),
        });
    }

    /// Sends a `reset` (the view broke or went away) with the next number.
    pub(super) fn reset(&mut self, reason: &str) {
        let seq = self.next_seq();
        self.publish(StreamMessage::Reset { graph: self.graph.clone(), seq, reason: reason.to_owned() });
    }

    /// Drops the oldest messages over the budget; the newest is always kept.
    fn trim(&mut self) {
        while self.bytes > self.budget && self.recent.len() > 1 {
            let (_, size) = self.recent.pop_front().expect("more than one");
            self.bytes -= size;
        }
    }

    pub(super) fn subscribe(&self) -> broadcast::Receiver<Arc<StreamMessage>> {
        self.tx.subscribe()
    }

    /// The messages after `since`, or a reset when some of them are gone or `since` is from
    /// an older view.
    pub(super) fn since(&self, since: u64) -> Since {
        let oldest = self.recent.front().map_or(self.seq + 1, |(m, _)| m.seq());
        if since > self.seq || since + 1 < oldest {
            let reason = if since > self.seq { "the view was rebuilt" } else { "too far behind" };
            let reset =
                StreamMessage::Reset { graph: self.graph.clone(), seq: self.seq, reason: reason.into() };
            return Since::Reset(Arc::new(reset));
        }
        Since::Messages(self.recent.iter().filter(|(m, _)| m.seq() > since).map(|(m, _)| m.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::NodeMove;

    fn moves(b: &mut Backlog, n: usize) -> usize {
        let seq = b.next_seq();
        let moves = (0..n).map(|i| NodeMove { id: format!("n{i}"), x: 1.0, y: 2.0 }).collect();
        let msg = StreamMessage::Moves { graph: "g".into(), seq, moves };
        let size = json_bytes(&msg);
        b.publish(msg);
        size
    }

    fn seqs(s: Since) -> Vec<u64> {
        match s {
            Since::Messages(m) => m.iter().map(|m| m.seq()).collect(),
            Since::Reset(r) => panic!("unexpected {r:?}"),
        }
    }

    #[test]
    fn json_bytes_is_the_serialised_length() {
        let msg = StreamMessage::Reset { graph: "g".into(), seq: 7, reason: "r".into() };
        assert_eq!(json_bytes(&msg), serde_json::to_vec(&msg).unwrap().len());
    }

    #[test]
    fn the_byte_budget_evicts_the_oldest_and_a_client_behind_it_gets_a_reset() {
        let mut b = Backlog::new("g", usize::MAX);
        let one = moves(&mut b, 10);
        // Room for exactly three messages of this size.
        b.set_budget(3 * one);
        for _ in 0..4 {
            assert_eq!(moves(&mut b, 10), one);
        }
        assert_eq!(b.seq(), 5);
        assert_eq!(b.bytes(), 3 * one);
        assert_eq!(seqs(b.since(2)), vec![3, 4, 5]);
        assert_eq!(seqs(b.since(4)), vec![5]);
        assert_eq!(seqs(b.since(5)), Vec::<u64>::new());
        match b.since(1) {
            Since::Reset(r) => assert_eq!(
                *r,
                StreamMessage::Reset { graph: "g".into(), seq: 5, reason: "too far behind".into() }
            ),
            Since::Messages(m) => panic!("expected a reset, got {m:?}"),
        }
        match b.since(6) {
            Since::Reset(r) => assert_eq!(
                *r,
                StreamMessage::Reset { graph: "g".into(), seq: 5, reason: "the view was rebuilt".into() }
            ),
            Since::Messages(m) => panic!("expected a reset, got {m:?}"),
        }
    }

    #[test]
    fn a_message_over_the_budget_is_kept_alone() {
        let mut b = Backlog::new("g", 100);
        moves(&mut b, 1);
        let big = moves(&mut b, 50);
        assert!(big > 100);
        assert_eq!(b.bytes(), big);
        assert_eq!(seqs(b.since(1)), vec![2]);
        assert!(matches!(b.since(0), Since::Reset(_)));
    }

    #[test]
    fn an_empty_stream_answers_since_zero_with_nothing() {
        let b = Backlog::new("g", 100);
        assert_eq!(seqs(b.since(0)), Vec::<u64>::new());
    }
}
