//! What one `provex serve` allows request bodies, so that no client (nor many at once) can
//! take its threads, memory or time: how many bodies are read at once (past that, 503 with
//! `Retry-After`), how long a body may send nothing before it is cut (408, the whole lines
//! before it kept), the longest line, and the memory all unfinished lines share.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use futures_util::Stream;
use std::future::Future;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

use crate::facade::{BodyLimits, Payload};
use crate::ingest::LineBudget;

/// The limits of one server.
#[derive(Debug, Clone)]
pub struct ServeLimits {
    /// Request bodies streamed in at once (`/events`, `/upload`).
    pub max_bodies: usize,
    /// How long a body may send nothing before the server stops reading it.
    pub body_idle: Duration,
    /// The longest line of an `/events` body; a longer one is rejected, the body goes on.
    pub max_line_bytes: usize,
    /// The memory every `/events` body's unfinished lines share.
    pub line_budget_bytes: usize,
    /// How long, on SIGTERM or Ctrl-C, open requests have to finish before they are dropped.
    pub shutdown_grace: Duration,
    /// OTLP trace exports (HTTP and gRPC together) stored at once; past that, exporters are
    /// told to retry (429 or gRPC `UNAVAILABLE`, after `Retry-After`).
    pub otlp_max_exports: usize,
    /// The largest OTLP request body as sent (compressed or not).
    pub otlp_max_body_bytes: usize,
    /// The largest OTLP request once decompressed.
    pub otlp_max_decoded_bytes: usize,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            max_bodies: 64,
            body_idle: Duration::from_secs(30),
            max_line_bytes: crate::ingest::DEFAULT_MAX_LINE_BYTES,
            line_budget_bytes: 128 << 20,
            shutdown_grace: Duration::from_secs(2),
            otlp_max_exports: 16,
            otlp_max_body_bytes: 16 << 20,
            otlp_max_decoded_bytes: 32 << 20,
        }
    }
}

/// The limits as the handlers hold them.
#[derive(Clone)]
pub(crate) struct Limits {
    pub slots: Arc<Semaphore>,
    pub max_bodies: usize,
    pub body_idle: Duration,
    pub body: BodyLimits,
    /// The OTLP receiver's exports at once and request sizes.
    pub otlp: super::otlp::Gate,
}

impl Limits {
    pub fn new(l: &ServeLimits) -> Limits {
        Limits {
            slots: Arc::new(Semaphore::new(l.max_bodies)),
            max_bodies: l.max_bodies,
            body_idle: l.body_idle,
            body: BodyLimits {
                max_line_bytes: l.max_line_bytes,
                line_budget: Some(LineBudget::new(l.line_budget_bytes)),
            },
            otlp: super::otlp::Gate::new(l.otlp_max_exports, l.otlp_max_body_bytes, l.otlp_max_decoded_bytes),
        }
    }

    /// A slot for one streamed body, if one is free.
    pub fn slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().try_acquire_owned().ok()
    }
}

/// A body held to the server's limits: it ends with a `TimedOut` error when nothing came for
/// the idle time, and holds its slot until it is dropped.
pub(crate) struct Guarded {
    inner: Payload,
    idle: Duration,
    sleep: Pin<Box<Sleep>>,
    done: bool,
    _slot: OwnedSemaphorePermit,
}

impl Guarded {
    pub fn new(inner: Payload, idle: Duration, slot: OwnedSemaphorePermit) -> Guarded {
        Guarded { inner, idle, sleep: Box::pin(tokio::time::sleep(idle)), done: false, _slot: slot }
    }
}

impl Stream for Guarded {
    type Item = std::io::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        match self.inner.as_mut().poll_next(cx) {
            Poll::Ready(Some(item)) => {
                let deadline = Instant::now() + self.idle;
                self.sleep.as_mut().reset(deadline);
                if item.is_err() {
                    self.done = true;
                }
                Poll::Ready(Some(item))
            }
            Poll::Ready(None) => {
                self.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => match self.sleep.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.done = true;
                    let secs = self.idle.as_secs_f64();
                    Poll::Ready(Some(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("the body sent nothing for {secs} s, so the server stopped reading it"),
                    ))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }
}
