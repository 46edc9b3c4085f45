//! Saving a file so that a crash or a concurrent save never leaves it half written: the bytes go
//! to a temporary file next to it, which is renamed over it. Every small state file Crucible
//! rewrites (studio task files, `packs.json`, `providers.json`, `verified.json`, caches) is saved
//! through [`write_file`].

use std::path::Path;

/// Writes `bytes` to `path` durably: to a temporary file of its own in the same folder (named
/// `.NAME.PID.N.tmp`, so concurrent saves never share one), flushed to disk (`fsync`), renamed over
/// `path`, and the folder flushed so the rename itself survives a crash. On any error the
/// temporary file is removed and `path` keeps its previous content.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let tmp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename is a change to the folder: flush it too (a folder opens read-only on Linux).
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_saves_leave_one_complete_file_and_no_temp_file() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("state.json");
        // Each writer saves its own large, recognisable content many times at once.
        let contents: Vec<Vec<u8>> = (0..4u8).map(|w| vec![b'a' + w; 256 * 1024]).collect();
        let failures = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            let all = &contents;
            for c in all {
                let (file, failures) = (&file, &failures);
                s.spawn(move || {
                    for _ in 0..40 {
                        if write_file(file, c).is_err() {
                            failures.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        // A reader sees one whole save, never a mix or a truncated file.
                        let read = std::fs::read(file).unwrap();
                        assert!(all.contains(&read), "a torn save: {} bytes", read.len());
                    }
                });
            }
        });
        assert_eq!(failures.into_inner(), 0, "a save failed");
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("state.json")]);
        assert!(contents.contains(&std::fs::read(&file).unwrap()));
    }

    #[test]
    fn a_failed_save_keeps_the_old_file_and_no_temp_file() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("state.json");
        write_file(&file, b"old").unwrap();
        // The target is a directory now: the rename fails.
        let dir = tmp.path().join("d");
        std::fs::create_dir_all(dir.join("x")).unwrap();
        assert!(write_file(&dir, b"new").is_err());
        assert_eq!(std::fs::read(&file).unwrap(), b"old");
        let mut left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["d", "state.json"]);
    }
}
