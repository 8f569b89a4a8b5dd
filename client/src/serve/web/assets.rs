//! The files the page is made of, all embedded in the binary: ours (web-assets/) and xterm.js
//! with its addons (web-assets/vendor/, tracked in git and refreshed by tools/update-xterm.sh),
//! so any build, `cargo install` included, serves a working terminal without npm.

/// The page a signed-in browser gets.
pub const APP_HTML: &str = include_str!("../../../web-assets/index.html");
/// The page everyone else gets: a token field, nothing about the sessions.
pub const LOGIN_HTML: &str = include_str!("../../../web-assets/login.html");

/// xterm.js and its fit, WebGL and clipboard addons under /assets/: (name, bytes). The names
/// are the vendor/ file names, which tools/update-xterm.sh keeps.
const VENDOR: &[(&str, &[u8])] = &[
    (
        "xterm.mjs",
        include_bytes!("../../../web-assets/vendor/xterm.mjs"),
    ),
    (
        "xterm.css",
        include_bytes!("../../../web-assets/vendor/xterm.css"),
    ),
    (
        "addon-fit.mjs",
        include_bytes!("../../../web-assets/vendor/addon-fit.mjs"),
    ),
    (
        "addon-webgl.mjs",
        include_bytes!("../../../web-assets/vendor/addon-webgl.mjs"),
    ),
    (
        "addon-clipboard.mjs",
        include_bytes!("../../../web-assets/vendor/addon-clipboard.mjs"),
    ),
];

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

    #[test]
    fn xterm_and_its_addons_are_embedded_behind_sign_in() {
        for name in [
            "xterm.mjs",
            "xterm.css",
            "addon-fit.mjs",
            "addon-webgl.mjs",
            "addon-clipboard.mjs",
        ] {
            let (ty, bytes, public) = get(name).unwrap_or_else(|| panic!("{name} not embedded"));
            assert!(!bytes.is_empty(), "{name} is empty");
            assert!(!public, "{name} served before sign-in");
            let want = if name.ends_with(".css") {
                "text/css"
            } else {
                "text/javascript"
            };
            assert!(ty.starts_with(want), "{name}: {ty}");
        }
        // Every /assets/ file that index.html and app.js refer to is one we serve.
        for page in [APP_HTML, include_str!("../../../web-assets/app.js")] {
            for (i, _) in page.match_indices("/assets/") {
                let name: String = page[i + 8..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
                    .collect();
                assert!(
                    get(&name).is_some(),
                    "/assets/{name} is referenced but not served"
                );
            }
        }
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
        for page in [APP_HTML, LOGIN_HTML] {
            for (i, _) in page.match_indices("<script") {
                let tag = &page[i..page[i..].find('>').map_or(page.len(), |e| i + e)];
                assert!(tag.contains("src="), "inline script in a page: {tag}");
            }
            assert!(!has_event_attribute(page), "inline event handler in a page");
        }
    }
}
