//! What the `tuios` binary serves besides the command line: the daemon itself (`tuios
//! daemon`), and the attach client over SSH (`tuios ssh`) and to web browsers (`tuios web`).

pub mod daemon;
pub mod ssh;
pub mod web;
