//! A graph's stream over a Tauri channel: the same numbered messages as the SSE stream of
//! `provex serve` (src/serve/stream.rs), in sequence order, with the same handling of a
//! receiver that fell behind or whose view was dropped: ask the facade again from the last
//! message sent, which yields the missed messages or a `reset`.

use std::collections::VecDeque;
use std::sync::Arc;

use provex::api::{StreamMessage, StreamRequest};
use provex::facade::Provex;
use tokio::sync::broadcast::{self, error::RecvError};

/// Sends the messages `req` asks for after `since` to `send` until it returns false (the window is
/// gone) or the facade can no longer watch the graph. `backlog` and `rx` come from
/// [`Provex::watch`].
pub async fn forward<F>(
    provex: Arc<Provex>,
    req: StreamRequest,
    since: u64,
    backlog: Vec<Arc<StreamMessage>>,
    rx: broadcast::Receiver<Arc<StreamMessage>>,
    mut send: F,
) where
    F: FnMut(&StreamMessage) -> bool + Send,
{
    let mut last = since;
    let mut queue: VecDeque<Arc<StreamMessage>> = backlog.into();
    let mut rx = Some(rx);
    loop {
        while let Some(msg) = queue.pop_front() {
            match &*msg {
                StreamMessage::Reset { seq, .. } => last = *seq,
                m if m.seq() <= last => continue,
                m => last = m.seq(),
            }
            if !send(&msg) {
                return;
            }
        }
        let received = match rx.as_mut() {
            Some(rx) => rx.recv().await,
            None => Err(RecvError::Closed),
        };
        match received {
            Ok(msg) => queue.push_back(msg),
            // Behind, or the view was dropped (a layout failure or a deleted graph): ask
            // again from the last message sent.
            Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => match provex.watch(&req, last).await {
                Ok((backlog, new_rx)) => {
                    queue.extend(backlog);
                    rx = Some(new_rx);
                }
                Err(e) => {
                    tracing::warn!(graph = %req.graph, "stream ended: {e}");
                    return;
                }
            },
        }
    }
}
