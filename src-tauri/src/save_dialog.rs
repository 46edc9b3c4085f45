//! The native "Save as" dialog of an export: GTK's file chooser, which hands over to the desktop
//! portal (`org.freedesktop.portal.FileChooser`) where the desktop offers one, opened on the
//! app's main thread over its window. `CRUCIBLE_EXPORT_DIALOG=off` (tests, kiosk setups) saves
//! straight to the Downloads folder instead.

use std::path::{Path, PathBuf};

/// Whether exports ask where to save (`CRUCIBLE_EXPORT_DIALOG` is not `off`/`0`/`false`).
pub fn enabled() -> bool {
    !matches!(
        std::env::var("CRUCIBLE_EXPORT_DIALOG")
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
            .as_str(),
        "off" | "0" | "false" | "no"
    )
}

/// Asks where to save `name`, starting in `dir`; `None` when the person cancels (or no window
/// can carry the dialog, in which case the caller's default place is not used either: nothing
/// is written that the person did not see).
pub async fn ask(app: &tauri::AppHandle, dir: &Path, name: &str) -> Option<PathBuf> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let (dir, name) = (dir.to_path_buf(), name.to_string());
    let handle = app.clone();
    let posted = app.run_on_main_thread(move || {
        let _ = tx.send(native(&handle, &dir, &name));
    });
    if posted.is_err() {
        return None;
    }
    rx.await.ok().flatten()
}

#[cfg(target_os = "linux")]
fn native(app: &tauri::AppHandle, dir: &Path, name: &str) -> Option<PathBuf> {
    use gtk::prelude::*;
    use tauri::Manager;
    let window = app.webview_windows().into_values().next()?;
    let parent = window.gtk_window().ok()?;
    let dialog = gtk::FileChooserNative::new(
        Some("Save export"),
        Some(&parent),
        gtk::FileChooserAction::Save,
        Some("_Save"),
        Some("_Cancel"),
    );
    dialog.set_current_folder(dir);
    dialog.set_current_name(name);
    dialog.set_do_overwrite_confirmation(true);
    let chosen = (dialog.run() == gtk::ResponseType::Accept)
        .then(|| dialog.filename())
        .flatten();
    dialog.destroy();
    chosen
}

#[cfg(not(target_os = "linux"))]
fn native(_app: &tauri::AppHandle, dir: &Path, name: &str) -> Option<PathBuf> {
    Some(crucible_views::exports::free_path(dir, name))
}
