//! The SSH side: public-key authentication against an authorized_keys file, and one attach
//! client per session channel that asks for a terminal.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use russh::keys::PublicKey;
use russh::server::{Auth, Msg, PublicKeyOffer, Session, VerifiedPublicKey};
use russh::{Channel, ChannelId, MethodKind, MethodSet};

use super::keys::Access;
use super::limits::{Place, MAX_SESSIONS};
use super::status::{Client, ConnectionRegistry};
use super::term::{self, ChannelWriter};
use crate::tui::{SendError, StreamInput, StreamTerminal};

/// Session channels one connection may open: `ssh` opens one; a few more allow multiplexing
/// (ControlMaster) without letting one connection start attach clients without end.
const MAX_CHANNELS: usize = 8;

/// Row key of a connection that has authenticated but not attached yet.
const NO_CHANNEL: u32 = u32::MAX;

/// What every connection shares.
pub struct Shared {
    pub socket: PathBuf,
    pub authorized_keys: PathBuf,
    /// Keys that attach read-only (the file need not exist).
    pub read_only_keys: Option<PathBuf>,
    pub default_session: Option<String>,
    pub registry: ConnectionRegistry,
    pub rt: tokio::runtime::Handle,
    /// The daemon this process runs itself, when none ran (kept alive here).
    pub in_process: Mutex<Option<daemon::in_process::InProcessDaemon>>,
    /// How to reach this server, for the hint shown when no terminal was asked for.
    pub listen: String,
    pub next_conn: AtomicU64,
}

impl Shared {
    /// A daemon answers on the socket: the running one, else one started in this process.
    pub fn ensure_daemon(&self) -> Result<(), String> {
        let mut guard = self.in_process.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(daemon::probe(&self.socket), daemon::Probe::Running) {
            return Ok(());
        }
        // Ours stopped answering (or never ran): start it again.
        if let Some(old) = guard.take() {
            old.stop();
        }
        crate::socket_check::check_socket_dir(&self.socket).map_err(|f| f.lines().join("\n"))?;
        let started = daemon::in_process::InProcessDaemon::start(&self.socket)?;
        tracing::info!(socket = %self.socket.display(), "no daemon was running: serving one in this process");
        *guard = Some(started);
        Ok(())
    }
}

/// One channel's state.
#[derive(Default)]
struct Chan {
    pty: Option<PtyRequest>,
    /// Where the channel's input goes once its attach client runs.
    input: Option<StreamInput>,
    started: bool,
}

#[derive(Clone)]
struct PtyRequest {
    term: String,
    cols: u16,
    rows: u16,
}

/// One SSH connection.
pub struct SshConn {
    shared: Arc<Shared>,
    id: u64,
    peer: String,
    user: String,
    key: String,
    /// The key is listed as read-only: its attaches are watch-only, enforced by the daemon.
    read_only: bool,
    channels: HashMap<ChannelId, Chan>,
    /// Waiting or logged in (see `limits`); given back when the connection ends.
    place: Place,
}

impl SshConn {
    pub fn new(shared: Arc<Shared>, peer: String, place: Place) -> SshConn {
        let id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
        SshConn {
            shared,
            id,
            peer,
            user: String::new(),
            key: String::new(),
            read_only: false,
            channels: HashMap::new(),
            place,
        }
    }

    /// Whether `key` gets in (and how): listed in the read-only keys file, or in the authorized
    /// keys file. An unreadable or unsafe file lets nobody in, and says why in the log.
    fn allowed(&self, user: &str, key: &PublicKey) -> Option<Access> {
        let ro = self.shared.read_only_keys.as_deref();
        match super::keys::access(&self.shared.authorized_keys, ro, key) {
            Ok(Some(access)) => Some(access),
            Ok(None) => {
                tracing::info!(
                    peer = %self.peer,
                    user,
                    key = %super::keys::fingerprint(key),
                    "public key not in the authorized keys; refused"
                );
                None
            }
            Err(why) => {
                tracing::error!(peer = %self.peer, "refusing every key: {why}");
                None
            }
        }
    }

    /// Runs the attach client for `channel` on a thread of its own; `name` is the session
    /// asked for (None: the default one).
    fn start(&mut self, channel: ChannelId, name: Option<String>, session: &mut Session) {
        let Some(chan) = self.channels.get_mut(&channel) else {
            let _ = session.channel_failure(channel);
            return;
        };
        if chan.started {
            let _ = session.channel_failure(channel);
            return;
        }
        chan.started = true;
        let _ = session.channel_success(channel);
        let handle = session.handle();
        let Some(pty) = chan.pty.clone() else {
            // Nothing to draw on: say so and end with a status, rather than hang.
            let msg = format!(
                "tuios ssh: this connection has no terminal, and attaching to a session needs one.\r\n\
                 Ask for one: ssh -t -p {} HOST [SESSION]\r\n",
                self.shared.listen.rsplit(':').next().unwrap_or("2222")
            );
            let _ = session.extended_data(channel, 1, msg.into_bytes());
            let _ = session.exit_status_request(channel, crate::failure::EXIT_FAILURE as u32);
            let _ = session.eof(channel);
            let _ = session.close(channel);
            tracing::info!(peer = %self.peer, "refused a channel without a terminal");
            return;
        };
        let name = name.or_else(|| self.shared.default_session.clone());
        let out = ChannelWriter::new(handle, channel, self.shared.rt.clone());
        let (terminal, input) = StreamTerminal::new(
            Box::new(out.clone()),
            pty.cols,
            pty.rows,
            Some(&pty.term),
            None,
        );
        chan.input = Some(input);
        let shared = self.shared.clone();
        let mut client = Client {
            user: self.user.clone(),
            key: self.key.clone(),
            peer: self.peer.clone(),
            session: String::new(),
            since: super::status::now(),
        };
        let (cols, rows) = (pty.cols, pty.rows);
        let conn = self.id;
        let how = term::AttachAs {
            read_only: self.read_only,
            key: self.key.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name(format!("ssh-attach-{conn}-{}", channel.number()))
            .spawn(move || {
                let code = match shared.ensure_daemon() {
                    Ok(()) => {
                        let name = name.or_else(|| default_session(&shared.socket, cols, rows));
                        client.session = name.clone().unwrap_or_default();
                        shared.registry.remove(conn, NO_CHANNEL);
                        shared.registry.set(conn, channel.number(), client);
                        term::run_attach(shared.socket.clone(), name, terminal, out.clone(), how)
                    }
                    Err(why) => {
                        out.stderr(&format!(
                            "tuios ssh: no tuios daemon to attach to: {why}\r\n"
                        ));
                        crate::failure::EXIT_FAILURE
                    }
                };
                shared.registry.remove(conn, channel.number());
                // The client sees the status, then the channel end; its ssh exits with it.
                out.finish(code);
            });
        if let Err(e) = spawned {
            tracing::error!("cannot start an attach thread: {e}");
            let _ = session.close(channel);
        }
    }

    fn input(&self, channel: ChannelId) -> Option<&StreamInput> {
        self.channels.get(&channel).and_then(|c| c.input.as_ref())
    }
}

impl Drop for SshConn {
    fn drop(&mut self) {
        // Disconnected: every attach client of this connection detaches.
        for chan in self.channels.values() {
            if let Some(input) = &chan.input {
                input.close();
            }
        }
        self.shared.registry.remove_conn(self.id);
        if self.place.is_session() {
            tracing::info!(peer = %self.peer, user = %self.user, "ssh connection closed");
        } else {
            // Never logged in: at debug, so a flood does not flood the log.
            tracing::debug!(peer = %self.peer, "unauthenticated ssh connection closed");
        }
    }
}

/// Public key is the only method offered after a refusal.
fn publickey_only() -> Auth {
    Auth::Reject {
        proceed_with_methods: Some(MethodSet::from(&[MethodKind::PublicKey][..])),
        partial_success: false,
    }
}

/// A terminal size from SSH's u32s: 0 (unknown) becomes the classic 80x24.
fn dim(n: u32, default: u16) -> u16 {
    match n {
        0 => default,
        n => u16::try_from(n).unwrap_or(u16::MAX),
    }
}

/// TERM as the client sent it, if it looks like a terminal name; anything else (control
/// characters, paths, very long strings) is replaced by a common default.
fn clean_term(term: &str) -> String {
    let ok = !term.is_empty()
        && term.len() <= 64
        && term
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+-".contains(&b));
    if ok {
        term.to_string()
    } else {
        "xterm-256color".to_string()
    }
}

impl russh::server::Handler for SshConn {
    type Error = russh::Error;

    async fn auth_none(&mut self, _user: &str) -> Result<Auth, Self::Error> {
        Ok(publickey_only())
    }

    async fn auth_password(&mut self, user: &str, _password: &str) -> Result<Auth, Self::Error> {
        tracing::info!(peer = %self.peer, user, "password authentication refused: public keys only");
        Ok(publickey_only())
    }

    async fn auth_keyboard_interactive<'a>(
        &'a mut self,
        _user: &str,
        _submethods: &str,
        _response: Option<russh::server::Response<'a>>,
    ) -> Result<Auth, Self::Error> {
        Ok(publickey_only())
    }

    async fn auth_publickey_offered(
        &mut self,
        user: &str,
        offer: PublicKeyOffer<'_>,
    ) -> Result<Auth, Self::Error> {
        Ok(if self.allowed(user, offer.public_key).is_some() {
            Auth::Accept
        } else {
            publickey_only()
        })
    }

    async fn auth_publickey(
        &mut self,
        user: &str,
        key: VerifiedPublicKey<'_>,
    ) -> Result<Auth, Self::Error> {
        let Some(access) = self.allowed(user, key.public_key) else {
            return Ok(publickey_only());
        };
        self.read_only = access == Access::ReadOnly;
        self.user = user.to_string();
        self.key = super::keys::fingerprint(key.public_key);
        if !self.place.authenticate() {
            // Accepted, so that `auth_succeeded` can tell the owner why before hanging up
            // (a refusal would read as a wrong key).
            tracing::warn!(peer = %self.peer, user, key = %self.key, "{MAX_SESSIONS} sessions are open; refusing another");
            return Ok(Auth::Accept);
        }
        tracing::info!(peer = %self.peer, user, key = %self.key, read_only = self.read_only, "ssh client authenticated");
        self.shared.registry.set(
            self.id,
            NO_CHANNEL,
            Client {
                user: self.user.clone(),
                key: self.key.clone(),
                peer: self.peer.clone(),
                session: String::new(),
                since: super::status::now(),
            },
        );
        Ok(Auth::Accept)
    }

    async fn auth_succeeded(&mut self, session: &mut Session) -> Result<(), Self::Error> {
        if !self.place.is_session() {
            session.disconnect(
                russh::Disconnect::TooManyConnections,
                &format!(
                    "tuios ssh: all {MAX_SESSIONS} sessions are in use; try again when one ends"
                ),
                "en",
            )?;
        }
        Ok(())
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: russh::server::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.channels.len() >= MAX_CHANNELS || !self.place.is_session() {
            reply
                .reject(russh::ChannelOpenFailure::ResourceShortage)
                .await;
            return Ok(());
        }
        // Events come through this handler; the channel object is not read, so it is dropped
        // (kept, its queue would fill and stall the connection).
        self.channels.insert(channel.id(), Chan::default());
        drop(channel);
        reply.accept().await;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn pty_request(
        &mut self,
        channel: ChannelId,
        term: &str,
        col_width: u32,
        row_height: u32,
        _pix_width: u32,
        _pix_height: u32,
        _modes: &[(russh::Pty, u32)],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        match self.channels.get_mut(&channel) {
            Some(chan) if !chan.started => {
                chan.pty = Some(PtyRequest {
                    term: clean_term(term),
                    cols: dim(col_width, 80),
                    rows: dim(row_height, 24),
                });
                session.channel_success(channel)?;
            }
            _ => session.channel_failure(channel)?,
        }
        Ok(())
    }

    async fn env_request(
        &mut self,
        channel: ChannelId,
        _name: &str,
        _value: &str,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        // The session's programs run in the daemon, not here: there is nothing to set.
        session.channel_failure(channel)?;
        Ok(())
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.start(channel, None, session);
        Ok(())
    }

    async fn exec_request(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        let name = String::from_utf8_lossy(data).trim().to_string();
        if name.is_empty() {
            self.start(channel, None, session);
            return Ok(());
        }
        if let Err(e) = protocol::binary::validate_session_name(&name) {
            let msg = format!(
                "tuios ssh: the command names the session to attach to, and {:?} is not a valid session name: {e}\r\n",
                crate::output::escape_controls(&name)
            );
            session.channel_success(channel)?;
            session.extended_data(channel, 1, msg.into_bytes())?;
            session.exit_status_request(channel, crate::failure::EXIT_FAILURE as u32)?;
            session.eof(channel)?;
            session.close(channel)?;
            return Ok(());
        }
        self.start(channel, Some(name), session);
        Ok(())
    }

    async fn subsystem_request(
        &mut self,
        channel: ChannelId,
        name: &str,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        tracing::info!(peer = %self.peer, subsystem = name, "subsystem refused (tuios ssh only attaches terminals)");
        session.channel_failure(channel)?;
        Ok(())
    }

    async fn window_change_request(
        &mut self,
        channel: ChannelId,
        col_width: u32,
        row_height: u32,
        _pix_width: u32,
        _pix_height: u32,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        let (cols, rows) = (dim(col_width, 80), dim(row_height, 24));
        if let Some(chan) = self.channels.get_mut(&channel) {
            if let Some(pty) = chan.pty.as_mut() {
                (pty.cols, pty.rows) = (cols, rows);
            }
        }
        if let Some(input) = self.input(channel) {
            input.resize(cols, rows);
        }
        Ok(())
    }

    async fn data(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        if let Some(input) = self.input(channel) {
            // Over 4 MiB waiting means the client is stuck; dropping input is kinder than
            // growing without bound or stalling every channel of this connection.
            if input.try_send(data) == Err(SendError::Full) {
                tracing::warn!(peer = %self.peer, "input dropped: the attach client is not reading");
            }
        }
        Ok(())
    }

    async fn channel_eof(
        &mut self,
        channel: ChannelId,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        if let Some(input) = self.input(channel) {
            input.close();
        }
        Ok(())
    }

    async fn channel_close(
        &mut self,
        channel: ChannelId,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        if let Some(input) = self.input(channel) {
            input.close();
        }
        self.channels.remove(&channel);
        Ok(())
    }

    async fn x11_request(
        &mut self,
        channel: ChannelId,
        _single_connection: bool,
        _x11_auth_protocol: &str,
        _x11_auth_cookie: &str,
        _x11_screen_number: u32,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        // Nothing here would use a display; say no rather than leave the client waiting.
        session.channel_failure(channel)?;
        Ok(())
    }

    async fn tcpip_forward(
        &mut self,
        _address: &str,
        _port: &mut u32,
        _session: &mut Session,
    ) -> Result<bool, Self::Error> {
        Ok(false)
    }
}

/// The session a client that names none attaches to: the one the daemon calls the most
/// recent (`session-info` without a session), else a new one made now at the terminal's size.
/// Named before the attach, so the status row shows it; None if the daemon does not answer
/// (the attach then says why).
fn default_session(socket: &std::path::Path, cols: u16, rows: u16) -> Option<String> {
    let mut json = crate::json_client::JsonClient::connect(socket).ok()?;
    if let Ok(info) = json.call("session-info", None) {
        if let Some(name) = info.get("session_name").and_then(|v| v.as_str()) {
            return Some(name.to_string());
        }
    }
    let params = serde_json::json!({"width": cols, "height": rows});
    let created = json.call("new-session", Some(&params)).ok()?;
    created
        .get("name")
        .and_then(|v| v.as_str())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn term_names_are_kept_and_anything_else_replaced() {
        assert_eq!(clean_term("xterm-kitty"), "xterm-kitty");
        assert_eq!(clean_term("screen.xterm-256color"), "screen.xterm-256color");
        assert_eq!(clean_term(""), "xterm-256color");
        assert_eq!(clean_term("../../etc/x"), "xterm-256color");
        assert_eq!(clean_term("a\x1bb"), "xterm-256color");
    }

    #[test]
    fn zero_sizes_become_defaults() {
        assert_eq!(dim(0, 80), 80);
        assert_eq!(dim(132, 80), 132);
        assert_eq!(dim(u32::MAX, 24), u16::MAX);
    }
}
