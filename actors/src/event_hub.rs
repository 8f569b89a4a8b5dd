//! The EventHub actor: the daemon-wide event sequence and the fan-out to subscriptions.
//! Publishers `do_send` and move on; the hub stamps `seq` and `time` on every event, listened to
//! or not, and pushes it into each matching subscription's bounded queue without waiting.
use std::sync::Arc;

use actix::prelude::*;
use protocol::events::{Event, EventFilter};

use crate::subscriber::EventQueue;

/// Whose subscription it is: a client's `subscribe`, or a `wait-for` waiting on a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionKind {
    Stream,
    Waiter,
}

struct Subscription {
    id: u64,
    kind: SubscriptionKind,
    filter: EventFilter,
    queue: Arc<EventQueue>,
}

#[derive(Default)]
pub struct EventHub {
    seq: u64,
    next_id: u64,
    subs: Vec<Subscription>,
}

impl Actor for EventHub {
    type Context = Context<Self>;
}

/// Publish an event; `seq` and `time` are filled in by the hub.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Publish(pub Event);

impl Handler<Publish> for EventHub {
    type Result = ();
    fn handle(&mut self, msg: Publish, _: &mut Self::Context) {
        let mut event = msg.0;
        self.seq += 1;
        event.seq = self.seq;
        event.time = unix_nanos();
        let event = Arc::new(event);
        for sub in &self.subs {
            if sub.filter.matches(&event) {
                sub.queue.push(event.clone());
            }
        }
    }
}

/// Register a subscription; events published after the reply are delivered. Replies with the
/// subscription id and the last sequence number assigned so far.
#[derive(Message)]
#[rtype(result = "(u64, u64)")]
pub struct Subscribe {
    pub kind: SubscriptionKind,
    pub filter: EventFilter,
    pub queue: Arc<EventQueue>,
}

impl Handler<Subscribe> for EventHub {
    type Result = MessageResult<Subscribe>;
    fn handle(&mut self, msg: Subscribe, _: &mut Self::Context) -> Self::Result {
        self.next_id += 1;
        self.subs.push(Subscription {
            id: self.next_id,
            kind: msg.kind,
            filter: msg.filter,
            queue: msg.queue,
        });
        MessageResult((self.next_id, self.seq))
    }
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct Unsubscribe(pub u64);

impl Handler<Unsubscribe> for EventHub {
    type Result = ();
    fn handle(&mut self, msg: Unsubscribe, _: &mut Self::Context) {
        if let Some(i) = self.subs.iter().position(|s| s.id == msg.0) {
            let sub = self.subs.swap_remove(i);
            sub.queue.close();
        }
    }
}

/// Daemon shutdown: close every subscription, so streams end and waits answer.
#[derive(Message)]
#[rtype(result = "()")]
pub struct CloseAll;

impl Handler<CloseAll> for EventHub {
    type Result = ();
    fn handle(&mut self, _: CloseAll, _: &mut Self::Context) {
        for sub in self.subs.drain(..) {
            sub.queue.close();
        }
    }
}

/// How many subscriptions of a kind are live, optionally only those filtered to one session.
#[derive(Message)]
#[rtype(result = "usize")]
pub struct CountSubscriptions {
    pub kind: SubscriptionKind,
    pub session: Option<String>,
}

impl Handler<CountSubscriptions> for EventHub {
    type Result = usize;
    fn handle(&mut self, msg: CountSubscriptions, _: &mut Self::Context) -> usize {
        self.subs
            .iter()
            .filter(|s| s.kind == msg.kind)
            .filter(|s| msg.session.is_none() || s.filter.session == msg.session)
            .count()
    }
}

pub fn unix_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Unsubscribes when dropped, so a waiter or stream that is cancelled leaves nothing behind.
pub struct SubscriptionGuard {
    hub: Addr<EventHub>,
    id: u64,
}

impl SubscriptionGuard {
    pub async fn subscribe(
        hub: &Addr<EventHub>,
        kind: SubscriptionKind,
        filter: EventFilter,
        queue: Arc<EventQueue>,
    ) -> Result<Self, MailboxError> {
        Ok(Self::subscribe_at(hub, kind, filter, queue).await?.0)
    }

    /// Subscribe, also returning the last sequence number assigned before the subscription.
    pub async fn subscribe_at(
        hub: &Addr<EventHub>,
        kind: SubscriptionKind,
        filter: EventFilter,
        queue: Arc<EventQueue>,
    ) -> Result<(Self, u64), MailboxError> {
        let (id, seq) = hub
            .send(Subscribe {
                kind,
                filter,
                queue,
            })
            .await?;
        Ok((
            SubscriptionGuard {
                hub: hub.clone(),
                id,
            },
            seq,
        ))
    }
}

impl Drop for SubscriptionGuard {
    fn drop(&mut self) {
        self.hub.do_send(Unsubscribe(self.id));
    }
}
