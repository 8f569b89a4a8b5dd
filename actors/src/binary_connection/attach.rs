//! The attached-client side of a binary connection: attach and detach, input and pastes,
//! sizes, which windows it shows, commands, layout, copy-mode scrollback and routed replies.
use actix::prelude::*;
use protocol::attach::{ClientOp, DaemonOp, NoticeLevel, SessionView};
use protocol::binary::{BinaryErrorCode, DaemonMessage};
use protocol::VerbError;

use super::{Attached, BinaryConnection, Viewed};
use crate::pty_input::{self, Direct};
use crate::session::{self, AttachClient, DetachClient};
use crate::session_manager::{self, SessionRef};
use crate::window::{self, AddViewer, RemoveViewer, Window};

impl BinaryConnection {
    /// Hand a client's report to its session, holding this frame's read permit until the
    /// session has taken it: a client that floods reports waits on its own connection (the
    /// 64-frame bound) instead of growing the session's mailbox.
    fn forward<M>(&mut self, s: &SessionRef, msg: M, ctx: &mut Context<Self>)
    where
        M: Message + Send + 'static,
        M::Result: Send,
        session::Session: Handler<M>,
    {
        let permit = self.hold();
        let addr = s.addr.clone();
        ctx.spawn(
            async move {
                let _permit = permit;
                let _ = addr.send(msg).await;
            }
            .into_actor(self),
        );
    }

    pub(super) fn client_op(&mut self, op: ClientOp, ctx: &mut Context<Self>) {
        if let ClientOp::Attach {
            session,
            create,
            width,
            height,
            max_fps,
            read_only,
            via,
        } = op
        {
            let how = client_how(&via, read_only, &self.peer);
            self.attach(session, create, (width, height), max_fps, how, ctx);
            return;
        }
        let Some(att) = &self.attached else {
            self.error(
                BinaryErrorCode::InvalidMessage,
                "attach to a session before sending client operations",
            );
            return;
        };
        let s = att.session.clone();
        let client = att.client;
        if att.read_only && !read_only_allows(&op) {
            // Keys, pastes and commands are told (the user tried to act); size and layout
            // reports are dropped quietly (the client sends them on its own).
            if matches!(
                op,
                ClientOp::Input { .. } | ClientOp::Paste { .. } | ClientOp::Command { .. }
            ) {
                self.notice(
                    NoticeLevel::Warning,
                    "read-only: this client's input was refused",
                );
            }
            return;
        }
        match op {
            ClientOp::Attach { .. } => unreachable!("handled above"),
            ClientOp::Detach => {
                self.leave_session();
                self.send(&DaemonMessage::Op(DaemonOp::Detached));
            }
            ClientOp::Input { window, data } => {
                // The same rule as send-text and pastes: input that could read as a Lumen frame
                // never reaches a program.
                if protocol::lumen::contains_frame_introducer(&data) {
                    self.notice(
                        NoticeLevel::Warning,
                        "input holding a Lumen frame introducer was refused; nothing was written",
                    );
                    return;
                }
                // Typed keys come between verb inputs: a verb's ESC no longer runs into the next.
                pty_input::typed(&self.env.services.inputs, &window);
                // A key for a window this client shows goes straight to its PTY when no earlier
                // write to it is pending (see `pty_input`); else through the window, holding a
                // ticket so that no later key overtakes it.
                let (data, ticket) = match self.shown(&window) {
                    Some(_) => match pty_input::write(&self.env.services.inputs, &window, data) {
                        Direct::Written | Direct::Queued(_) => return,
                        Direct::Refused(data, ticket) => (data, ticket),
                    },
                    None => (data, pty_input::ticket(&self.env.services.inputs, &window)),
                };
                let target = self.viewed(&window);
                let permit = self.hold();
                ctx.spawn(
                    async move {
                        let _permit = permit;
                        let w = window_addr(target, &s, &window).await?;
                        w.send(window::WriteInput(data, ticket))
                            .await
                            .map_err(|e| crate::errors::internal(e.to_string()))?
                    }
                    .into_actor(self)
                    .map(|res, act, _| {
                        if let Err(e) = res {
                            act.notice(NoticeLevel::Warning, &e.message);
                        }
                    }),
                );
            }
            ClientOp::Paste {
                window,
                data,
                choice,
            } => self.paste(s, window, data, choice, ctx),
            ClientOp::Resize { width, height } => {
                s.addr.do_send(session::ClientResized {
                    client,
                    width,
                    height,
                });
            }
            ClientOp::WindowSize { window, cols, rows } => {
                let target = self.viewed(&window);
                let permit = self.hold();
                ctx.spawn(
                    async move {
                        let _permit = permit;
                        let w = window_addr(target, &s, &window).await?;
                        let (cols, rows) = (cols.max(1), rows.max(1));
                        w.send(window::Resize {
                            cols,
                            rows,
                            layout: true,
                        })
                        .await
                        .map_err(|e| crate::errors::internal(e.to_string()))??;
                        s.addr.do_send(session::WindowResized {
                            window_id: window,
                            cols,
                            rows,
                        });
                        Ok::<(), VerbError>(())
                    }
                    .into_actor(self)
                    .map(|res, _, _| {
                        if let Err(e) = res {
                            // A window gone meanwhile; nothing to tell the user.
                            tracing::debug!(error = %e, "client window resize failed");
                        }
                    }),
                );
            }
            ClientOp::View { windows } => self.set_view(s, windows, ctx),
            ClientOp::Command { name, args } => {
                let env = self.env.clone();
                let permit = self.hold();
                ctx.spawn(
                    async move {
                        let _permit = permit;
                        crate::verbs::run_command_for_client(&env, &s.name, name, args).await
                    }
                    .into_actor(self)
                    .map(|res, act, _| {
                        if let Err(e) = res {
                            act.notice(NoticeLevel::Error, &e.message);
                        }
                    }),
                );
            }
            ClientOp::Layout { layout } => self.forward(&s, session::SetLayout(layout), ctx),
            ClientOp::Geometry { boxes } => {
                self.forward(&s, session::ClientGeometry { client, boxes }, ctx);
            }
            ClientOp::Leader { key } => {
                // A chord is a few bytes; anything long is not one and is not kept.
                if key.len() <= 64 {
                    self.forward(&s, session::ClientLeader { client, key }, ctx);
                }
            }
            ClientOp::Scrollback {
                window,
                before,
                count,
            } => {
                let target = self.viewed(&window);
                let permit = self.hold();
                ctx.spawn(
                    async move {
                        let _permit = permit;
                        let w = window_addr(target, &s, &window).await?;
                        let (first, rows, more, oldest) = w
                            .send(window::ScrollbackRows { before, count })
                            .await
                            .map_err(|e| crate::errors::internal(e.to_string()))?;
                        Ok::<_, VerbError>(DaemonOp::Scrollback {
                            window,
                            first,
                            rows,
                            more,
                            oldest: Some(oldest),
                        })
                    }
                    .into_actor(self)
                    .map(|res, act, _| match res {
                        Ok(op) => act.send(&DaemonMessage::Op(op)),
                        Err(e) => act.notice(NoticeLevel::Warning, &e.message),
                    }),
                );
            }
            ClientOp::Reply {
                request,
                ok,
                message,
                data,
            } => s.addr.do_send(session::RouteReply {
                request,
                ok,
                message,
                data,
            }),
        }
    }

    pub(super) fn notice(&mut self, level: NoticeLevel, text: &str) {
        self.send(&DaemonMessage::Op(DaemonOp::Notice {
            level,
            text: text.to_string(),
        }));
    }

    fn viewed(&self, window: &str) -> Option<Addr<Window>> {
        self.shown(window).map(|v| v.addr.clone())
    }

    fn shown(&self, window: &str) -> Option<&Viewed> {
        self.attached
            .as_ref()?
            .viewing
            .iter()
            .find(|v| v.id == window)
    }

    fn attach(
        &mut self,
        name: Option<String>,
        create: bool,
        (width, height): (u16, u16),
        fps: u16,
        how: session::ClientHow,
        ctx: &mut Context<Self>,
    ) {
        let read_only = how.read_only;
        if self.attached.is_some() {
            self.error(
                BinaryErrorCode::InvalidMessage,
                "this connection is already attached; detach first",
            );
            return;
        }
        let manager = self.env.manager.clone();
        let sink = ctx.address().recipient();
        ctx.wait(
            async move {
                let name = name.filter(|n| !n.is_empty());
                let found = manager
                    .send(session_manager::ResolveSession(name.clone()))
                    .await
                    .map_err(|e| (BinaryErrorCode::Internal, e.to_string()))?;
                let s = match found {
                    Ok(s) => s,
                    Err(_) if create => {
                        manager
                            .send(session_manager::CreateSession {
                                name: name.clone(),
                                width,
                                height,
                                with_window: true,
                            })
                            .await
                            .map_err(|e| (BinaryErrorCode::Internal, e.to_string()))??;
                        manager
                            .send(session_manager::ResolveSession(name))
                            .await
                            .map_err(|e| (BinaryErrorCode::Internal, e.to_string()))?
                            .map_err(|e| (BinaryErrorCode::SessionNotFound, e.message))?
                    }
                    Err(e) => return Err((BinaryErrorCode::SessionNotFound, e.message)),
                };
                let (client, view) = s
                    .addr
                    .send(AttachClient {
                        sink,
                        width,
                        height,
                        how,
                    })
                    .await
                    .map_err(|e| (BinaryErrorCode::Internal, e.to_string()))?;
                Ok((s, client, view))
            }
            .into_actor(self)
            .map(move |res, act, _| match res {
                Ok((session, client, state)) => {
                    act.attached = Some(Attached {
                        session,
                        client,
                        fps,
                        read_only,
                        viewing: Vec::new(),
                    });
                    act.send(&DaemonMessage::Op(DaemonOp::Attached { state }));
                    if read_only {
                        act.notice(
                            NoticeLevel::Info,
                            "read-only: you can watch, scroll and copy; input is refused",
                        );
                    }
                }
                Err((code, message)) => act.error(code, message),
            }),
        );
    }

    /// Show exactly `windows`: viewers are added for new ones and removed for the rest.
    /// Show the client `windows`. The windows take the removals and additions before this
    /// frame's read permit goes back, so a client that flips its view in a loop waits on its own
    /// connection (the 64-frame bound) instead of filling the windows' mailboxes.
    fn set_view(&mut self, s: SessionRef, windows: Vec<String>, ctx: &mut Context<Self>) {
        let Some(att) = self.attached.as_mut() else {
            return;
        };
        let client = att.client;
        // Sent now (in frame order), answered later.
        let mut removed = Vec::new();
        att.viewing.retain(|v| {
            let keep = windows.contains(&v.id);
            if !keep {
                removed.push(v.addr.send(RemoveViewer(client)));
            }
            keep
        });
        let new: Vec<String> = windows
            .into_iter()
            .filter(|id| !att.viewing.iter().any(|v| &v.id == id))
            .collect();
        if removed.is_empty() && new.is_empty() {
            return;
        }
        let sink = self.outbox.clone();
        let fps = att.fps;
        let permit = self.hold();
        ctx.spawn(
            async move {
                for r in removed {
                    let _ = r.await;
                }
                let mut found = Vec::new();
                for id in new {
                    if let Ok(w) = resolve(&s, &id).await {
                        found.push((id, w));
                    }
                }
                (found, permit)
            }
            .into_actor(self)
            .map(move |(found, permit), act, ctx| {
                let Some(att) = act.attached.as_mut() else {
                    return;
                };
                let mut added = Vec::new();
                for (id, w) in found {
                    if att.viewing.iter().any(|v| v.id == id) {
                        continue;
                    }
                    added.push(w.send(AddViewer {
                        client,
                        sink: sink.clone(),
                        fps,
                    }));
                    att.viewing.push(Viewed { id, addr: w });
                }
                if added.is_empty() {
                    return;
                }
                ctx.spawn(
                    async move {
                        let _permit = permit;
                        for a in added {
                            let _ = a.await;
                        }
                    }
                    .into_actor(act),
                );
            }),
        );
    }

    /// Drop viewers of windows that no longer exist.
    pub(super) fn sync_views(&mut self, state: &SessionView, _: &mut Context<Self>) {
        if let Some(att) = self.attached.as_mut() {
            att.viewing
                .retain(|v| state.windows.iter().any(|w| w.id == v.id));
        }
    }

    pub(super) fn leave_session(&mut self) {
        if let Some(att) = self.attached.take() {
            att.drop_viewers();
            att.session.addr.do_send(DetachClient(att.client));
        }
    }

    fn paste(
        &mut self,
        s: SessionRef,
        window: String,
        data: Vec<u8>,
        choice: String,
        ctx: &mut Context<Self>,
    ) {
        let target = self.viewed(&window);
        let permit = self.hold();
        // Keys typed after the paste wait for it (see `pty_input`).
        let ticket = pty_input::ticket(&self.env.services.inputs, &window);
        ctx.spawn(
            async move {
                let _permit = permit;
                let w = window_addr(target, &s, &window).await?;
                let outcome = w
                    .send(window::Paste {
                        data,
                        choice,
                        ticket,
                    })
                    .await
                    .map_err(|e| crate::errors::internal(e.to_string()))??;
                Ok::<_, VerbError>((window, outcome))
            }
            .into_actor(self)
            .map(|res, act, _| match res {
                Ok((window, crate::paste::PasteAction::Hold(held))) => {
                    act.send(&DaemonMessage::Op(DaemonOp::PasteHeld {
                        window,
                        preview: held.preview,
                        one_line: held.one_line,
                        has_controls: held.has_controls,
                    }))
                }
                Ok((_, crate::paste::PasteAction::Reject(reason))) => {
                    act.notice(NoticeLevel::Warning, &reason)
                }
                Ok((_, crate::paste::PasteAction::Write(_))) => {}
                Err(e) => act.notice(NoticeLevel::Warning, &e.message),
            }),
        );
    }
}

/// The window's address: the one this client already shows, else looked up in the session.
async fn window_addr(
    shown: Option<Addr<Window>>,
    s: &SessionRef,
    id: &str,
) -> Result<Addr<Window>, VerbError> {
    match shown {
        Some(w) => Ok(w),
        None => resolve(s, id).await,
    }
}

async fn resolve(s: &SessionRef, id: &str) -> Result<Addr<Window>, VerbError> {
    let w = s
        .addr
        .send(session::ResolveWindow(Some(id.to_string())))
        .await
        .map_err(|e| crate::errors::internal(e.to_string()))??;
    Ok(w.addr)
}

/// What a read-only client may still do: watch (which windows it shows, copy-mode scrollback),
/// say its terminal size (kept, but the session never takes it) and leave. Everything that
/// would change a window or the session is refused.
fn read_only_allows(op: &ClientOp) -> bool {
    matches!(
        op,
        ClientOp::Detach
            | ClientOp::View { .. }
            | ClientOp::Scrollback { .. }
            | ClientOp::Resize { .. }
    )
}

/// Longest peer a web or SSH server may name for its client (an address, a key fingerprint).
const MAX_VIA_PEER: usize = 128;

/// How a client attaches, from its `via`: "web" or "ssh", optionally followed by a space and
/// who is at the far end (the browser's address, the key's fingerprint); anything else is a
/// terminal, known by the socket's peer. The named peer is kept printable and short: it is
/// shown to other users of the session.
fn client_how(via: &str, read_only: bool, socket_peer: &str) -> session::ClientHow {
    let (kind, named) = via.split_once(' ').unwrap_or((via, ""));
    let (kind, peer) = match kind {
        "web" | "ssh" => {
            let named: String = named
                .chars()
                .filter(|c| !c.is_control())
                .take(MAX_VIA_PEER)
                .collect();
            let named = named.trim();
            let peer = if named.is_empty() {
                socket_peer.to_string()
            } else {
                named.to_string()
            };
            (kind.to_string(), peer)
        }
        _ => ("terminal".to_string(), socket_peer.to_string()),
    };
    session::ClientHow {
        read_only,
        kind,
        peer,
    }
}

#[cfg(test)]
mod client_how_tests {
    use super::client_how;

    #[test]
    fn a_server_names_its_peer_and_a_terminal_is_known_by_its_socket() {
        let web = client_how("web 127.0.0.1:5000", true, "uid=1 pid=2");
        assert_eq!(
            (web.kind.as_str(), web.peer.as_str()),
            ("web", "127.0.0.1:5000")
        );
        assert!(web.read_only);
        let ssh = client_how("ssh", false, "uid=1 pid=2");
        assert_eq!(
            (ssh.kind.as_str(), ssh.peer.as_str()),
            ("ssh", "uid=1 pid=2")
        );
        let odd = client_how("gopher 1.2.3.4", false, "uid=1 pid=2");
        assert_eq!(
            (odd.kind.as_str(), odd.peer.as_str()),
            ("terminal", "uid=1 pid=2")
        );
        let long = client_how(&format!("ssh \x1b]0;x\x07{}", "k".repeat(500)), false, "");
        assert!(!long.peer.contains('\x1b') && long.peer.chars().count() <= 128);
    }
}
