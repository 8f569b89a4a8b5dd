//! The files the page is made of: ours (web-assets/, always embedded) and xterm.js (embedded
//! by build.rs when node_modules holds it).

include!(concat!(env!("OUT_DIR"), "/web_vendor.rs"));

/// The page a signed-in browser gets.
pub const APP_HTML: &str = include_str!("../../../web-assets/index.html");
/// The page everyone else gets: a token field, nothing about the sessions.
pub const LOGIN_HTML: &str = include_str!("../../../web-assets/login.html");
/// Served instead of the app when this build carries no xterm.js.
pub const MISSING_HTML: &str = include_str!("../../../web-assets/missing.html");

/// What to run so a build carries xterm.js.
pub const HOW_TO_GET: &str =
    "npm ci --prefix client/web-assets, then build tuios again (cargo build -p tuios-client)";

/// Our own files under /assets/: (name, content type, bytes, served before sign-in).
const OWN: &[(&str, &str, &[u8], bool)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web-assets/app.js"),
        false,
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_bytes!("../../../web-assets/app.css"),
        true,
    ),
];

/// Whether this build embeds xterm.js.
pub fn have_vendor() -> bool {
    !VENDOR.is_empty()
}

/// An asset by name: (content type, bytes, public). Public ones (the stylesheet) are served to
/// the login page too; everything else only after sign-in.
pub fn get(name: &str) -> Option<(&'static str, &'static [u8], bool)> {
    if let Some((_, ty, bytes, public)) = OWN.iter().find(|(n, ..)| *n == name) {
        return Some((ty, bytes, *public));
    }
    VENDOR
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, bytes)| (content_type(n), *bytes, false))
}

fn content_type(name: &str) -> &'static str {
    if name.ends_with(".css") {
        "text/css; charset=utf-8"
    } else {
        "text/javascript; charset=utf-8"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_assets_are_served_and_unknown_ones_are_not() {
        let (ty, bytes, public) = get("app.js").unwrap();
        assert!(ty.starts_with("text/javascript"));
        assert!(!bytes.is_empty());
        assert!(!public);
        assert!(get("app.css").unwrap().2);
        assert!(get("../Cargo.toml").is_none());
        assert!(get("").is_none());
    }

    /// ` onclick=` and the like: an attribute that runs script.
    fn has_event_attribute(page: &str) -> bool {
        page.match_indices(" on").any(|(i, _)| {
            let rest = &page[i + 3..];
            let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
            name_len > 0 && rest[name_len..].starts_with('=')
        })
    }

    #[test]
    fn pages_carry_no_inline_script() {
        for page in [APP_HTML, LOGIN_HTML, MISSING_HTML] {
            for (i, _) in page.match_indices("<script") {
                let tag = &page[i..page[i..].find('>').map_or(page.len(), |e| i + e)];
                assert!(tag.contains("src="), "inline script in a page: {tag}");
            }
            assert!(!has_event_attribute(page), "inline event handler in a page");
        }
    }
}
