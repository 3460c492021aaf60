//! A graph's stream as server-sent events: one event per message, `id:` its sequence
//! number, `data:` the message as JSON. A client that reconnects with `?since=<seq>` (or
//! `Last-Event-ID`) gets what it missed, or a `reset` when that is gone.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::api::{StreamMessage, StreamRequest};
use crate::facade::Provex;

struct State {
    provex: Arc<Provex>,
    req: StreamRequest,
    last: u64,
    queue: VecDeque<Arc<StreamMessage>>,
    rx: Option<broadcast::Receiver<Arc<StreamMessage>>>,
}

fn event(msg: &StreamMessage) -> Event {
    let data = serde_json::to_string(msg).expect("stream messages serialise");
    Event::default().id(msg.seq().to_string()).data(data)
}

/// The event stream `req` asks for, after `since`.
pub fn events(
    provex: Arc<Provex>,
    req: StreamRequest,
    since: u64,
    backlog: Vec<Arc<StreamMessage>>,
    rx: broadcast::Receiver<Arc<StreamMessage>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let state = State { provex, req, last: since, queue: backlog.into(), rx: Some(rx) };
    let s = stream::unfold(state, |mut st| async move {
        loop {
            if let Some(msg) = st.queue.pop_front() {
                match &*msg {
                    StreamMessage::Reset { seq, .. } => st.last = *seq,
                    m if m.seq() <= st.last => continue,
                    m => st.last = m.seq(),
                }
                let ev = event(&msg);
                return Some((Ok(ev), st));
            }
            let received = match st.rx.as_mut() {
                Some(rx) => rx.recv().await,
                None => Err(RecvError::Closed),
            };
            match received {
                Ok(msg) => st.queue.push_back(msg),
                // Behind, or the view was dropped (a layout failure or a deleted graph):
                // ask again from the last message sent.
                Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => {
                    match st.provex.watch(&st.req, st.last).await {
                        Ok((backlog, rx)) => {
                            st.queue.extend(backlog);
                            st.rx = Some(rx);
                        }
                        Err(e) => {
                            tracing::warn!(graph = %st.req.graph, "stream ended: {e}");
                            return None;
                        }
                    }
                }
            }
        }
    });
    Sse::new(s).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
