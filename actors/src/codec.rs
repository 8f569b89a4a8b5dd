//! Framing codecs for the two protocols that share the socket.
use bytes::{Bytes, BytesMut};
use tokio_util::codec::Decoder;

/// Newline-delimited lines as raw bytes with a length cap. Raw bytes, not `String`, so a line
/// with invalid UTF-8 becomes an error response instead of a dead connection.
pub struct LineCodec {
    max: usize,
    scanned: usize,
}

#[derive(Debug)]
pub enum LineError {
    TooLong(usize),
    Io(std::io::Error),
}

impl From<std::io::Error> for LineError {
    fn from(e: std::io::Error) -> Self {
        LineError::Io(e)
    }
}

impl LineCodec {
    pub fn new(max: usize) -> Self {
        LineCodec { max, scanned: 0 }
    }
}

impl Decoder for LineCodec {
    type Item = BytesMut;
    type Error = LineError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, LineError> {
        if let Some(pos) = src[self.scanned..].iter().position(|&b| b == b'\n') {
            let end = self.scanned + pos;
            self.scanned = 0;
            if end > self.max {
                return Err(LineError::TooLong(end));
            }
            let mut line = src.split_to(end + 1);
            line.truncate(end);
            if line.last() == Some(&b'\r') {
                line.truncate(end - 1);
            }
            return Ok(Some(line));
        }
        self.scanned = src.len();
        if src.len() > self.max {
            return Err(LineError::TooLong(src.len()));
        }
        Ok(None)
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, LineError> {
        if let Some(line) = self.decode(src)? {
            return Ok(Some(line));
        }
        // A last line without a newline still counts when the peer closes.
        self.scanned = 0;
        if src.is_empty() {
            Ok(None)
        } else {
            Ok(Some(src.split()))
        }
    }
}

/// Binary frames: `[u32 BE length][u8 type][payload]`.
#[derive(Default)]
pub struct FrameCodec;

#[derive(Debug)]
pub enum FrameCodecError {
    Frame(protocol::binary::FrameError),
    Io(std::io::Error),
}

impl From<std::io::Error> for FrameCodecError {
    fn from(e: std::io::Error) -> Self {
        FrameCodecError::Io(e)
    }
}

impl Decoder for FrameCodec {
    type Item = (u8, Bytes);
    type Error = FrameCodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<(u8, Bytes)>, FrameCodecError> {
        protocol::binary::split_client_frame(src).map_err(FrameCodecError::Frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_strip_cr_and_cap() {
        let mut c = LineCodec::new(8);
        let mut b = BytesMut::from(&b"ab\r\ncd\nef"[..]);
        assert_eq!(&c.decode(&mut b).unwrap().unwrap()[..], b"ab");
        assert_eq!(&c.decode(&mut b).unwrap().unwrap()[..], b"cd");
        assert!(c.decode(&mut b).unwrap().is_none());
        assert_eq!(&c.decode_eof(&mut b).unwrap().unwrap()[..], b"ef");
        let mut long = BytesMut::from(&b"0123456789"[..]);
        assert!(matches!(c.decode(&mut long), Err(LineError::TooLong(_))));
    }
}
