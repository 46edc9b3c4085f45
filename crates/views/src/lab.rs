//! The app's choice of store (Settings → Store): the local database file or a lab's PostgreSQL
//! store (docs/lab-scale.md). The lab URL is saved in the config file without its password; the
//! password goes to the OS keychain under [`keychain_account`]. A URL typed with a password in
//! it is split the same way, so the config file never holds one.

use crucible_store::{redact_url, split_url_password, AnyStore, PgStore, StoreError, StoreUrl};
use serde::Serialize;
use ts_rs::TS;

/// What Settings → Store shows.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct StoreChoice {
    /// `local` (the database file) or `lab` (a PostgreSQL store).
    pub kind: String,
    /// The local database file.
    pub local_file: String,
    /// The lab store's URL, without its password (also when the local file is in use, so it
    /// can be switched back on).
    pub lab_url: Option<String>,
    /// A password for the lab store is in the keychain.
    pub lab_password_saved: bool,
    /// Where passwords are kept, for people ("secret-service", "keyutils").
    pub keychain: String,
}

/// What a successful connection found.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LabCheck {
    /// The URL, without its password.
    pub url: String,
    /// The server's version.
    pub server_version: String,
    /// Runs in the store.
    pub runs: u32,
}

/// A lab store URL as the user typed it, split into what is saved and the password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabUrl {
    /// The URL without a password (what the config file keeps).
    pub url: String,
    /// A password found in the URL.
    pub password: Option<String>,
}

/// Why a typed lab URL is refused, with what to type instead.
#[derive(Debug, thiserror::Error)]
pub enum LabUrlError {
    /// A file path or `sqlite:` URL where a lab store's address belongs.
    #[error(
        "a lab store's address starts with postgres:// (e.g. postgres://ada@lab-db:5432/crucible)"
    )]
    NotALab,
    /// Not a store address at all (the store's own message).
    #[error(transparent)]
    Unreadable(#[from] StoreError),
    /// A `postgres://` URL without a host.
    #[error("the address names no server: postgres://USER@HOST:PORT/DATABASE")]
    NoServer,
}

/// Checks a typed lab URL: it must be `postgres://…` (or `postgresql://…`) with a host; a
/// password in it is taken out.
pub fn parse_lab_url(typed: &str) -> Result<LabUrl, LabUrlError> {
    let typed = typed.trim();
    match StoreUrl::parse(typed) {
        Ok(StoreUrl::Lab(_)) => {}
        Ok(StoreUrl::File(_)) => return Err(LabUrlError::NotALab),
        Err(e) => return Err(e.into()),
    }
    // One redaction for the CLI, the store and the app (crucible_store::split_url_password):
    // a password holding `?`, `/` or `@` is taken out whole.
    let (url, password) = split_url_password(typed);
    let rest = url.split_once("://").map_or("", |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.trim_matches(':').is_empty() {
        return Err(LabUrlError::NoServer);
    }
    Ok(LabUrl { url, password })
}

/// The keychain account of a lab store's password.
pub fn keychain_account(url: &str) -> String {
    format!("crucible-lab-store:{}", redact_url(url))
}

/// Connects to a lab store (applying its migrations) and says what is there.
pub async fn check_lab(
    url: &str,
    password: Option<&str>,
) -> Result<(PgStore, LabCheck), StoreError> {
    let store = PgStore::connect(url, password).await?;
    let check = LabCheck {
        url: store.shown().to_string(),
        server_version: store.server_version().await?,
        runs: store.run_ids().await?.len().min(u32::MAX as usize) as u32,
    };
    Ok((store, check))
}

/// Opens the store the app uses: the lab store when one is chosen, else the database file.
pub async fn open_chosen(
    config: &crucible_core::Config,
    password: Option<&str>,
) -> Result<AnyStore, StoreError> {
    match &config.lab_store {
        Some(url) => Ok(PgStore::connect(url, password).await?.into()),
        None => Ok(crucible_store::Store::open(&config.database_file())
            .await?
            .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_url_keeps_no_password_and_says_what_is_wrong() {
        assert_eq!(
            parse_lab_url(" postgres://ada:s3cret@lab-db:5432/crucible ").unwrap(),
            LabUrl {
                url: "postgres://ada@lab-db:5432/crucible".into(),
                password: Some("s3cret".into())
            }
        );
        assert_eq!(
            parse_lab_url("postgresql://lab-db/crucible")
                .unwrap()
                .password,
            None
        );
        for (bad, says) in [
            ("/home/ada/crucible.db", "starts with postgres://"),
            ("postgres:///crucible", "names no server"),
            ("mysql://db/x", "not a store Crucible knows"),
            ("", "empty store"),
        ] {
            let e = parse_lab_url(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        // A password with `?`, `/` or `@` in it goes to the keychain whole, never into the URL.
        for pw in ["s3cr?et", "s3/cret", "p@ss"] {
            let l = parse_lab_url(&format!("postgres://ada:{pw}@lab-db:5432/crucible")).unwrap();
            assert_eq!(l.url, "postgres://ada@lab-db:5432/crucible");
            assert_eq!(l.password.as_deref(), Some(pw));
        }
        assert_eq!(
            keychain_account("postgres://ada:x@h/db"),
            "crucible-lab-store:postgres://ada@h/db"
        );
    }
}
