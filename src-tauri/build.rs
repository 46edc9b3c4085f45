fn main() {
    // The git commit and build date the About box shows.
    crucible_buildstamp::emit(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    tauri_build::build()
}
