//! The EventHub actor: the daemon-wide event sequence and the fan-out to subscriptions.
//! Publishers `do_send` and move on (windows coalesce their events first, so the rate is
//! bounded per window); the hub stamps `seq` and `time` on every event, listened to or not, and
//! offers it to each matching Subscriber without waiting: when a subscriber's mailbox is full
//! the hub counts the drop and passes the count along with the next event it can deliver.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use actix::prelude::*;
use protocol::events::{Event, EventFilter};

/// Whose subscription it is: a client's `subscribe`, or a `wait-for` waiting on a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionKind {
    Stream,
    Waiter,
}

/// An event for a subscriber, with how many the hub had to drop just before it.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Deliver {
    pub event: Arc<Event>,
    pub dropped_before: u64,
}

/// End a subscription: the consumer gets what was handed off, then the end of the stream.
#[derive(Message)]
#[rtype(result = "()")]
pub struct EndSubscription;

/// Where the hub sends a subscription's events and its end. Recipients rather than the
/// subscriber actor's address, so the hub does not depend on the subscriber module.
#[derive(Clone)]
pub struct SubscriberLink {
    pub deliver: Recipient<Deliver>,
    pub close: Recipient<EndSubscription>,
}

/// The hub's record of one subscription: what it listens to and where its events go.
struct SubscriptionRecord {
    id: u64,
    kind: SubscriptionKind,
    filter: EventFilter,
    to: SubscriberLink,
    /// Events this subscriber's full mailbox could not take since its last delivery.
    dropped: u64,
}

#[derive(Default)]
pub struct EventHub {
    seq: u64,
    next_id: u64,
    subs: Vec<SubscriptionRecord>,
    /// Live `wait-for` calls per session (for `session-info`'s `waiters`).
    waiters: HashMap<String, usize>,
    /// Shutting down: new subscriptions end at once.
    closed: bool,
    /// Whether anything is subscribed: publishers skip events nobody can hear (an echoed key
    /// would otherwise wake the hub's thread for nothing).
    listening: Arc<AtomicBool>,
}

impl EventHub {
    /// Shared flag: true while at least one subscription exists. Set before a subscription's
    /// reply, so an event published after that reply is never skipped.
    pub fn listening(&self) -> Arc<AtomicBool> {
        self.listening.clone()
    }

    fn subs_changed(&self) {
        self.listening
            .store(!self.subs.is_empty(), Ordering::Release);
    }
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
        self.subs.retain_mut(|sub| {
            if !sub.filter.matches(&event) {
                return true;
            }
            let msg = Deliver {
                event: event.clone(),
                dropped_before: sub.dropped,
            };
            match sub.to.deliver.try_send(msg) {
                Ok(()) => {
                    sub.dropped = 0;
                    true
                }
                Err(SendError::Full(_)) => {
                    sub.dropped += 1;
                    true
                }
                // The subscriber stopped: forget it.
                Err(SendError::Closed(_)) => false,
            }
        });
        self.subs_changed();
    }
}

/// Register a subscription; events published after the reply are delivered. Replies with the
/// subscription id and the last sequence number assigned so far.
#[derive(Message)]
#[rtype(result = "(u64, u64)")]
pub struct Subscribe {
    pub kind: SubscriptionKind,
    pub filter: EventFilter,
    pub to: SubscriberLink,
}

impl Handler<Subscribe> for EventHub {
    type Result = MessageResult<Subscribe>;
    fn handle(&mut self, msg: Subscribe, _: &mut Self::Context) -> Self::Result {
        self.next_id += 1;
        if self.closed {
            msg.to.close.do_send(EndSubscription);
            return MessageResult((self.next_id, self.seq));
        }
        self.subs.push(SubscriptionRecord {
            id: self.next_id,
            kind: msg.kind,
            filter: msg.filter,
            to: msg.to,
            dropped: 0,
        });
        self.subs_changed();
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
            self.subs.swap_remove(i);
        }
        self.subs_changed();
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
            // Stopping the subscriber ends its consumer's stream.
            sub.to.close.do_send(EndSubscription);
        }
        self.subs_changed();
        self.closed = true;
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
        if msg.kind == SubscriptionKind::Waiter {
            return match &msg.session {
                Some(s) => self.waiters.get(s).copied().unwrap_or(0),
                None => self.waiters.values().sum(),
            };
        }
        self.subs
            .iter()
            .filter(|s| s.kind == msg.kind)
            .filter(|s| msg.session.is_none() || s.filter.session == msg.session)
            .count()
    }
}

/// A `wait-for` on a session began (`true`) or ended (`false`).
#[derive(Message)]
#[rtype(result = "()")]
pub struct WaiterLive {
    pub session: String,
    pub live: bool,
}

impl Handler<WaiterLive> for EventHub {
    type Result = ();
    fn handle(&mut self, msg: WaiterLive, _: &mut Self::Context) {
        if msg.live {
            *self.waiters.entry(msg.session).or_default() += 1;
        } else if let Some(n) = self.waiters.get_mut(&msg.session) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.waiters.remove(&msg.session);
            }
        }
    }
}

pub fn unix_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
