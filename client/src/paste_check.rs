//! `tuios paste-check [FILE] [--bracketed]`: run the Lumen paste pipeline on bytes from FILE (or
//! stdin) and print its decision as JSON. Needs no daemon; nothing is pasted anywhere.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;
use protocol::lumen::{decide_paste, PasteDecision};
use serde_json::{json, Value};

#[derive(Debug, Args)]
#[command(
    about = "Show what pasting a file's bytes would do: send, hold for confirmation, or reject",
    after_help = "Prints JSON: action (send, hold or reject); bytes, what would be written to the \
window, printable ASCII as is and every other byte (backslash included) as \\xNN; for hold, \
preview (the text with controls made visible), one_line, keep_controls, has_controls and \
invalid_utf8; for reject, reason."
)]
pub struct PasteCheckArgs {
    /// File holding the paste; stdin when left out or "-".
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Decide as for a window with bracketed paste (DECSET 2004) on.
    #[arg(long)]
    pub bracketed: bool,
}

/// Read the paste and decide; the JSON report, or why the input could not be read.
pub fn run(args: &PasteCheckArgs) -> Result<Value, String> {
    let raw = read_input(args.file.as_deref())?;
    Ok(report(&decide_paste(&raw, args.bracketed)))
}

fn read_input(file: Option<&Path>) -> Result<Vec<u8>, String> {
    match file {
        Some(path) if path != Path::new("-") => std::fs::read(path)
            .map_err(|e| format!("cannot read the paste from {}: {e}", path.display())),
        _ => {
            let mut raw = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut raw)
                .map_err(|e| format!("cannot read the paste from stdin: {e}"))?;
            Ok(raw)
        }
    }
}

/// The decision as JSON; `bytes` is always what would be written (nothing, for a rejection).
pub fn report(decision: &PasteDecision) -> Value {
    match decision {
        PasteDecision::Send(bytes) => json!({
            "action": "send",
            "bytes": escape_bytes(bytes),
        }),
        PasteDecision::Hold(held) => json!({
            "action": "hold",
            "bytes": escape_bytes(&held.stripped),
            "preview": held.preview,
            "one_line": escape_bytes(&held.one_line),
            "keep_controls": escape_bytes(&held.keep_controls),
            "has_controls": held.has_controls,
            "invalid_utf8": held.invalid_utf8,
        }),
        PasteDecision::Reject(reason) => json!({
            "action": "reject",
            "bytes": "",
            "reason": reason,
        }),
    }
}

/// Printable ASCII as it is, every other byte as `\xNN`. A backslash is `\x5c`, so the form is
/// unambiguous and can be decoded back to the exact bytes.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_bytes(b"ls -la ~"), "ls -la ~");
        assert_eq!(
            escape_bytes(b"\x1b[200~\r\n\t\x7f\xc2\x9b"),
            "\\x1b[200~\\x0d\\x0a\\x09\\x7f\\xc2\\x9b"
        );
        assert_eq!(escape_bytes(b"a\\x41"), "a\\x5cx41");
        assert_eq!(escape_bytes(b""), "");
    }

    #[test]
    fn reports() {
        let v = report(&decide_paste(b"echo hi", false));
        assert_eq!(v, json!({"action": "send", "bytes": "echo hi"}));
        let v = report(&decide_paste(b"a\x03b\n", true));
        assert_eq!(v["bytes"], "\\x1b[200~ab\\x0a\\x1b[201~");
        let v = report(&decide_paste(b"a\nb", false));
        assert_eq!(v["action"], "hold");
        assert_eq!(v["bytes"], "a\\x0ab");
        assert_eq!(v["preview"], "a\\nb");
        assert_eq!(v["one_line"], "a b");
        assert_eq!(v["has_controls"], false);
        let v = report(&decide_paste(b"\x1b_lumen;v=0", false));
        assert_eq!(v["action"], "reject");
        assert_eq!(v["bytes"], "");
        assert!(v["reason"].as_str().unwrap().contains("introducer"));
    }
}
