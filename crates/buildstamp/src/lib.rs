//! Used from the build scripts of the two Crucible binaries (the `crucible` CLI and the desktop
//! app) to stamp them with what `crucible --version --json` and the About box show: the git
//! commit the binary was built from and when it was built. The binaries hand both to
//! `crucible_core::build::set_stamp` at start.
//!
//! The commit is `CRUCIBLE_GIT_COMMIT` when set (a build from a source archive), else
//! `git rev-parse HEAD` of the checkout, else `unknown`. The date is `SOURCE_DATE_EPOCH` when set
//! (reproducible builds), else the time the build script ran; the script runs again only when
//! the checkout's HEAD moves, so the stamp costs no rebuild on an unchanged commit.

use std::path::Path;
use std::process::Command;

/// Prints the `cargo:` lines that set `CRUCIBLE_GIT_COMMIT` and `CRUCIBLE_BUILD_DATE` for the
/// crate being built; `manifest_dir` is that crate's `CARGO_MANIFEST_DIR`.
pub fn emit(manifest_dir: &Path) {
    println!("cargo:rerun-if-env-changed=CRUCIBLE_GIT_COMMIT");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let git_dir = git(manifest_dir, &["rev-parse", "--absolute-git-dir"]);
    if let Some(dir) = &git_dir {
        let dir = Path::new(dir);
        println!("cargo:rerun-if-changed={}", dir.join("HEAD").display());
        println!(
            "cargo:rerun-if-changed={}",
            dir.join("packed-refs").display()
        );
        if let Some(head_ref) = git(manifest_dir, &["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={}", dir.join(head_ref).display());
        }
    }
    let commit = std::env::var("CRUCIBLE_GIT_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(manifest_dir, &["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    let epoch = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        });
    println!("cargo:rustc-env=CRUCIBLE_GIT_COMMIT={}", commit.trim());
    println!("cargo:rustc-env=CRUCIBLE_BUILD_DATE={}", rfc3339(epoch));
}

/// A git command's trimmed output in `dir`, when git runs and succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, UTC).
pub fn rfc3339(epoch: u64) -> String {
    let days = (epoch / 86_400) as i64;
    let secs = epoch % 86_400;
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3_600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day in a century leap year) 12:34:56.
        assert_eq!(rfc3339(951_827_696), "2000-02-29T12:34:56Z");
        // 2026-11-29T00:00:00Z.
        assert_eq!(rfc3339(1_795_910_400), "2026-11-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_996_799), "2026-11-29T23:59:59Z");
    }
}
