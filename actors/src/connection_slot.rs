//! A connection's place among the daemon's [`MAX_CONNECTIONS`]. In a module of its own because
//! both sides need it: the acceptor hands one out and starts the connection actors, which hold
//! it until they stop; neither has to import the other for it.
//!
//! [`MAX_CONNECTIONS`]: protocol::limits::MAX_CONNECTIONS

/// One of the [`MAX_CONNECTIONS`](protocol::limits::MAX_CONNECTIONS) places; the connection
/// actor holds it until it stops.
pub type ConnectionSlot = tokio::sync::OwnedSemaphorePermit;
