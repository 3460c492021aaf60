//! Tidy-up of a live view off every lock: the layout is taken out of the view, re-laid on a
//! blocking thread, and put back with its moves. Meanwhile the view still answers reads
//! (its drawing is unchanged until the moves go out) and deltas for it wait in its inbox;
//! other graphs are not touched at all. A preview re-lays a copy of the layout instead,
//! so one viewer can try a tidy-up without changing what anyone else is served.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::state::{panic_text, GraphView};
use crate::api::NodeMove;
use crate::error::{Error, Result};

impl GraphView {
    /// Re-lays the view out, keeping the drawing's order as far as it can; the moves go
    /// out on the stream as one `moves` message, before any delta that arrived meanwhile.
    /// Returns the moves, or `None` when the view broke (the caller drops it).
    ///
    /// The work runs to its end even if the caller stops waiting, so the layout always
    /// goes back into the view.
    pub(super) async fn tidy(self: &Arc<Self>) -> Result<Option<Vec<NodeMove>>> {
        let gate = self.tidying.clone().lock_owned().await;
        let layout = {
            let mut st = self.state();
            if st.broken {
                return Ok(None);
            }
            st.layout.take()
        };
        let Some(mut layout) = layout else {
            return Err(Error::Server(format!("the view of {} is not loaded", self.graph)));
        };
        let view = self.clone();
        let work = tokio::task::spawn_blocking(move || {
            let _one_at_a_time = gate;
            #[cfg(test)]
            if let Some((started, go)) = view.hold_tidy.lock().expect("hold").take() {
                let _ = started.send(());
                let _ = go.recv();
            }
            let started = std::time::Instant::now();
            let moves = catch_unwind(AssertUnwindSafe(|| layout.tidy_up()));
            let mut st = view.state();
            match moves {
                Ok(moves) => {
                    st.layout = Some(layout);
                    let moved = st.apply_moves(moves);
                    drop(st);
                    tracing::debug!(
                        graph = view.graph,
                        moved = moved.len(),
                        ms = started.elapsed().as_millis() as u64,
                        "view tidied"
                    );
                    view.drain().then_some(moved)
                }
                Err(p) => {
                    let reason = format!("the tidy-up of {} panicked: {}", view.graph, panic_text(&*p));
                    tracing::warn!("{reason}; the view will be rebuilt");
                    view.fail(&mut st, &reason);
                    None
                }
            }
        });
        work.await.map_err(|e| Error::Server(format!("tidy-up thread: {e}")))
    }

    /// The moves a tidy-up would make, worked out on a copy of the layout: the view, its
    /// stream and every other viewer see nothing of it. Waits for a tidy-up under way.
    pub(super) async fn tidy_preview(self: &Arc<Self>) -> Result<Vec<NodeMove>> {
        let gate = self.tidying.clone().lock_owned().await;
        let layout = {
            let st = self.state();
            if st.broken {
                return Err(Error::Server(format!(
                    "the view of {} broke; it is loaded again on next use",
                    self.graph
                )));
            }
            st.layout.clone()
        };
        drop(gate);
        let Some(mut layout) = layout else {
            return Err(Error::Server(format!("the view of {} is not loaded", self.graph)));
        };
        let graph = self.graph.clone();
        let moves = tokio::task::spawn_blocking(move || {
            catch_unwind(AssertUnwindSafe(|| layout.tidy_up()))
                .map_err(|p| Error::Server(format!("the tidy-up of {graph} panicked: {}", panic_text(&*p))))
        })
        .await
        .map_err(|e| Error::Server(format!("tidy-up thread: {e}")))??;
        Ok(self.state().preview_moves(moves))
    }
}
