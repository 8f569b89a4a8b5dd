//! The flags every verb command that targets a session or a window shares.
use clap::{Args, ValueEnum};
use protocol::verbs::common::{SessionParams, WindowParams};

/// Flags shared by commands that target a session.
#[derive(Debug, Args)]
pub struct SessionTarget {
    #[arg(short = 's', long, value_name = "NAME")]
    pub session: Option<String>,
    /// Print the result object as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Flags shared by commands that target a window in a session.
#[derive(Debug, Args)]
pub struct WindowTarget {
    #[arg(short = 's', long, value_name = "NAME")]
    pub session: Option<String>,
    #[arg(short = 'w', long, value_name = "WINDOW")]
    pub window: Option<String>,
    /// Print the result object as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of a command whose verb takes only a session (list-windows, ...).
#[derive(Debug, Args)]
pub struct SessionOnly {
    #[command(flatten)]
    pub target: SessionTarget,
}

impl SessionOnly {
    pub fn params(&self) -> SessionParams {
        SessionParams {
            session: self.target.session.clone(),
        }
    }
}

/// The arguments of a command whose verb takes only a window (get-agent-state, ...).
#[derive(Debug, Args)]
pub struct WindowOnly {
    #[command(flatten)]
    pub target: WindowTarget,
}

impl WindowOnly {
    pub fn params(&self) -> WindowParams {
        WindowParams {
            session: self.target.session.clone(),
            window: self.target.window.clone(),
        }
    }
}

/// What capture-pane and wait-for read: the verbs' `source` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CaptureSource {
    Visible,
    Recent,
}

impl CaptureSource {
    pub fn as_str(self) -> &'static str {
        match self {
            CaptureSource::Visible => "visible",
            CaptureSource::Recent => "recent",
        }
    }
}
