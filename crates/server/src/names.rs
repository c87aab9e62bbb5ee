//! Names without accounts: a person picks a display name, and the server
//! keeps it in a cookie it signs (HMAC-SHA256 with a secret kept in the
//! database), so that the name a game shows is one this server gave out.
//! The cookie also carries an id the server gave that browser the first
//! time: two people may pick the same name, but not the same id, and a
//! rating belongs to the id. `POST /name` sets it (keeping the id when the
//! browser has one); the WebSocket reads it when it opens.

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

/// Hex digits of a person's id (64 random bits).
const ID_HEX_DIGITS: usize = 16;

/// A person without an account: the name they chose, and the id this
/// server gave their browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    /// 16 hex digits, random.
    pub id: String,
    /// Their display name (checked by [`check_name`]).
    pub name: String,
}

impl Person {
    /// `name` with a new random id.
    pub fn new(name: String) -> Person {
        let mut bytes = [0u8; ID_HEX_DIGITS / 2];
        getrandom::fill(&mut bytes).expect("the operating system provides random bytes");
        Person {
            id: hex(&bytes),
            name,
        }
    }

    /// What the signature covers: the id and the name.
    fn signed_text(&self) -> String {
        format!("{}.{}", self.id, self.name)
    }
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

    /// The cookie value for `person`: the id, a dot, the name's bytes in
    /// hex, a dot, the signature of both in hex.
    pub fn sign(&self, person: &Person) -> String {
        format!(
            "{}.{}.{}",
            person.id,
            hex(person.name.as_bytes()),
            hex(&hmac(&self.key, person.signed_text().as_bytes()))
        )
    }

    /// The person in a cookie value, if this server signed it.
    pub fn verify(&self, value: &str) -> Option<Person> {
        let mut parts = value.split('.');
        let (id, name, signature) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some()
            || id.len() != ID_HEX_DIGITS
            || !id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        let person = Person {
            id: id.to_string(),
            name: String::from_utf8(unhex(name)?).ok()?,
        };
        let expected = hmac(&self.key, person.signed_text().as_bytes());
        let given = unhex(signature)?;
        // Compared without stopping at the first difference.
        let same = given.len() == expected.len()
            && given
                .iter()
                .zip(expected)
                .fold(0, |acc, (a, b)| acc | (a ^ b))
                == 0;
        (same && check_name(&person.name).is_ok()).then_some(person)
    }

    /// The signed person in a request's cookies, if any.
    pub fn person_in(&self, headers: &HeaderMap) -> Option<Person> {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .flat_map(|h| h.split(';'))
            .filter_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
            .find_map(|value| self.verify(value))
    }
}

/// `POST /name` with the name as the body: sets the signed cookie, with the
/// id the browser's cookie already has or a new one (an empty body forgets
/// both). Only from the server's own pages.
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
    let person = match shared.signer.person_in(&headers) {
        Some(known) => Person { name, ..known },
        None => Person::new(name),
    };
    let cookie = format!(
        "{COOKIE}={}; Path=/; Max-Age={COOKIE_SECONDS}; SameSite=Lax; HttpOnly",
        shared.signer.sign(&person)
    );
    let name = person.name;
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
        let ada = Person::new("Ada Lovelace".into());
        let cookie = signer.sign(&ada);
        assert_eq!(signer.verify(&cookie), Some(ada.clone()));
        let parts: Vec<&str> = cookie.split('.').collect();
        let forged = format!("{}.{}.{}", parts[0], hex(b"Admin"), parts[2]);
        assert_eq!(signer.verify(&forged), None);
        // Another's id with Ada's name and signature: refused too.
        let stolen = format!("{}.{}.{}", "0".repeat(16), parts[1], parts[2]);
        assert_eq!(signer.verify(&stolen), None);
        assert_eq!(Signer::new(b"other".to_vec()).verify(&cookie), None);
        assert_eq!(signer.verify("zz.zz"), None);
        // The first servers' cookies (no id) are not read.
        assert_eq!(signer.verify(&format!("{}.{}", parts[1], parts[2])), None);
        assert_ne!(Person::new("Ada".into()).id, Person::new("Ada".into()).id);
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            format!("a=b; {COOKIE}={cookie}; c=d").parse().unwrap(),
        );
        assert_eq!(signer.person_in(&headers), Some(ada));
    }

    #[test]
    fn names_are_checked() {
        assert_eq!(check_name("  Zoé O'Neil-2 ").as_deref(), Ok("Zoé O'Neil-2"));
        assert!(check_name("").unwrap_err().contains("1 to 24"));
        assert!(check_name(&"x".repeat(25)).unwrap_err().contains("has 25"));
        assert!(check_name("<script>").unwrap_err().contains("'<'"));
    }
}
