//! How store addresses and store texts are shown to people: a URL without any password
//! ([`redact_url`], [`split_url_password`]), and texts read from a store made safe for a
//! terminal ([`terminal_safe`]). The one place for both, used by the CLI, the app's views and the
//! store's own messages.

/// Query keys whose values are secrets (libpq's `password` and `sslpassword`).
const SECRET_KEYS: [&str; 2] = ["password", "sslpassword"];

fn is_secret_param(kv: &str) -> bool {
    let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
    SECRET_KEYS.contains(&key.as_str())
}

/// Where the first secret query parameter (`?password=`, `&sslpassword=`, any case) starts.
fn first_secret_param(rest: &str) -> Option<usize> {
    let lower = rest.to_ascii_lowercase();
    SECRET_KEYS
        .iter()
        .flat_map(|k| {
            ["?", "&"]
                .into_iter()
                .filter_map(|sep| lower.find(&format!("{sep}{k}=")))
                .collect::<Vec<_>>()
        })
        .min()
}

/// `url` split into the URL without any password (`postgres://user@host:port/db?sslmode=…`)
/// and the password it held (the userinfo's, else a `password=` query parameter's).
///
/// A password may hold any character a person types (`?`, `/`, `@`, `#`, `&`): the userinfo
/// ends at the last `@` before the first secret query parameter, and everything between the
/// user name's `:` and that `@` is the password, dropped whatever it holds. Secret query
/// parameters (`password=`, `sslpassword=`) are dropped wherever they are.
pub fn split_url_password(url: &str) -> (String, Option<String>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_string(), None);
    };
    let limit = first_secret_param(rest).unwrap_or(rest.len());
    let at = rest[..limit].rfind('@').or_else(|| rest.rfind('@'));
    let (user, mut password, after) = match at {
        Some(at) => {
            let userinfo = &rest[..at];
            let (user, password) = match userinfo.split_once(':') {
                Some((u, p)) => (u, Some(p.to_string())),
                None => (userinfo, None),
            };
            (Some(user), password, &rest[at + 1..])
        }
        None => (None, None, rest),
    };
    let (host_path, query) = match after.split_once('?') {
        Some((hp, q)) => (hp, Some(q)),
        None => (after, None),
    };
    let mut kept = Vec::new();
    for kv in query.into_iter().flat_map(|q| q.split(['&', '?'])) {
        if kv.is_empty() {
            continue;
        }
        if is_secret_param(kv) {
            let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
            if key == "password" && password.is_none() {
                password = kv.split_once('=').map(|(_, v)| v.to_string());
            }
        } else {
            kept.push(kv);
        }
    }
    let mut shown = format!("{scheme}://");
    if let Some(u) = user {
        shown.push_str(u);
        shown.push('@');
    }
    shown.push_str(host_path);
    if !kept.is_empty() {
        shown.push('?');
        shown.push_str(&kept.join("&"));
    }
    (shown, password.filter(|p| !p.is_empty()))
}

/// `url` without any password (`postgres://user@host:port/db`), for messages and records
/// ([`split_url_password`]).
pub fn redact_url(url: &str) -> String {
    split_url_password(url).0
}

/// `text` (read from a store: host names, errors, run names, notes others wrote) safe to print
/// to a terminal: control characters (escape sequences, carriage returns, OSC/CSI introducers,
/// bidi overrides) become `�`; tabs and, with `keep_newlines`, newlines stay.
pub fn terminal_safe_with(text: &str, keep_newlines: bool) -> String {
    text.chars()
        .map(|c| {
            let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
            if c == '\t' || (keep_newlines && c == '\n') {
                c
            } else if c.is_control() || bidi {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

/// [`terminal_safe_with`] on one line: newlines are replaced too.
pub fn terminal_safe(text: &str) -> String {
    terminal_safe_with(text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_with_any_character_is_never_shown() {
        for (url, shown, password) in [
            (
                "postgres://ada:s3cret@lab-db:5432/crucible",
                "postgres://ada@lab-db:5432/crucible",
                Some("s3cret"),
            ),
            (
                "postgresql://ada@lab-db/crucible?sslmode=require&password=x",
                "postgresql://ada@lab-db/crucible?sslmode=require",
                Some("x"),
            ),
            (
                "postgres://lab-db/crucible",
                "postgres://lab-db/crucible",
                None,
            ),
            ("postgres://a:b@h", "postgres://a@h", Some("b")),
            // The review's cases: `?` and `/` in a password.
            (
                "postgres://ada:s3cr?et@127.0.0.1:1/db",
                "postgres://ada@127.0.0.1:1/db",
                Some("s3cr?et"),
            ),
            (
                "postgres://ada:s3/cret@127.0.0.1:1/db",
                "postgres://ada@127.0.0.1:1/db",
                Some("s3/cret"),
            ),
            (
                "postgres://ada:p@ss#w?rd/x@db/lab",
                "postgres://ada@db/lab",
                Some("p@ss#w?rd/x"),
            ),
            (
                "postgres://ada@db/lab?sslmode=verify-full&sslpassword=k3y@pass&application_name=x",
                "postgres://ada@db/lab?sslmode=verify-full&application_name=x",
                None,
            ),
            (
                "postgres://ada@db/lab?PASSWORD=hunter2",
                "postgres://ada@db/lab",
                Some("hunter2"),
            ),
            (
                "postgres://postgres:abc@localhost:5432/t1?host=/tmp/crucible-pg-x/sock",
                "postgres://postgres@localhost:5432/t1?host=/tmp/crucible-pg-x/sock",
                Some("abc"),
            ),
        ] {
            let (got, pw) = split_url_password(url);
            assert_eq!(got, shown, "{url}");
            assert_eq!(pw.as_deref(), password, "{url}");
            for secret in ["s3cr", "cret", "ss#w", "hunter2", "k3y", "abc"] {
                assert!(!got.contains(secret), "{url} → {got}");
            }
        }
    }

    #[test]
    fn store_text_cannot_drive_the_terminal() {
        let evil = "node-1\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}\u{1b}[2J\r\u{9b}31m\u{202e}txt\nnext";
        let safe = terminal_safe(evil);
        assert!(!safe.chars().any(|c| c.is_control()), "{safe:?}");
        assert!(safe.starts_with("node-1\u{fffd}]52;"), "{safe:?}");
        assert!(!safe.contains('\u{202e}'));
        assert_eq!(terminal_safe_with("a\nb\tc", true), "a\nb\tc");
    }
}
