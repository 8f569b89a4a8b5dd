//! Commands that work on this machine's files, not through the daemon's verbs: the daemon's
//! log, the key bindings, the layout templates and the configuration file (the Go TUIOS's
//! `logs`, `keybinds`, `layout` and `config` commands), and `play` for recordings.

pub mod config_file;
pub mod keybinds;
pub mod layouts;
pub mod logs;
pub mod play;
mod play_sanitise;
