// Generates the app's permissions: each command gets an `allow-<name>` permission, and only
// the ones in capabilities/ can be called from the window.
fn main() {
    let commands: &[&str] = include!("src/command_names.rs");
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(commands)),
    )
    .expect("tauri-build");
}
