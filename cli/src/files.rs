//! Finding and reading suite files.

use std::path::{Path, PathBuf};

/// The YAML files of each PATH: a file is itself; a directory gives its
/// `.yaml`/`.yml` files and those of its direct subdirectories (mcp-assert's
/// rule), sorted by path so runs are reproducible.
pub fn suite_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_file() {
            out.push(p.clone());
            continue;
        }
        let mut found = Vec::new();
        collect_yaml(p, &mut found, 1)?;
        if found.is_empty() {
            return Err(format!(
                "{}: no .yaml or .yml test files here (or in its subdirectories)",
                p.display()
            ));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn is_yaml(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

fn collect_yaml(dir: &Path, out: &mut Vec<PathBuf>, depth: u32) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        let ft = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if ft.is_dir() {
            if depth > 0 {
                collect_yaml(&path, out, depth - 1)?;
            }
        } else if is_yaml(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Read a text file, naming it in the error.
pub fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// A path as shown in reports: relative paths stay as the user wrote them.
pub fn display(path: &Path) -> String {
    path.display().to_string()
}
