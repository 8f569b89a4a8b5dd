//! A subscription's bounded queue (the Subscriber). The hub pushes without ever waiting; when the
//! queue is full the event is counted as dropped, and the reader gets one `gap` event carrying
//! that count before its next event. So a consumer that stops reading costs a bounded amount of
//! memory however long it sleeps.
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use protocol::events::Event;
use tokio::sync::Notify;

/// Default events buffered per subscription.
pub const DEFAULT_QUEUE: usize = 256;

struct Inner {
    events: VecDeque<Arc<Event>>,
    dropped: u64,
    closed: bool,
}

pub struct EventQueue {
    capacity: usize,
    inner: Mutex<Inner>,
    ready: Notify,
}

impl EventQueue {
    pub fn new(capacity: usize) -> Arc<Self> {
        Arc::new(EventQueue {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner {
                events: VecDeque::new(),
                dropped: 0,
                closed: false,
            }),
            ready: Notify::new(),
        })
    }

    pub fn push(&self, event: Arc<Event>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.closed {
            return;
        }
        if inner.events.len() >= self.capacity {
            inner.dropped += 1;
        } else {
            inner.events.push_back(event);
        }
        drop(inner);
        self.ready.notify_one();
    }

    /// No more events will come; a reader waiting in `next` gets `None`.
    pub fn close(&self) {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.ready.notify_one();
    }

    /// The next event if one is queued now (a pending gap counts), without waiting.
    pub fn try_next(&self) -> Option<Arc<Event>> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.dropped > 0 {
            let dropped = std::mem::take(&mut inner.dropped);
            return Some(Arc::new(Event::gap(
                dropped,
                crate::event_hub::unix_nanos(),
            )));
        }
        inner.events.pop_front()
    }

    /// The next event, with a `gap` first when some were dropped; `None` once closed and empty.
    pub async fn next(&self) -> Option<Arc<Event>> {
        loop {
            {
                let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
                if inner.dropped > 0 {
                    let dropped = std::mem::take(&mut inner.dropped);
                    return Some(Arc::new(Event::gap(
                        dropped,
                        crate::event_hub::unix_nanos(),
                    )));
                }
                if let Some(e) = inner.events.pop_front() {
                    return Some(e);
                }
                if inner.closed {
                    return None;
                }
            }
            self.ready.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64) -> Arc<Event> {
        let mut e = Event::new("output");
        e.seq = seq;
        Arc::new(e)
    }

    #[actix_rt::test]
    async fn overflow_yields_one_gap_then_the_kept_events() {
        let q = EventQueue::new(2);
        for i in 1..=5 {
            q.push(ev(i));
        }
        let gap = q.next().await.unwrap();
        assert_eq!((gap.kind, gap.dropped), ("gap", 3));
        assert_eq!(q.next().await.unwrap().seq, 1);
        assert_eq!(q.next().await.unwrap().seq, 2);
        q.close();
        assert!(q.next().await.is_none());
    }
}
