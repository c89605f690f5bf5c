//! A stdio server run in a container: `--docker IMAGE` on the commands that
//! start servers, and a suite's `server.docker`. The server becomes
//! `ENGINE run --rm -i [-v FIXTURE:FIXTURE] [-e NAME]… IMAGE CMD ARGS…`, as
//! mcp-assert does: the fixture copy is mounted at the same path, so
//! `{{fixture}}` paths hold inside; each variable of the server's own `env`
//! is passed by name (`-e NAME`, the value taken from the engine's
//! environment), so no secret is on a command line that `ps` shows.
//!
//! The engine is `docker`, or `podman` when only that is on `PATH`;
//! `MCPCHECK_CONTAINER_ENGINE` names another (a path or a program name).

use std::path::Path;

use super::Endpoint;

/// The container engine to run: `MCPCHECK_CONTAINER_ENGINE`, else `docker`
/// when it is on `PATH`, else `podman` when that is, else `docker` (whose
/// start then fails with the usual "cannot start" error naming it).
pub fn engine() -> String {
    if let Ok(chosen) = std::env::var("MCPCHECK_CONTAINER_ENGINE")
        && !chosen.trim().is_empty()
    {
        return chosen;
    }
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
    };
    if !on_path("docker") && on_path("podman") {
        return "podman".to_string();
    }
    "docker".to_string()
}

/// `command args` with `env` run in `image`. `pass` names the variables of
/// `env` the container gets (the server's own; the rest of mcpcheck's
/// environment stays outside).
pub fn wrap(
    image: &str,
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    pass: &[String],
    fixture: Option<&Path>,
) -> Endpoint {
    let mut run = vec!["run".to_string(), "--rm".into(), "-i".into()];
    if let Some(f) = fixture {
        let p = f.display().to_string();
        run.push("-v".into());
        run.push(format!("{p}:{p}"));
    }
    for (name, _) in env.iter().filter(|(name, _)| pass.contains(name)) {
        run.push("-e".into());
        run.push(name.clone());
    }
    run.push(image.to_string());
    run.push(command);
    run.extend(args);
    Endpoint::Stdio {
        command: engine(),
        args: run,
        env,
    }
}
