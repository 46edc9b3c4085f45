//! Stamps the `crucible` CLI with its git commit and build date (`crucible --version --json`).
fn main() {
    crucible_buildstamp::emit(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
}
