//! The server's side of the LSP base protocol on a byte stream: `Content-Length` framing read
//! with bounded memory, and every framing error answered or logged, never fatal
//! (`lsp-server`'s own reader allocates whatever `Content-Length` says and ends the
//! connection on the first malformed message).
//!
//! - A body larger than [`MAX_MESSAGE`] is not read: the request gets an error response when
//!   its id can be seen in the body's first bytes, and the reader finds the next header.
//! - A header block without a usable `Content-Length` is logged and skipped.
//! - After a framing error the reader resynchronises on the last `Content-Length:` of a line:
//!   the real next header (raw `\r\n` cannot occur inside a JSON string, so a header pattern
//!   in a body is never followed by one; and the body runs up to the next header on its line).
//! - A body that is not JSON is a parse error (logged: it has no id); JSON that is not a
//!   message gets an `InvalidRequest` error when it has an id, else a log line.

use std::io::{BufRead, Write};

use lsp_server::{ErrorCode, Message, RequestId, Response};

/// Largest message body read (64 MiB).
pub const MAX_MESSAGE: usize = 64 << 20;
/// Longest header line kept (longer lines are read through, keeping their end).
const MAX_HEADER_LINE: usize = 8 << 10;
/// Bytes of an oversized body looked at for its id.
const ID_PEEK: usize = 4 << 10;

/// What one read gave.
#[derive(Debug)]
pub enum Frame {
    /// A message to handle.
    Message(Message),
    /// An error to answer: the request's id, the error code and why.
    Reply(RequestId, ErrorCode, String),
    /// Something that cannot be answered: logged, then skipped.
    Skip(String),
    /// The end of the input.
    Eof,
}

/// Reads header lines at most [`MAX_HEADER_LINE`] long each (the end of a longer line is
/// kept); `None` at the end of input.
fn header_line(r: &mut dyn BufRead) -> std::io::Result<Option<(Vec<u8>, bool)>> {
    let mut line = Vec::new();
    let mut long = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok((!line.is_empty()).then_some((line, long)));
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        line.extend_from_slice(&chunk[..take]);
        r.consume(take);
        if line.len() > 2 * MAX_HEADER_LINE {
            line.drain(..line.len() - MAX_HEADER_LINE);
            long = true;
        }
        if done {
            return Ok(Some((line, long)));
        }
    }
}

/// The offset of the last `content-length:` (any case) in `line`.
fn last_content_length(line: &[u8]) -> Option<usize> {
    const KEY: &[u8] = b"content-length:";
    (0..=line.len().checked_sub(KEY.len())?)
        .rev()
        .find(|&i| line[i..i + KEY.len()].eq_ignore_ascii_case(KEY))
}

/// Reads one frame from `r`.
pub fn read_frame(r: &mut dyn BufRead) -> std::io::Result<Frame> {
    let mut length: Option<Result<usize, String>> = None;
    let mut junk = 0usize;
    let mut headers = 0usize;
    loop {
        let Some((mut line, long)) = header_line(r)? else {
            return Ok(if headers > 0 || junk > 0 {
                Frame::Skip("the input ended inside a message header".into())
            } else {
                Frame::Eof
            });
        };
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if line.is_empty() {
            if headers == 0 && junk == 0 {
                continue; // blank lines between messages
            }
            break;
        }
        // Resynchronise: a header glued after the body of a broken message starts here.
        match last_content_length(&line) {
            Some(0) if !long => {}
            Some(i) => {
                junk += i;
                line.drain(..i);
                length = None;
            }
            None if long || !line.contains(&b':') => {
                junk += line.len();
                continue;
            }
            None => {}
        }
        headers += 1;
        let text = String::from_utf8_lossy(&line);
        let Some((name, value)) = text.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let v = value.trim();
            length = Some(match v.parse::<u64>() {
                Ok(n) if n <= MAX_MESSAGE as u64 => Ok(n as usize),
                Ok(n) => Err(format!(
                    "a message of {n} bytes is larger than the {} MiB the server reads",
                    MAX_MESSAGE >> 20
                )),
                Err(_) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => Err(format!(
                    "a message of {v} bytes is larger than the {} MiB the server reads",
                    MAX_MESSAGE >> 20
                )),
                Err(_) => Err(format!(
                    "`Content-Length: {}` is not a length",
                    molang::text::excerpt(v, 40)
                )),
            });
        }
    }
    let skipped = if junk > 0 {
        format!(" ({junk} bytes before it were not a message and were skipped)")
    } else {
        String::new()
    };
    let n = match length {
        None => {
            return Ok(Frame::Skip(format!(
                "a message header without Content-Length; skipped{skipped}"
            )))
        }
        Some(Ok(n)) => n,
        Some(Err(why)) if why.starts_with("a message of") => {
            // Unread; its id, when its first bytes show one, gets the answer.
            let head = peek(r, ID_PEEK)?;
            return Ok(match peek_id(&head) {
                Some(id) => Frame::Reply(id, ErrorCode::InvalidRequest, why),
                None => Frame::Skip(format!("{why}; skipped{skipped}")),
            });
        }
        Some(Err(why)) => return Ok(Frame::Skip(format!("{why}; skipped{skipped}"))),
    };
    let mut body = Vec::new();
    let got = std::io::Read::read_to_end(&mut std::io::Read::take(&mut *r, n as u64), &mut body)?;
    if got < n {
        return Ok(Frame::Skip(format!(
            "the input ended after {got} of the {n} bytes of a message"
        )));
    }
    Ok(decode(&body))
}

/// Up to `n` bytes that are already buffered or come at once, left unread (the reader
/// resynchronises over them).
fn peek(r: &mut dyn BufRead, n: usize) -> std::io::Result<Vec<u8>> {
    let chunk = r.fill_buf()?;
    Ok(chunk[..chunk.len().min(n)].to_vec())
}

/// A request id at the top level of a JSON object's first bytes (`{"jsonrpc":"2.0","id":7,…`).
fn peek_id(head: &[u8]) -> Option<RequestId> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < head.len() {
        match head[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b'"' => {
                let start = i + 1;
                i = start;
                while i < head.len() && head[i] != b'"' {
                    i += if head[i] == b'\\' { 2 } else { 1 };
                }
                let key = head.get(start..i)?;
                if depth == 1 && key == b"id" {
                    let rest = &head[i + 1..];
                    let rest = rest.trim_ascii_start().strip_prefix(b":")?;
                    let rest = rest.trim_ascii_start();
                    let mut de =
                        serde_json::Deserializer::from_slice(rest).into_iter::<serde_json::Value>();
                    return match de.next()? {
                        Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => {
                            serde_json::from_value(v).ok()
                        }
                        _ => None,
                    };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A body as a message, or the error it gets.
fn decode(body: &[u8]) -> Frame {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Frame::Skip(format!("a message that is not JSON ({e}); skipped")),
    };
    let id = value
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let is_message = value.is_object()
        && (value.get("method").is_some_and(|m| m.is_string())
            || value.get("result").is_some()
            || value.get("error").is_some());
    let why = "not a JSON-RPC request, response or notification";
    if !is_message {
        return match id {
            Some(id) => Frame::Reply(id, ErrorCode::InvalidRequest, why.into()),
            None => Frame::Skip(format!("a message {why}; skipped")),
        };
    }
    match serde_json::from_value::<Message>(value) {
        Ok(m) => Frame::Message(m),
        Err(e) => match id {
            Some(id) => Frame::Reply(id, ErrorCode::InvalidRequest, format!("{why}: {e}")),
            None => Frame::Skip(format!("a message {why} ({e}); skipped")),
        },
    }
}

/// Writes one message to stdout, whole (the lock keeps the reader's answers and the
/// server's from interleaving).
pub fn write_stdout(msg: &Message) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    msg.write(&mut out)?;
    out.flush()
}

/// Reads stdin until its end, passing messages to `to_server` (false: the server is gone)
/// and answering or logging (stderr and `window/logMessage`) what is not one.
pub fn read_stdin(mut to_server: impl FnMut(Message) -> bool) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        match read_frame(&mut input) {
            Ok(Frame::Eof) => return,
            Ok(Frame::Message(m)) => {
                if !to_server(m) {
                    return;
                }
            }
            Ok(Frame::Reply(id, code, why)) => {
                eprintln!("molang lsp: {why}");
                let _ = write_stdout(&Message::Response(Response::new_err(id, code as i32, why)));
            }
            Ok(Frame::Skip(why)) => log(&why),
            Err(e) => {
                log(&format!("cannot read the input: {e}"));
                return;
            }
        }
    }
}

/// A framing problem, on stderr and to the client's log.
fn log(why: &str) {
    eprintln!("molang lsp: {why}");
    let params = serde_json::json!({"type": 1, "message": format!("molang lsp: {why}")});
    let _ = write_stdout(&Message::Notification(lsp_server::Notification::new(
        "window/logMessage".into(),
        params,
    )));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut r = std::io::BufReader::new(input);
        let mut out = Vec::new();
        loop {
            match read_frame(&mut r).unwrap() {
                Frame::Eof => return out,
                f => out.push(f),
            }
        }
    }

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;

    fn is_ping(f: &Frame) -> bool {
        matches!(f, Frame::Message(Message::Request(r)) if r.method == "ping")
    }

    #[test]
    fn huge_lengths_are_refused_unread_and_the_next_message_is_found() {
        for n in [
            "18446744073709551615",
            "1000000000000",
            "99999999999999999999999",
        ] {
            let input = format!(
                "Content-Length: {n}\r\n\r\n{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"x\"}}{}",
                framed(PING)
            );
            let f = frames(input.as_bytes());
            assert!(
                matches!(&f[0], Frame::Reply(id, ErrorCode::InvalidRequest, why)
                    if *id == RequestId::from(4) && why.contains("larger than the 64 MiB")),
                "{n}: {f:?}"
            );
            assert!(is_ping(&f[1]), "{n}: {f:?}");
            assert_eq!(f.len(), 2, "{f:?}");
        }
    }

    #[test]
    fn broken_headers_and_bodies_are_skipped() {
        let cases = [
            format!("Content-Length: abc\r\n\r\n{{}}{}", framed(PING)),
            format!("Content-Type: x\r\n\r\n{PING}{}", framed(PING)),
            format!("{}{}", framed("{not json"), framed(PING)),
            format!("{}{}", framed(r#"{"jsonrpc":"2.0"}"#), framed(PING)),
            format!("Content-Length:\r\n\r\n{{}}{}", framed(PING)),
        ];
        for input in &cases {
            let f = frames(input.as_bytes());
            assert_eq!(f.len(), 2, "{input:?}: {f:?}");
            assert!(matches!(f[0], Frame::Skip(_)), "{input:?}: {f:?}");
            assert!(is_ping(&f[1]), "{input:?}: {f:?}");
        }
        // Lines that are no header are passed over on the way to the next one.
        let f = frames(format!("garbage line\r\n{}", framed(PING)).as_bytes());
        assert!(is_ping(&f[0]) && f.len() == 1, "{f:?}");
        let f = frames(framed(r#"{"jsonrpc":"2.0","id":"a"}"#).as_bytes());
        assert!(
            matches!(&f[0], Frame::Reply(id, ErrorCode::InvalidRequest, _) if *id == RequestId::from("a".to_string())),
            "{f:?}"
        );
    }

    #[test]
    fn a_header_pattern_inside_a_body_does_not_confuse_the_reader() {
        let body = r#"{"jsonrpc":"2.0","method":"n","params":{"text":"Content-Length: 5\r\n"}}"#;
        let f = frames(format!("{}{}", framed(body), framed(PING)).as_bytes());
        assert!(
            matches!(&f[0], Frame::Message(Message::Notification(_))),
            "{f:?}"
        );
        assert!(is_ping(&f[1]));
    }
}
