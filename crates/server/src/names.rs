//! Names without accounts: a person picks a display name, and the server
//! keeps it in a cookie it signs (HMAC-SHA256 with a secret kept in the
//! database), so that the name a game shows is one this server gave out.
//! `POST /name` sets it; the WebSocket reads it when it opens.

use crate::Shared;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The cookie's name.
pub const COOKIE: &str = "yolah_name";
/// Characters a name may have at most.
pub const MAX_NAME_CHARS: usize = 24;
/// Bytes a `POST /name` body may have (24 characters of 4 bytes, and room
/// for spaces around them).
pub const MAX_BODY_BYTES: usize = 256;
/// A year, in seconds: how long the browser keeps the name.
const COOKIE_SECONDS: u64 = 365 * 24 * 3600;

/// HMAC-SHA256 of `message` with `key` (RFC 2104).
fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A display name as a person typed it, checked: trimmed, 1 to
/// [`MAX_NAME_CHARS`] letters, digits, spaces and `-_.'`.
pub fn check_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS {
        return Err(format!(
            "a name has 1 to {MAX_NAME_CHARS} characters; {name:?} has {chars}"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || " -_.'".contains(*c)))
    {
        return Err(format!(
            "{bad:?} in {name:?}: a name has letters, digits, spaces and - _ . ' only"
        ));
    }
    Ok(name.to_string())
}

/// Signs and checks name cookies with the server's secret.
pub struct Signer {
    key: Vec<u8>,
}

impl Signer {
    /// A signer with `key`.
    pub fn new(key: Vec<u8>) -> Signer {
        Signer { key }
    }

    /// The cookie value for `name`: the name's bytes in hex, a dot, the
    /// signature in hex.
    pub fn sign(&self, name: &str) -> String {
        format!(
            "{}.{}",
            hex(name.as_bytes()),
            hex(&hmac(&self.key, name.as_bytes()))
        )
    }

    /// The name in a cookie value, if this server signed it.
    pub fn verify(&self, value: &str) -> Option<String> {
        let (name, signature) = value.split_once('.')?;
        let name = String::from_utf8(unhex(name)?).ok()?;
        let expected = hmac(&self.key, name.as_bytes());
        let given = unhex(signature)?;
        // Compared without stopping at the first difference.
        let same = given.len() == expected.len()
            && given
                .iter()
                .zip(expected)
                .fold(0, |acc, (a, b)| acc | (a ^ b))
                == 0;
        (same && check_name(&name).is_ok()).then_some(name)
    }

    /// The signed name in a request's cookies, if any.
    pub fn name_in(&self, headers: &HeaderMap) -> Option<String> {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .flat_map(|h| h.split(';'))
            .filter_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
            .find_map(|value| self.verify(value))
    }
}

/// `POST /name` with the name as the body: sets the signed cookie (an empty
/// body forgets it). Only from the server's own pages.
pub async fn set(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    if !crate::host::origin_allowed(&headers, &shared.allowed_origins) {
        return (StatusCode::FORBIDDEN, "this origin may not set a name\n").into_response();
    }
    if body.trim().is_empty() {
        let forget = format!("{COOKIE}=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly");
        return (
            [(header::SET_COOKIE, forget)],
            axum::Json(serde_json::json!({"name": null})),
        )
            .into_response();
    }
    let name = match check_name(&body) {
        Ok(name) => name,
        Err(e) => return (StatusCode::BAD_REQUEST, format!("{e}\n")).into_response(),
    };
    let cookie = format!(
        "{COOKIE}={}; Path=/; Max-Age={COOKIE_SECONDS}; SameSite=Lax; HttpOnly",
        shared.signer.sign(&name)
    );
    (
        [(header::SET_COOKIE, cookie)],
        axum::Json(serde_json::json!({ "name": name })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2.
        assert_eq!(
            hex(&hmac(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than a block.
        assert_eq!(
            hex(&hmac(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn a_signed_name_reads_back_and_a_forged_one_does_not() {
        let signer = Signer::new(b"secret".to_vec());
        let cookie = signer.sign("Ada Lovelace");
        assert_eq!(signer.verify(&cookie).as_deref(), Some("Ada Lovelace"));
        let forged = format!("{}.{}", hex(b"Admin"), cookie.split('.').nth(1).unwrap());
        assert_eq!(signer.verify(&forged), None);
        assert_eq!(Signer::new(b"other".to_vec()).verify(&cookie), None);
        assert_eq!(signer.verify("zz.zz"), None);
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            format!("a=b; {COOKIE}={cookie}; c=d").parse().unwrap(),
        );
        assert_eq!(signer.name_in(&headers).as_deref(), Some("Ada Lovelace"));
    }

    #[test]
    fn names_are_checked() {
        assert_eq!(check_name("  Zoé O'Neil-2 ").as_deref(), Ok("Zoé O'Neil-2"));
        assert!(check_name("").unwrap_err().contains("1 to 24"));
        assert!(check_name(&"x".repeat(25)).unwrap_err().contains("has 25"));
        assert!(check_name("<script>").unwrap_err().contains("'<'"));
    }
}
