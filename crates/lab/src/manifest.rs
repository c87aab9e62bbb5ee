//! What vouches for a file that a long run wrote: a JSON manifest beside
//! it, with the version that wrote it and a checksum of the records, each
//! written through a rename so that a crash leaves nothing that looks
//! finished and is not. Self-play shards (`FILE.shard.json`) and labelled
//! files (`FILE.label.json`) are both checked this way.

use crate::positions::DataError;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::{BufReader, Read, Write};

/// The version written in manifests.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The largest manifest [`read`] takes.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 64 << 10;

/// FNV-1a, 64 bits, of `bytes` continued from `hash`.
pub(crate) fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// FNV-1a's starting value.
pub(crate) const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The checksum of a training file's records, read in pieces.
pub(crate) fn checksum_of(path: &str) -> Result<(String, u64), DataError> {
    let io = |error| DataError::Io {
        action: "read",
        path: path.to_string(),
        error,
    };
    let mut input = BufReader::new(File::open(path).map_err(io)?);
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic).map_err(io)?;
    let (mut hash, mut bytes) = (FNV_START, 0u64);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match input.read(&mut buf).map_err(io)? {
            0 => break,
            n => {
                hash = fnv1a(hash, &buf[..n]);
                bytes += n as u64;
            }
        }
    }
    Ok((format!("0x{hash:016x}"), bytes))
}

/// The manifest at `path`, a JSON `what` (such as "shard manifest"); `hint`
/// ends the message when it cannot be read (how such a file is made).
pub(crate) fn read<T: DeserializeOwned>(
    path: &str,
    what: &str,
    hint: &str,
) -> Result<T, DataError> {
    let bad = |problem: String| DataError::BadShard {
        path: path.to_string(),
        problem,
    };
    let mut text = String::new();
    File::open(path)
        .and_then(|f| f.take(MAX_MANIFEST_BYTES + 1).read_to_string(&mut text))
        .map_err(|e| bad(format!("cannot read it ({e}){hint}")))?;
    if text.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(bad(format!("too long for a {what}")));
    }
    serde_json::from_str(&text).map_err(|e| bad(format!("not a {what}: {e}")))
}

/// Writes `path` through a temporary file and a rename.
pub(crate) fn write_atomically(path: &str, bytes: &[u8]) -> Result<(), DataError> {
    let tmp = format!("{path}.tmp");
    File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|error| DataError::Io {
            action: "write",
            path: path.to_string(),
            error,
        })
}
