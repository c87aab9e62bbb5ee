//! The names the server answers to, and the origins whose pages may open a
//! game connection. A request whose `Host` is another name
//! is refused (421), whatever its route: a page on `evil.example` whose name
//! is made to resolve to this server (DNS rebinding) would otherwise be
//! "same origin" with it, and drive games from a visitor's browser.
//!
//! Answered: any IP address written as one (no name to rebind), `localhost`,
//! and the names given with `--public-host` (the name people use, behind a
//! proxy that passes it on), each with any port.

use crate::Shared;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;
use std::sync::Arc;

/// The names the server answers to besides addresses and `localhost`.
#[derive(Clone, Debug, Default)]
pub struct Hosts {
    names: Vec<String>,
}

/// A host name compared as DNS does: without case or a final dot.
fn normal(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The name part of a `Host` header (`name`, `name:port`, `[v6]:port`).
fn host_name(header: &str) -> &str {
    if let Some(rest) = header.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    match header.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => header,
    }
}

impl Hosts {
    /// Answering to `public` names (such as `yolah.example.org`).
    pub fn new(public: &[String]) -> Hosts {
        Hosts {
            names: public.iter().map(|n| normal(host_name(n))).collect(),
        }
    }

    /// Whether a request with this `Host` header is for this server.
    pub fn answers(&self, header: &str) -> bool {
        let name = normal(host_name(header));
        name.parse::<IpAddr>().is_ok() || name == "localhost" || self.names.contains(&name)
    }

    fn listed(&self) -> String {
        let mut all = vec!["its IP addresses".to_string(), "localhost".to_string()];
        all.extend(self.names.iter().cloned());
        all.join(", ")
    }
}

/// Refuses a request for a name the server does not answer to.
pub async fn check(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if host.is_empty() {
        return (StatusCode::BAD_REQUEST, "send a Host header\n").into_response();
    }
    if !shared.hosts.answers(host) {
        return (
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "this server answers to {}, not {host:?} (see yolah serve --public-host)\n",
                shared.hosts.listed()
            ),
        )
            .into_response();
    }
    next.run(request).await
}

/// Whether a WebSocket may be opened from the page at `Origin`: the
/// server's own origin (same host as the request's `Host`), one allowed by
/// `--allow-origin`, or no `Origin` at all (not a browser).
pub(crate) fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if allowed.iter().any(|a| a.trim_end_matches('/') == origin) {
        return true;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    !host.is_empty() && origin_host == host
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_localhost_and_public_names_are_answered() {
        let hosts = Hosts::new(&["Games.Example.org".into()]);
        for ok in [
            "127.0.0.1:8080",
            "10.1.2.3",
            "[::1]:8080",
            "localhost:8080",
            "games.example.org",
            "GAMES.example.org.:443",
        ] {
            assert!(hosts.answers(ok), "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:8080",
            "games.example.org.evil",
            "",
        ] {
            assert!(!hosts.answers(refused), "{refused}");
        }
    }

    #[test]
    fn origins() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
        assert!(origin_allowed(&h, &[]), "no Origin: not a browser");
        h.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
        assert!(origin_allowed(&h, &[]));
        h.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(!origin_allowed(&h, &[]));
        assert!(origin_allowed(&h, &["https://evil.example/".into()]));
    }
}
