//! Finds the first MessagePack string that is not valid UTF-8, by path, so a decode error can
//! name the field instead of saying only that a payload was malformed.

/// Deeper nesting than this is not searched (the decoder refuses such payloads anyway); it also
/// bounds the recursion.
const MAX_DEPTH: usize = 64;

/// The path (`window`, `sessions[2].name`) of the first string in `payload` that is not UTF-8,
/// or None when every string is valid or the payload is not MessagePack at all.
pub(crate) fn first_invalid_string(payload: &[u8]) -> Option<String> {
    let mut r = Reader {
        buf: payload,
        pos: 0,
    };
    let mut path = String::new();
    match r.value(&mut path, 0) {
        Ok(Some(found)) => Some(found),
        _ => None,
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// `Err(())`: the payload ends early or is not MessagePack; nothing more to find.
type Found = Result<Option<String>, ()>;

enum Item<'a> {
    Str(&'a [u8]),
    Array(usize),
    Map(usize),
    Other,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ()> {
        let end = self.pos.checked_add(n).ok_or(())?;
        let s = self.buf.get(self.pos..end).ok_or(())?;
        self.pos = end;
        Ok(s)
    }

    fn uint(&mut self, bytes: usize) -> Result<usize, ()> {
        let s = self.take(bytes)?;
        Ok(s.iter().fold(0usize, |acc, &b| (acc << 8) | b as usize))
    }

    fn item(&mut self) -> Result<Item<'a>, ()> {
        let m = self.take(1)?[0];
        Ok(match m {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => Item::Other,
            0x80..=0x8f => Item::Map((m & 0x0f) as usize),
            0x90..=0x9f => Item::Array((m & 0x0f) as usize),
            0xa0..=0xbf => Item::Str(self.take((m & 0x1f) as usize)?),
            0xc4 | 0xd9 => {
                let n = self.uint(1)?;
                let s = self.take(n)?;
                if m == 0xd9 {
                    Item::Str(s)
                } else {
                    Item::Other
                }
            }
            0xc5 | 0xda => {
                let n = self.uint(2)?;
                let s = self.take(n)?;
                if m == 0xda {
                    Item::Str(s)
                } else {
                    Item::Other
                }
            }
            0xc6 | 0xdb => {
                let n = self.uint(4)?;
                let s = self.take(n)?;
                if m == 0xdb {
                    Item::Str(s)
                } else {
                    Item::Other
                }
            }
            // ext 8/16/32: length, type byte, data.
            0xc7..=0xc9 => {
                let n = self.uint(1 << (m - 0xc7))?;
                self.take(n.checked_add(1).ok_or(())?)?;
                Item::Other
            }
            0xca => {
                self.take(4)?;
                Item::Other
            }
            0xcb => {
                self.take(8)?;
                Item::Other
            }
            0xcc..=0xcf => {
                self.take(1 << (m - 0xcc))?;
                Item::Other
            }
            0xd0..=0xd3 => {
                self.take(1 << (m - 0xd0))?;
                Item::Other
            }
            // fixext 1/2/4/8/16: type byte plus data.
            0xd4..=0xd8 => {
                self.take(1 + (1 << (m - 0xd4)))?;
                Item::Other
            }
            0xdc => Item::Array(self.uint(2)?),
            0xdd => Item::Array(self.uint(4)?),
            0xde => Item::Map(self.uint(2)?),
            0xdf => Item::Map(self.uint(4)?),
            0xc1 => return Err(()),
        })
    }

    fn value(&mut self, path: &mut String, depth: usize) -> Found {
        if depth > MAX_DEPTH {
            return Err(());
        }
        match self.item()? {
            Item::Str(s) => Ok(std::str::from_utf8(s).is_err().then(|| display(path))),
            Item::Other => Ok(None),
            Item::Array(n) => {
                for i in 0..n {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    let found = self.value(path, depth + 1)?;
                    path.truncate(len);
                    if found.is_some() {
                        return Ok(found);
                    }
                }
                Ok(None)
            }
            Item::Map(n) => {
                for _ in 0..n {
                    let key = match self.item()? {
                        Item::Str(s) => match std::str::from_utf8(s) {
                            Ok(k) => k.to_owned(),
                            Err(_) => return Ok(Some(format!("{} (a key)", display(path)))),
                        },
                        Item::Other => "?".to_owned(),
                        // A container as a key: not something any of our payloads have.
                        Item::Array(_) | Item::Map(_) => return Err(()),
                    };
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    // Field names are ours, but a peer may send anything: keep it printable.
                    path.push_str(&crate::closest::echo_name(&key));
                    let found = self.value(path, depth + 1)?;
                    path.truncate(len);
                    if found.is_some() {
                        return Ok(found);
                    }
                }
                Ok(None)
            }
        }
    }
}

fn display(path: &str) -> String {
    if path.is_empty() {
        "(the payload itself)".to_owned()
    } else {
        path.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_field() {
        // {"op":"input","window":<a0 ff>}
        let mut p = vec![0x82, 0xa2, b'o', b'p', 0xa5];
        p.extend_from_slice(b"input");
        p.extend_from_slice(&[0xa6]);
        p.extend_from_slice(b"window");
        p.extend_from_slice(&[0xa2, 0xff, 0xfe]);
        assert_eq!(first_invalid_string(&p).as_deref(), Some("window"));
        // Nested in a list of maps.
        let mut q = vec![0x81, 0xa8];
        q.extend_from_slice(b"sessions");
        q.extend_from_slice(&[
            0x92, 0x81, 0xa1, b'n', 0xa1, b'a', 0x81, 0xa1, b'n', 0xa1, 0x80,
        ]);
        assert_eq!(first_invalid_string(&q).as_deref(), Some("sessions[1].n"));
        // All valid, or not MessagePack at all.
        assert_eq!(first_invalid_string(&[0x81, 0xa1, b'a', 0xa1, b'b']), None);
        assert_eq!(first_invalid_string(&[0xc1]), None);
        assert_eq!(first_invalid_string(&[0xdb, 0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(first_invalid_string(&[0x91; 10_000]), None);
    }
}
