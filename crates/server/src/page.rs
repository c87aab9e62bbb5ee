//! The page and its files, compiled into the binary: `page.html` (the
//! markup and its styles), `page.js` (everything it does), the favicon.

use axum::http::header;
use axum::response::IntoResponse;

/// The page, served at `/`.
pub const HTML: &str = include_str!("page.html");
/// Its script, served at `/page.js`.
pub const SCRIPT: &str = include_str!("page.js");
/// The icon, as SVG (for browsers that take one) and as ICO.
const FAVICON_SVG: &str = include_str!("favicon.svg");
const FAVICON_ICO: &[u8] = include_bytes!("favicon.ico");

/// The page and its script change with the binary: a browser asks again
/// each time (a revalidation costs a round trip, not the bytes).
const NO_CACHE: (header::HeaderName, &str) = (header::CACHE_CONTROL, "no-cache");

pub async fn html() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8"), NO_CACHE],
        HTML,
    )
}

pub async fn script() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            NO_CACHE,
        ],
        SCRIPT,
    )
}

pub async fn favicon_svg() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "max-age=86400"),
        ],
        FAVICON_SVG,
    )
}

pub async fn favicon_ico() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "image/x-icon"),
            (header::CACHE_CONTROL, "max-age=86400"),
        ],
        FAVICON_ICO,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_states_the_archives_rule_as_the_store_applies_it() {
        let said = format!(
            "shorter than {} plies are not listed",
            crate::store::MIN_LISTED_PLIES
        );
        assert!(SCRIPT.contains(&said), "page.js should say {said:?}");
    }
}
