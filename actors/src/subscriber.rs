//! The Subscriber actor: one per event subscription (a client's `subscribe`, or a wait that
//! listens to the hub). It owns the subscription's bounded queue and feeds its consumer (the
//! connection's writer, or a waiter) through a small channel as fast as the consumer takes
//! events. The hub never waits on it: when the queue is full (in events or in bytes) the event
//! is counted as dropped, and the consumer gets one `gap` event carrying that count before its
//! next event. So a consumer that stops reading costs a bounded amount of memory however long
//! it sleeps.
use std::collections::VecDeque;
use std::sync::Arc;

use actix::prelude::*;
use protocol::events::{Event, EventFilter};
use tokio::sync::mpsc;

use crate::event_hub::{
    Deliver, EndSubscription, EventHub, Subscribe, SubscriberLink, SubscriptionKind, Unsubscribe,
};

/// Default events buffered per subscription.
pub const DEFAULT_QUEUE: usize = 256;
/// Most events a subscription may buffer, whatever `queue` asks for.
pub const MAX_QUEUE: usize = 16_384;
/// Most bytes (estimated, as serialized) a subscription may buffer.
pub const MAX_QUEUE_BYTES: usize = 4 << 20;
/// Events handed to the consumer ahead of its reads (the rest wait in the queue).
const HANDOFF: usize = 8;
/// Deliveries the hub may have queued in the subscriber's mailbox; beyond it the hub counts
/// drops itself (the subscriber's thread is busy).
pub const MAILBOX: usize = 256;

/// The hub accepted the subscription under this id.
#[derive(Message)]
#[rtype(result = "()")]
struct Registered(u64);

pub struct Subscriber {
    hub: Addr<EventHub>,
    id: Option<u64>,
    capacity: usize,
    queue: VecDeque<Arc<Event>>,
    queued_bytes: usize,
    dropped: u64,
    out: mpsc::Sender<Arc<Event>>,
    /// A wait for room in the handoff channel is under way.
    waiting: bool,
}

/// The consumer's end of a subscription. Dropping it ends the subscription.
pub struct Subscription {
    pub events: mpsc::Receiver<Arc<Event>>,
    /// The last sequence number assigned before the subscription began.
    pub seq: u64,
    /// The queue size in force (after clamping).
    pub capacity: usize,
    guard: SubscriberGuard,
}

impl Subscription {
    /// The next event (a `gap` first when some were dropped); `None` once closed.
    pub async fn next(&mut self) -> Option<Arc<Event>> {
        self.events.recv().await
    }

    /// The next event if one is ready now.
    pub fn try_next(&mut self) -> Option<Arc<Event>> {
        self.events.try_recv().ok()
    }

    /// Split into the event receiver and the guard that keeps the subscription open.
    pub fn into_parts(self) -> (mpsc::Receiver<Arc<Event>>, SubscriberGuard) {
        (self.events, self.guard)
    }
}

/// Closes its subscriber when dropped.
pub struct SubscriberGuard(Addr<Subscriber>);

impl Drop for SubscriberGuard {
    fn drop(&mut self) {
        self.0.do_send(EndSubscription);
    }
}

/// Clamp a requested queue size to what a subscription may hold.
pub fn clamp_queue(requested: Option<i64>) -> usize {
    match requested {
        Some(q) if q > 0 => (q as u64).min(MAX_QUEUE as u64) as usize,
        _ => DEFAULT_QUEUE,
    }
}

/// Open a subscription on the hub. Events published after this resolves are delivered.
pub async fn open(
    hub: &Addr<EventHub>,
    kind: SubscriptionKind,
    filter: EventFilter,
    capacity: usize,
) -> Result<Subscription, MailboxError> {
    let (out, events) = mpsc::channel(HANDOFF);
    let capacity = capacity.clamp(1, MAX_QUEUE);
    let addr = Subscriber {
        hub: hub.clone(),
        id: None,
        capacity,
        queue: VecDeque::new(),
        queued_bytes: 0,
        dropped: 0,
        out,
        waiting: false,
    }
    .start();
    let guard = SubscriberGuard(addr.clone());
    let (id, seq) = hub
        .send(Subscribe {
            kind,
            filter,
            to: SubscriberLink {
                deliver: addr.clone().recipient(),
                close: addr.clone().recipient(),
            },
        })
        .await?;
    addr.do_send(Registered(id));
    Ok(Subscription {
        events,
        seq,
        capacity,
        guard,
    })
}

/// What an event costs in a queue, roughly as serialized (fixed fields plus its strings).
fn event_bytes(e: &Event) -> usize {
    160 + e.session.len()
        + e.window.len()
        + e.pty_id.len()
        + e.mode.len()
        + e.state.len()
        + e.title.as_ref().map_or(0, String::len)
}

impl Subscriber {
    fn push(&mut self, event: Arc<Event>) {
        let size = event_bytes(&event);
        if self.queue.len() >= self.capacity || self.queued_bytes + size > MAX_QUEUE_BYTES {
            self.dropped += 1;
        } else {
            self.queued_bytes += size;
            self.queue.push_back(event);
        }
    }

    fn pop(&mut self) -> Option<Arc<Event>> {
        if self.dropped > 0 {
            let dropped = std::mem::take(&mut self.dropped);
            return Some(Arc::new(Event::gap(
                dropped,
                crate::event_hub::unix_nanos(),
            )));
        }
        let e = self.queue.pop_front()?;
        self.queued_bytes -= event_bytes(&e);
        Some(e)
    }

    /// Hand events to the consumer while its channel has room.
    fn pump(&mut self, ctx: &mut Context<Self>) {
        let out = self.out.clone();
        while self.dropped > 0 || !self.queue.is_empty() {
            match out.try_reserve() {
                Ok(permit) => {
                    if let Some(e) = self.pop() {
                        permit.send(e);
                    }
                }
                Err(mpsc::error::TrySendError::Full(())) => {
                    if !self.waiting {
                        self.waiting = true;
                        let out = out.clone();
                        ctx.spawn(
                            async move { out.reserve_owned().await.ok() }
                                .into_actor(self)
                                .map(|permit, act, ctx| {
                                    act.waiting = false;
                                    match permit.and_then(|p| act.pop().map(|e| (p, e))) {
                                        Some((p, e)) => {
                                            p.send(e);
                                            act.pump(ctx);
                                        }
                                        None if act.out.is_closed() => ctx.stop(),
                                        None => {}
                                    }
                                }),
                        );
                    }
                    return;
                }
                Err(mpsc::error::TrySendError::Closed(())) => {
                    // The consumer is gone.
                    ctx.stop();
                    return;
                }
            }
        }
    }
}

impl Actor for Subscriber {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.set_mailbox_capacity(MAILBOX);
    }

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        if let Some(id) = self.id.take() {
            self.hub.do_send(Unsubscribe(id));
        }
        Running::Stop
    }
}

impl Handler<Deliver> for Subscriber {
    type Result = ();
    fn handle(&mut self, msg: Deliver, ctx: &mut Self::Context) {
        self.dropped += msg.dropped_before;
        self.push(msg.event);
        self.pump(ctx);
    }
}

impl Handler<Registered> for Subscriber {
    type Result = ();
    fn handle(&mut self, msg: Registered, _: &mut Self::Context) {
        self.id = Some(msg.0);
    }
}

impl Handler<EndSubscription> for Subscriber {
    type Result = ();
    fn handle(&mut self, _: EndSubscription, ctx: &mut Self::Context) {
        ctx.stop();
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
        let hub = EventHub::default().start();
        let mut sub = open(&hub, SubscriptionKind::Stream, EventFilter::default(), 2)
            .await
            .unwrap();
        // The consumer takes nothing while 5 + HANDOFF events arrive: the handoff fills first,
        // then the queue (2), and the rest are dropped.
        let total = 5 + HANDOFF as u64;
        for i in 1..=total {
            hub.send(crate::event_hub::Publish({
                let mut e = (*ev(i)).clone();
                e.seq = 0;
                e
            }))
            .await
            .unwrap();
        }
        let mut got = Vec::new();
        for _ in 0..HANDOFF {
            got.push(sub.next().await.unwrap().seq);
        }
        assert_eq!(got, (1..=HANDOFF as u64).collect::<Vec<_>>());
        let gap = sub.next().await.unwrap();
        assert_eq!((gap.kind, gap.dropped), ("gap", 3));
        assert_eq!(sub.next().await.unwrap().seq, HANDOFF as u64 + 1);
        assert_eq!(sub.next().await.unwrap().seq, HANDOFF as u64 + 2);
        hub.send(crate::event_hub::CloseAll).await.unwrap();
        assert!(sub.next().await.is_none());
    }

    #[test]
    fn queue_requests_are_clamped() {
        assert_eq!(clamp_queue(None), DEFAULT_QUEUE);
        assert_eq!(clamp_queue(Some(0)), DEFAULT_QUEUE);
        assert_eq!(clamp_queue(Some(7)), 7);
        assert_eq!(clamp_queue(Some(1 << 40)), MAX_QUEUE);
    }
}
