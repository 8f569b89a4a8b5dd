//! What the connection actors share, in a module of its own so nobody has to import another
//! connection for it:
//!
//! * a connection's place among the daemon's connection cap
//!   ([`connection_cap`](protocol::limits::connection_cap)): the acceptor hands one out and
//!   starts the connection actors, which hold it until they stop;
//! * [`WriterDone`], how each connection's writer task tells its actor that it ended.
use actix::Message;

/// One of the places under the connection cap (`DaemonInfo::max_connections`); the connection
/// actor holds it until it stops.
pub type ConnectionSlot = tokio::sync::OwnedSemaphorePermit;

/// The connection's writer task ended: nothing more is written to the socket. The task sends
/// it to its connection actor.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WriterDone(pub WriterEnd);

/// How a writer task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriterEnd {
    /// Everything was written and the socket closed.
    Done,
    /// Nobody reads any more: a write failed, the peer closed both directions, or it was
    /// dropped for not reading.
    PeerGone,
}
