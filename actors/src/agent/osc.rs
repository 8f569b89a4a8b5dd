//! Finds OSC 9;4 progress sequences (`ESC ] 9 ; 4 ; <state> [; <percent>] ST`) in a pane's output.
//! The scanner keeps its place between reads, so a sequence split across two chunks is still
//! seen, and it looks at nothing but escape sequences: ordinary output costs one byte search.

/// Bytes of an OSC payload kept; a progress payload is a few bytes, anything longer is skipped.
const PAYLOAD_CAP: usize = 32;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    #[default]
    Ground,
    /// Saw ESC.
    Escape,
    /// Inside an OSC payload.
    Osc,
    /// Saw ESC inside an OSC payload: `\` ends it, anything else aborts it.
    OscEscape,
}

#[derive(Debug, Default)]
pub struct OscScanner {
    phase: Phase,
    payload: Vec<u8>,
    /// The payload outgrew the cap: not a progress sequence, skip to its end.
    overflow: bool,
}

impl OscScanner {
    /// Scan one chunk; returns the state code of the last complete progress sequence in it.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<u32> {
        let mut last = None;
        let mut i = 0;
        while i < bytes.len() {
            match self.phase {
                Phase::Ground => match memchr_esc(&bytes[i..]) {
                    Some(off) => {
                        i += off + 1;
                        self.phase = Phase::Escape;
                    }
                    None => return last,
                },
                Phase::Escape => {
                    let b = bytes[i];
                    i += 1;
                    self.phase = match b {
                        b']' => {
                            self.payload.clear();
                            self.overflow = false;
                            Phase::Osc
                        }
                        ESC => Phase::Escape,
                        _ => Phase::Ground,
                    };
                }
                Phase::Osc => {
                    let b = bytes[i];
                    i += 1;
                    match b {
                        BEL => {
                            if let Some(code) = self.finish() {
                                last = Some(code);
                            }
                        }
                        ESC => self.phase = Phase::OscEscape,
                        CAN | SUB => self.phase = Phase::Ground,
                        _ if self.overflow => {}
                        _ if self.payload.len() >= PAYLOAD_CAP => self.overflow = true,
                        _ => self.payload.push(b),
                    }
                }
                Phase::OscEscape => {
                    let b = bytes[i];
                    if b == b'\\' {
                        i += 1;
                        if let Some(code) = self.finish() {
                            last = Some(code);
                        }
                    } else {
                        // An unterminated OSC is abandoned; the ESC starts a new sequence.
                        self.phase = Phase::Escape;
                    }
                }
            }
        }
        last
    }

    /// End of a payload: its progress state code, if it is a progress sequence.
    fn finish(&mut self) -> Option<u32> {
        self.phase = Phase::Ground;
        if self.overflow {
            return None;
        }
        parse_progress(&self.payload)
    }
}

fn memchr_esc(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == ESC)
}

/// `9;4;<state>[;<percent>]` → state. `9;4` alone, or an empty state, means 0 (progress removed).
fn parse_progress(payload: &[u8]) -> Option<u32> {
    let rest = payload.strip_prefix(b"9;4")?;
    if rest.is_empty() {
        return Some(0);
    }
    let rest = rest.strip_prefix(b";")?;
    let field = rest.split(|&b| b == b';').next().unwrap_or(b"");
    if field.is_empty() {
        return Some(0);
    }
    if field.len() > 3 || !field.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(field).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(chunks: &[&[u8]]) -> Vec<Option<u32>> {
        let mut s = OscScanner::default();
        chunks.iter().map(|c| s.feed(c)).collect()
    }

    #[test]
    fn finds_progress_with_either_terminator() {
        assert_eq!(scan(&[b"\x1b]9;4;1;50\x07"]), [Some(1)]);
        assert_eq!(scan(&[b"text\x1b]9;4;2\x1b\\more"]), [Some(2)]);
        assert_eq!(scan(&[b"\x1b]9;4;0\x07"]), [Some(0)]);
        assert_eq!(scan(&[b"\x1b]9;4\x07"]), [Some(0)]);
        assert_eq!(scan(&[b"\x1b]9;4;\x07"]), [Some(0)]);
        assert_eq!(scan(&[b"\x1b]9;4;4;0\x1b\\"]), [Some(4)]);
    }

    #[test]
    fn last_sequence_of_a_chunk_wins() {
        assert_eq!(scan(&[b"\x1b]9;4;1\x07 x \x1b]9;4;0\x07"]), [Some(0)]);
        assert_eq!(scan(&[b"\x1b]9;4;0\x07\x1b]9;4;3\x07"]), [Some(3)]);
    }

    #[test]
    fn sequences_split_across_reads_are_found() {
        let whole: &[u8] = b"ab\x1b]9;4;3;70\x1b\\cd";
        for cut in 0..=whole.len() {
            let (a, b) = whole.split_at(cut);
            let got = scan(&[a, b]);
            let found: Vec<u32> = got.into_iter().flatten().collect();
            assert_eq!(found, [3], "cut at {cut}");
        }
        // One byte per read.
        let bytes: Vec<&[u8]> = whole.chunks(1).collect();
        let found: Vec<u32> = scan(&bytes).into_iter().flatten().collect();
        assert_eq!(found, [3]);
    }

    #[test]
    fn other_sequences_are_ignored() {
        assert_eq!(scan(&[b"\x1b]0;title\x07"]), [None]);
        assert_eq!(scan(&[b"\x1b]9;hello\x07"]), [None]);
        assert_eq!(scan(&[b"\x1b]9;41\x07"]), [None]);
        assert_eq!(scan(&[b"\x1b[1;31mred\x1b[0m"]), [None]);
        assert_eq!(scan(&[b"\x1b]9;4;x\x07"]), [None]);
        assert_eq!(scan(&[b"plain text, no escapes"]), [None]);
        // A long OSC (a hyperlink) is skipped to its end and does not confuse what follows.
        let mut long = b"\x1b]8;;https://example.com/".to_vec();
        long.extend(std::iter::repeat_n(b'a', 200));
        long.extend_from_slice(b"\x1b\\\x1b]9;4;1\x07");
        assert_eq!(scan(&[&long]), [Some(1)]);
        // A cancelled or interrupted OSC yields nothing, and the next one still counts.
        assert_eq!(scan(&[b"\x1b]9;4;1\x18\x1b]9;4;2\x07"]), [Some(2)]);
        assert_eq!(scan(&[b"\x1b]9;4;1\x1b[0m\x1b]9;4;4\x07"]), [Some(4)]);
    }
}
