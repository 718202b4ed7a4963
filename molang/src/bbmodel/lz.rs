//! Blockbench's compressed project files: `<lz>` followed by the JSON compressed with LZUTF8
//! (the npm package `lzutf8`, 0.6) and stored as a "StorageBinaryString", which Blockbench
//! writes when its "compress project files" setting is on and reads back in `autoParseJSON`.
//! The crate `lzutf8` (0.1.1, a first release) reads it, but decompresses without an output
//! bound (a 64 MiB model file could decompress to hundreds of MiB); the format is small:
//!
//! - the text after `<lz>` is a string of UTF-16 code units, each one holding 15 bits of the
//!   compressed bytes (big-endian, most significant bit first); a unit `0x8000` or `0x8001`
//!   ends a run of bits (`0x8001`: the last byte of the run is padding), and `0x8002` stands
//!   for a unit 0 (a NUL character, which storage would mangle);
//! - the bytes are LZ77 over UTF-8: a byte whose top two bits are `11` followed by a byte
//!   whose top bit is 0 is a back-reference: length in the low 5 bits, distance in the next
//!   byte (`110…`) or the next two bytes, big-endian (`111…`); every other byte is itself.
//!
//! Decoding is bounded: the output stops with an error past `limit` bytes.

/// What went wrong, and at which character of the text after `<lz>` (0-based).
#[derive(Debug, Clone, PartialEq)]
pub struct LzError {
    pub at: usize,
    pub message: String,
}

/// The text (after `<lz>`) decompressed to bytes, at most `limit` of them.
pub fn decompress(text: &str, limit: usize) -> Result<Vec<u8>, LzError> {
    // The 15-bit units to bytes (lzutf8 `BinaryString.decode`), remembering which character
    // each byte came from for error positions.
    let mut bytes: Vec<u8> = Vec::with_capacity(text.len());
    let mut from: Vec<usize> = Vec::with_capacity(text.len());
    let (mut remainder, mut state) = (0u32, 0u32);
    for (i, c) in text.chars().enumerate() {
        let mut value = c as u32;
        if value == 0x8002 {
            value = 0;
        }
        if value >= 0x8000 {
            match value {
                0x8000 => {}
                0x8001 => {
                    if bytes.pop().is_none() {
                        return Err(LzError {
                            at: i,
                            message: "the compressed data ends a run that holds no byte".into(),
                        });
                    }
                    from.pop();
                }
                _ => {
                    return Err(LzError {
                        at: i,
                        message: format!(
                            "U+{value:04X} is not a character of LZUTF8's storage encoding"
                        ),
                    })
                }
            }
            state = 0;
            continue;
        }
        if state == 0 {
            remainder = value;
        } else {
            let v = (remainder << state) | (value >> (15 - state));
            bytes.extend([(v >> 8) as u8, v as u8]);
            from.extend([i, i]);
            remainder = value & ((1 << (15 - state)) - 1);
        }
        state = if state == 15 { 0 } else { state + 1 };
        if bytes.len() > limit.saturating_mul(2).saturating_add(16) {
            // Compressed data is never larger than what it holds (plus a little).
            return Err(LzError {
                at: i,
                message: format!("the compressed data is over {limit} bytes"),
            });
        }
    }
    // LZ77 over UTF-8 (lzutf8 `Decompressor.decompressBlock`).
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len() * 2);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b >> 6 != 3 || bytes.get(i + 1).is_some_and(|n| n >> 7 == 1) {
            out.push(b);
            i += 1;
        } else {
            let two = b >> 5 == 7;
            let need = if two { 3 } else { 2 };
            if i + need > bytes.len() {
                return Err(LzError {
                    at: from[i],
                    message: "the compressed data ends inside a back-reference".into(),
                });
            }
            let length = (b & 31) as usize;
            let distance = if two {
                (bytes[i + 1] as usize) << 8 | bytes[i + 2] as usize
            } else {
                bytes[i + 1] as usize
            };
            if distance == 0 || distance > out.len() {
                return Err(LzError {
                    at: from[i],
                    message: format!(
                        "a back-reference {distance} bytes back, with {} bytes decompressed",
                        out.len()
                    ),
                });
            }
            let start = out.len() - distance;
            // Byte by byte: a reference may overlap what it writes.
            for k in 0..length {
                let x = out[start + k];
                out.push(x);
            }
            i += need;
        }
        if out.len() > limit {
            return Err(LzError {
                at: from[i.min(from.len() - 1)],
                message: format!(
                    "the compressed model decompresses to more than {} MiB",
                    limit >> 20
                ),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lzutf8's `BinaryString.encode` and `StorageBinaryString.encode`, for round trips.
    fn store(input: &[u8]) -> String {
        let mut out: Vec<u32> = Vec::new();
        if !input.is_empty() {
            let (mut remainder, mut state) = (0u32, 1u32);
            let mut i = 0;
            while i < input.len() {
                let value = if i == input.len() - 1 {
                    (input[i] as u32) << 8
                } else {
                    (input[i] as u32) << 8 | input[i + 1] as u32
                };
                out.push(((remainder << (16 - state)) | value >> state) & 0xffff);
                remainder = value & ((1 << state) - 1);
                if state == 15 {
                    out.push(remainder);
                    remainder = 0;
                    state = 1;
                } else {
                    state += 1;
                }
                if i + 2 >= input.len() {
                    out.push((remainder << (16 - state)) & 0xffff);
                }
                i += 2;
            }
            out.push(0x8000 | (input.len() as u32 % 2));
        }
        out.iter()
            .map(|&u| char::from_u32(if u == 0 { 0x8002 } else { u }).unwrap())
            .collect()
    }

    #[test]
    fn literals_and_back_references() {
        // "abcabcabcd": 3 literals, a 6-byte reference 3 back (overlapping), then "d".
        let bytes = [b'a', b'b', b'c', 0xC0 | 6, 3, b'd'];
        assert_eq!(decompress(&store(&bytes), 1000).unwrap(), b"abcabcabcd");
        // A two-byte distance.
        let bytes = [b'x', b'y', 0xE0 | 2, 0, 2];
        assert_eq!(decompress(&store(&bytes), 1000).unwrap(), b"xyxy");
        // UTF-8: a lead byte `110…` before a continuation byte is a literal.
        let text = "é€𝄞 é€𝄞";
        assert_eq!(
            decompress(&store(text.as_bytes()), 1000).unwrap(),
            text.as_bytes()
        );
        // Every byte value through the 15-bit packing, odd and even lengths.
        for n in [0usize, 1, 2, 29, 30, 31, 300] {
            let data: Vec<u8> = (0..n).map(|k| (k * 7 % 128) as u8).collect();
            assert_eq!(decompress(&store(&data), 1000).unwrap(), data, "{n}");
        }
    }

    #[test]
    fn bad_data_is_an_error_at_its_place_never_a_panic() {
        // A reference before the start.
        let e = decompress(&store(&[b'a', 0xC0 | 4, 9]), 1000).unwrap_err();
        assert!(e.message.contains("9 bytes back"), "{e:?}");
        // Distance 0.
        assert!(decompress(&store(&[b'a', 0xC0 | 4, 0]), 1000).is_err());
        // Cut inside a two-byte reference.
        let e = decompress(&store(&[b'a', 0xE0 | 4, 0]), 1000).unwrap_err();
        assert!(e.message.contains("ends inside"), "{e:?}");
        // A character outside the encoding, at its index.
        let mut chars: Vec<char> = store(b"abcd").chars().collect();
        chars.insert(1, '\u{9000}');
        let s: String = chars.into_iter().collect();
        assert_eq!(decompress(&s, 1000).unwrap_err().at, 1);
        // Over the limit: a tiny input that repeats itself 31 bytes at a time.
        let mut bomb = vec![b'a'];
        for _ in 0..1000 {
            bomb.extend([0xC0 | 31, 1]);
        }
        let e = decompress(&store(&bomb), 10_000).unwrap_err();
        assert!(e.message.contains("more than"), "{e:?}");
        assert_eq!(decompress(&store(&bomb), 40_000).unwrap().len(), 31_001);
        // Arbitrary text never panics.
        for s in ["", "\u{8001}", "\u{8000}\u{8001}", "\u{7fff}", "日本語"] {
            let _ = decompress(s, 1000);
        }
    }
}
