//! The session's side of the transcript tier: joining windows to their agent's transcript file
//! and reading what it appends, as claims of source `transcript` through the same rank gate as
//! every other tier. One timer per session (`TUIOS_AGENT_TRANSCRIPT_SECONDS`, default 10 s)
//! runs while some window is attributed to a harness with transcripts: it searches for the
//! windows not yet joined and reads the joined ones (a quiet agent prints nothing while its
//! transcript grows). Output reads a joined file sooner, 150 ms after it. File I/O runs on the
//! blocking pool, one search or read at a time per window.
use std::path::PathBuf;

use actix::prelude::*;
use protocol::agent::AgentSource;
use serde_json::{json, Value};

use super::Session;
use crate::agent::state::Report;
use crate::agent::transcript::{
    read_tail, search, Join, ReadOutcome, Search, TailReader, TranscriptSpec, MISSING_READS,
};
use crate::agent::TRANSCRIPT_DEBOUNCE;

impl Session {
    /// The transcript spec of the harness window `i` is attributed to, when the tier is on.
    fn transcript_spec(&self, i: usize) -> Option<TranscriptSpec> {
        self.services.info.agent.transcript_every?;
        self.services.info.agent.home.as_ref()?;
        let harness = self.windows[i].agent.harness.as_deref()?;
        let registry = self.services.manifests.cached()?;
        registry.get(harness)?.transcript.clone()
    }

    /// Start the timer when window `i` is attributed to a harness with transcripts.
    pub(super) fn agent_transcript_ensure(&mut self, i: usize, ctx: &mut Context<Self>) {
        if self.agent.transcript.is_some() || self.transcript_spec(i).is_none() {
            return;
        }
        let Some(every) = self.services.info.agent.transcript_every else {
            return;
        };
        self.agent.transcript =
            Some(ctx.run_interval(every, |act, ctx| act.agent_transcript_tick(ctx)));
    }

    /// Search or read for every window that has a transcript to follow; stop ticking when none
    /// has.
    fn agent_transcript_tick(&mut self, ctx: &mut Context<Self>) {
        let mut wanted = false;
        for i in 0..self.windows.len() {
            wanted |= self.agent_transcript_look(i, ctx);
        }
        if !wanted {
            if let Some(h) = self.agent.transcript.take() {
                ctx.cancel_future(h);
            }
        }
    }

    /// One tick's work for window `i`; false when it has nothing to follow.
    fn agent_transcript_look(&mut self, i: usize, ctx: &mut Context<Self>) -> bool {
        let spec = self.transcript_spec(i);
        let w = &self.windows[i];
        let proc = w.agent.agent_proc.clone();
        let stale = match &w.agent.transcript.join {
            // The attribution went, or another process runs in the agent's place.
            Some(j) => spec.is_none() || proc.as_ref().is_some_and(|p| p.pid != j.pid),
            None => false,
        };
        if stale || w.exited.is_some() {
            self.agent_transcript_end(i);
        }
        let Some(spec) = spec.filter(|_| self.windows[i].exited.is_none()) else {
            self.windows[i].agent.transcript.last_miss = None;
            return false;
        };
        if self.windows[i].agent.transcript.join.is_some() {
            self.agent_transcript_read(i, ctx);
            return true;
        }
        let Some(proc) = proc else {
            return true;
        };
        let t = &mut self.windows[i].agent.transcript;
        if t.busy {
            return true;
        }
        t.busy = true;
        let generation = t.generation;
        let home = self.services.info.agent.home.clone().unwrap_or_default();
        let id = self.windows[i].id.clone();
        let task = actix_rt::task::spawn_blocking(move || (search(&spec, &home, &proc), proc.pid));
        ctx.spawn(task.into_actor(self).map(move |res, act, ctx| {
            let Some(i) = act.index_of(&id) else { return };
            let t = &mut act.windows[i].agent.transcript;
            t.busy = false;
            if t.generation != generation || t.join.is_some() {
                return;
            }
            match res {
                Ok((Search::Joined(path), pid)) => {
                    tracing::debug!(window = %id, path = %path.display(), "transcript joined");
                    t.generation += 1;
                    t.last_miss = None;
                    t.join = Some(Join {
                        path,
                        reader: TailReader::default(),
                        missing: 0,
                        pid,
                    });
                    act.agent_transcript_read(i, ctx);
                }
                Ok((Search::NoJoin(why), _)) => t.last_miss = Some(why),
                Err(e) => tracing::warn!(error = %e, "searching for a transcript failed"),
            }
        }));
        true
    }

    /// After output of window `i`: read its joined transcript once the output has paused.
    pub(super) fn agent_transcript_activity(&mut self, i: usize, ctx: &mut Context<Self>) {
        let t = &mut self.windows[i].agent.transcript;
        if t.join.is_none() || t.debounce {
            return;
        }
        t.debounce = true;
        let id = self.windows[i].id.clone();
        ctx.run_later(TRANSCRIPT_DEBOUNCE, move |act, ctx| {
            let Some(i) = act.index_of(&id) else { return };
            act.windows[i].agent.transcript.debounce = false;
            act.agent_transcript_read(i, ctx);
        });
    }

    /// Read what the joined file of window `i` gained and claim the state its newest record
    /// says. Three looks in a row that find the file gone end the join.
    fn agent_transcript_read(&mut self, i: usize, ctx: &mut Context<Self>) {
        let t = &mut self.windows[i].agent.transcript;
        let Some(join) = &t.join else { return };
        if t.busy {
            t.again = true;
            return;
        }
        t.busy = true;
        let path: PathBuf = join.path.clone();
        let mut reader = join.reader;
        let generation = t.generation;
        let id = self.windows[i].id.clone();
        let task = actix_rt::task::spawn_blocking(move || {
            let out = read_tail(&path, &mut reader);
            (out, reader)
        });
        ctx.spawn(task.into_actor(self).map(move |res, act, ctx| {
            let Some(i) = act.index_of(&id) else { return };
            let t = &mut act.windows[i].agent.transcript;
            t.busy = false;
            let again = std::mem::take(&mut t.again);
            if t.generation != generation {
                return;
            }
            let Some(join) = t.join.as_mut() else { return };
            match res {
                Ok((ReadOutcome::Read(state), reader)) => {
                    join.reader = reader;
                    join.missing = 0;
                    if let Some(state) = state {
                        act.agent_apply(i, Report::new(state, AgentSource::Transcript), ctx);
                    }
                }
                Ok((ReadOutcome::Missing, _)) => {
                    join.missing += 1;
                    if join.missing >= MISSING_READS {
                        tracing::debug!(window = %id, "transcript gone: join ended");
                        act.agent_transcript_end(i);
                        return;
                    }
                }
                Ok((ReadOutcome::Failed(e), _)) => {
                    tracing::debug!(window = %id, error = %e, "reading the transcript failed")
                }
                Err(e) => tracing::warn!(error = %e, "reading a transcript failed"),
            }
            if again {
                act.agent_transcript_read(i, ctx);
            }
        }));
    }

    /// End window `i`'s join. A claim the transcript holds is yielded: it stands, but as the
    /// detector's, so any tier may replace it.
    fn agent_transcript_end(&mut self, i: usize) {
        let a = &mut self.windows[i].agent;
        if a.transcript.join.take().is_none() {
            return;
        }
        a.transcript.generation += 1;
        if a.source == Some(AgentSource::Transcript) {
            a.source = Some(AgentSource::Detect);
        }
    }

    /// What explain-agent-detect shows of window `i`'s transcript tier.
    pub(super) fn agent_transcript_view(&self, i: usize) -> Option<Value> {
        let t = &self.windows[i].agent.transcript;
        match (&t.join, &t.last_miss) {
            (Some(j), _) => Some(json!({
                "joined": true,
                "path": j.path.to_string_lossy(),
                "offset": j.reader.offset,
            })),
            (None, Some(why)) => Some(json!({"joined": false, "reason": why})),
            (None, None) => None,
        }
    }
}
