//! The hygiene of a client's config file (family `config`, codes `C`): what a
//! server entry asks the machine to do, judged offline from the entry alone.
//! Nothing is started, reached or expanded.
//!
//! Read, per server entry of any of the usual shapes ([`config_servers`]):
//!
//! * `env` and `headers`: a value with a credential's shape (C101), or a
//!   secret-named variable or header holding a literal value (C102) — a
//!   secret belongs in the environment, referenced as `${VAR}`;
//! * `command` and `args`, as the client runs them: wrappers (`sudo`, `env`,
//!   `cmd /c`) and shell strings (`sh -c "…"`) are looked through, so a
//!   package runner inside a shell line is judged like one on its own.
//!   Package runners without a pinned version (`npx -y pkg`, `uvx
//!   pkg@latest`, `pipx run pkg`: C201), container images without a tag or
//!   digest (C202), `sudo` and its kind (C301), a download piped to a shell
//!   (C302), privileged containers (C401), host mounts of `/` or of the
//!   container engine's socket (C402);
//! * paths in world-writable directories (`/tmp`, `/var/tmp`, `/dev/shm`)
//!   as the program, an argument, `cwd`, `envFile` or an `env` value, and
//!   `chmod` making a path world-writable (C501).
//!
//! Every finding names the server and the pointer into the config of the
//! field it is about; a credential is shown as its first 8 characters and
//! its length.

use serde_json::{Map, Value};

use super::ptr;
use super::text::{secret_evidence, secrets};
use crate::findings::{Family, Finding, ItemKind, Level, Location, RuleInfo, Severity};

const BASE: RuleInfo = RuleInfo {
    code: "",
    family: Family::Config,
    level: Level::Error,
    severity: Severity::High,
    title: "",
    rationale: "",
    source: "",
    fix: "",
    category: "",
    aliases: &[],
};

const SECRETS_SOURCE: &str = "OWASP Secrets Management Cheat Sheet; MCP 2025-11-25 basic/security_best_practices (local server compromise)";
const SUPPLY_SOURCE: &str = "MCP 2025-11-25 basic/security_best_practices §Local MCP Server Compromise; npm docs, npx (an unversioned package resolves to its latest release at every start)";
const PRIVILEGE_SOURCE: &str = "MCP 2025-11-25 basic/security_best_practices §Local MCP Server Compromise (run with least privilege)";
const CONTAINER_SOURCE: &str = "Docker docs, \"Runtime privilege and Linux capabilities\"; CIS Docker Benchmark 5.4, 5.5, 5.31";

/// The config family, in code order.
pub const RULES: [RuleInfo; 9] = [
    RuleInfo {
        code: "C101",
        title: crate::findings::prose!("Credential written into the config"),
        rationale: crate::findings::prose!(
            "An `env` or `headers` value has the shape of a live credential (an API key, a token, a private key): everyone with a copy of the file, its history or a backup holds it."
        ),
        source: crate::findings::prose!(SECRETS_SOURCE),
        fix: crate::findings::prose!(
            "Reference the credential from the environment instead (\"API_KEY\": \"${API_KEY}\"; VS Code: ${input:…} or ${env:…}), and revoke the one written here."
        ),
        category: "secrets",
        ..BASE
    },
    RuleInfo {
        code: "C102",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Secret-named value written literally"),
        rationale: crate::findings::prose!(
            "A variable or header whose name says it is secret (TOKEN, KEY, SECRET, PASSWORD, Authorization) holds a literal value rather than a reference, so the secret travels with the file."
        ),
        source: crate::findings::prose!(SECRETS_SOURCE),
        fix: crate::findings::prose!(
            "Write a reference (\"${GITHUB_TOKEN}\") and set the value in the environment or the client's secret store."
        ),
        category: "secrets",
        ..BASE
    },
    RuleInfo {
        code: "C201",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Unpinned package"),
        rationale: crate::findings::prose!(
            "A package runner (npx, bunx, pnpm dlx, yarn dlx, npm exec, uvx, pipx run) starts a package without an exact version, or with a tag such as latest: every start may run code nobody reviewed, and a hijacked release reaches the machine at once."
        ),
        source: crate::findings::prose!(SUPPLY_SOURCE),
        fix: crate::findings::prose!(
            "Pin an exact version: npx -y pkg@1.2.3, uvx pkg==1.2.3 (or pkg@1.2.3), pipx run --spec pkg==1.2.3 pkg."
        ),
        category: "supply_chain",
        ..BASE
    },
    RuleInfo {
        code: "C202",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Unpinned container image"),
        rationale: crate::findings::prose!(
            "A container image is run without a tag, or with latest: what runs changes whenever the image is pushed again."
        ),
        source: crate::findings::prose!(
            "Docker docs, \"Image tag best practices\" (pin by digest for reproducible runs)"
        ),
        fix: crate::findings::prose!(
            "Name a version tag, or better a digest: image:1.2.3 or image@sha256:…."
        ),
        category: "supply_chain",
        ..BASE
    },
    RuleInfo {
        code: "C301",
        title: crate::findings::prose!("Server started as root"),
        rationale: crate::findings::prose!(
            "The command runs the server through sudo (or doas, pkexec, run0): a tool the model calls acts with root's rights, and one injected instruction is enough to change the system."
        ),
        source: crate::findings::prose!(PRIVILEGE_SOURCE),
        fix: crate::findings::prose!(
            "Run the server as the user; grant it the one permission it needs (a group, a file's mode) instead of root."
        ),
        category: "privilege",
        ..BASE
    },
    RuleInfo {
        code: "C302",
        title: crate::findings::prose!("Download piped to a shell"),
        rationale: crate::findings::prose!(
            "The command fetches a script and runs it at once (curl … | sh, bash <(curl …), iex (iwr …)): whatever the URL serves at that moment runs with the user's rights, unreviewed."
        ),
        source: crate::findings::prose!(SUPPLY_SOURCE),
        fix: crate::findings::prose!(
            "Install the server once from a pinned, verified release, and start the installed program."
        ),
        category: "supply_chain",
        ..BASE
    },
    RuleInfo {
        code: "C401",
        title: crate::findings::prose!("Privileged container"),
        rationale: crate::findings::prose!(
            "The container is run with --privileged, all or administrative capabilities (--cap-add ALL, SYS_ADMIN), the host's process namespace or an unconfined security profile: the container no longer contains the server."
        ),
        source: crate::findings::prose!(CONTAINER_SOURCE),
        fix: crate::findings::prose!(
            "Drop --privileged and the added capabilities; add back only the one capability the server needs, if any."
        ),
        category: "container",
        ..BASE
    },
    RuleInfo {
        code: "C402",
        title: crate::findings::prose!("Host root or engine socket mounted"),
        rationale: crate::findings::prose!(
            "The container mounts the host's root directory, or the container engine's socket (/var/run/docker.sock), which gives whoever controls the server control of the host."
        ),
        source: crate::findings::prose!(CONTAINER_SOURCE),
        fix: crate::findings::prose!(
            "Mount only the directory the server works on (read-only where it can be), never / or the engine's socket."
        ),
        category: "container",
        ..BASE
    },
    RuleInfo {
        code: "C501",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("World-writable path"),
        rationale: crate::findings::prose!(
            "The server's program, an argument, its working directory, its env file or an env value lies in a directory every local user can write (/tmp, /var/tmp, /dev/shm), or the command makes a path world-writable: another user can replace what the server runs or reads."
        ),
        source: crate::findings::prose!(
            "CWE-379 (creation of a file in a directory with insecure permissions); CWE-732"
        ),
        fix: crate::findings::prose!(
            "Keep the server, its files and its data under the user's own directory, with modes only the user can write."
        ),
        category: "filesystem",
        ..BASE
    },
];

fn rule(code: &str) -> &'static RuleInfo {
    RULES.iter().find(|r| r.code == code).unwrap_or(&RULES[0])
}

/// The server entries of a client config, whatever the client writes:
/// `mcpServers` (Claude Desktop, Cursor, Windsurf, Claude Code's
/// `.mcp.json`), `servers` (VS Code's `.vscode/mcp.json`) or `mcp.servers`
/// (VS Code's `settings.json`). Each entry with the pointer of its object
/// and its name. `None` when the document has none of them.
pub fn config_servers(doc: &Value) -> Option<(String, &Map<String, Value>)> {
    if let Some(m) = doc.get("mcpServers").and_then(Value::as_object) {
        return Some(("/mcpServers".into(), m));
    }
    if let Some(m) = doc.get("servers").and_then(Value::as_object) {
        return Some(("/servers".into(), m));
    }
    doc.get("mcp")
        .and_then(|m| m.get("servers"))
        .and_then(Value::as_object)
        .map(|m| ("/mcp/servers".into(), m))
}

/// `text` read as JSON with comments (`//`, `/* */`) and trailing commas, as
/// VS Code writes its config files: comments become spaces (line and column
/// numbers stay those of the file) and a comma before `}` or `]` is dropped.
/// `None` when nothing was changed (the text was plain JSON already).
pub fn strip_jsonc(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut changed = false;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                out.push(b);
                i += 1;
            }
            (b'/', Some(b'/')) => {
                changed = true;
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                changed = true;
                out.extend_from_slice(b"  ");
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    out.push(if bytes[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
                if i < bytes.len() {
                    out.extend_from_slice(b"  ");
                    i += 2;
                }
            }
            (b',', _) => {
                let mut j = i + 1;
                loop {
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    // A comment between the comma and the bracket.
                    if bytes.get(j) == Some(&b'/') && bytes.get(j + 1) == Some(&b'/') {
                        while j < bytes.len() && bytes[j] != b'\n' {
                            j += 1;
                        }
                        continue;
                    }
                    if bytes.get(j) == Some(&b'/') && bytes.get(j + 1) == Some(&b'*') {
                        j += 2;
                        while j < bytes.len()
                            && !(bytes[j] == b'*' && bytes.get(j + 1) == Some(&b'/'))
                        {
                            j += 1;
                        }
                        j = (j + 2).min(bytes.len());
                        continue;
                    }
                    break;
                }
                if matches!(bytes.get(j), Some(b'}' | b']')) {
                    changed = true;
                    out.push(b' ');
                } else {
                    out.push(b',');
                }
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    if !changed {
        return None;
    }
    String::from_utf8(out).ok()
}

/// Every hygiene rule over the servers of `config` (labelled `label`; each
/// finding's item is the server's name, its pointer the field's). Entries
/// that are not objects and values that are not strings are passed over:
/// the caller says what is wrong with them.
pub fn check_config(label: &str, config: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some((base, servers)) = config_servers(config) else {
        return out;
    };
    for (name, entry) in servers {
        let Some(fields) = entry.as_object() else {
            continue;
        };
        let mut cx = Cx {
            label,
            name,
            base: ptr(&base, name),
            found: Vec::new(),
        };
        cx.entry(fields);
        out.extend(cx.found);
    }
    out
}

/// One server entry being judged.
struct Cx<'a> {
    label: &'a str,
    name: &'a str,
    base: String,
    found: Vec<Finding>,
}

/// One word of a command line, and the field it came from.
#[derive(Clone, Debug)]
struct Word {
    text: String,
    field: String,
}

impl Cx<'_> {
    fn push(&mut self, code: &str, field: &str, evidence: String, message: String) {
        let rule = rule(code);
        if self
            .found
            .iter()
            .any(|f| f.rule.code == code && f.location.pointer.as_deref() == Some(field))
        {
            return;
        }
        let location = Location::item(ItemKind::Server, self.name)
            .at(field)
            .on(self.label);
        self.found
            .push(Finding::new(rule, location, message).with_evidence(evidence));
    }

    fn entry(&mut self, fields: &Map<String, Value>) {
        for map in ["env", "headers"] {
            if let Some(Value::Object(pairs)) = fields.get(map) {
                for (key, value) in pairs {
                    if let Some(value) = value.as_str() {
                        let field = ptr(&format!("{}/{map}", self.base), key);
                        self.secret(map, key, value, &field);
                        if map == "env" {
                            self.world_writable_path(value, &field, "the env value");
                        }
                    }
                }
            }
        }
        for key in ["cwd", "envFile"] {
            if let Some(value) = fields.get(key).and_then(Value::as_str) {
                let field = format!("{}/{key}", self.base);
                let what = if key == "cwd" {
                    "the working directory"
                } else {
                    "the env file"
                };
                self.world_writable_path(value, &field, what);
            }
        }
        let mut words = Vec::new();
        if let Some(command) = fields.get("command").and_then(Value::as_str) {
            let field = format!("{}/command", self.base);
            let has_args = matches!(fields.get("args"), Some(Value::Array(a)) if !a.is_empty());
            if has_args || !command.trim().contains(char::is_whitespace) {
                words.push(Word {
                    text: command.to_string(),
                    field,
                });
            } else {
                // A whole command line written in `command`.
                words.extend(split_words(command).into_iter().map(|text| Word {
                    text,
                    field: field.clone(),
                }));
            }
        }
        if let Some(Value::Array(args)) = fields.get("args") {
            for (i, arg) in args.iter().enumerate() {
                if let Some(arg) = arg.as_str() {
                    words.push(Word {
                        text: arg.to_string(),
                        field: format!("{}/args/{i}", self.base),
                    });
                }
            }
        }
        for w in &words {
            self.piped_to_shell(w);
            self.chmod_world(w);
        }
        if let Some(first) = words.first() {
            self.world_writable_path(&first.text.clone(), &first.field.clone(), "the program");
        }
        self.argv(&words, 0);
    }

    /// C101 and C102 for one `env` or `headers` value.
    fn secret(&mut self, map: &str, key: &str, value: &str, field: &str) {
        let reference = value.contains("${") || value.contains("{{");
        if let Some(&(start, end)) = secrets(value).first() {
            let where_ = if map == "env" {
                format!("env `{key}`")
            } else {
                format!("header `{key}`")
            };
            let suggestion = if map == "env" {
                format!("\"{key}\": \"${{{key}}}\"")
            } else {
                "a `${VAR}` reference".to_string()
            };
            self.push(
                "C101",
                field,
                secret_evidence(&value[start..end]),
                format!(
                    "{where_} holds what looks like a live credential, written into the config; write {suggestion} and set the value in the environment"
                ),
            );
            return;
        }
        if reference {
            return;
        }
        let secret_named = if map == "env" {
            crate::redact::looks_secret(key)
        } else {
            !crate::redact::header_is_plain(key)
                && (key.eq_ignore_ascii_case("authorization") || crate::redact::looks_secret(key))
        };
        if secret_named && literal_secret(value) {
            let suggestion = if map == "env" {
                format!("\"{key}\": \"${{{key}}}\"")
            } else {
                format!("\"{key}\": \"Bearer ${{TOKEN}}\"")
            };
            self.push(
                "C102",
                field,
                format!("{} characters", value.chars().count()),
                format!(
                    "`{key}` is a secret by its name and holds a literal value; write {suggestion} and set the value in the environment"
                ),
            );
        }
    }

    /// C302 over one word (a shell string, or a command written whole).
    fn piped_to_shell(&mut self, w: &Word) {
        if let Some(m) = pipe_to_shell(&w.text) {
            self.push(
                "C302",
                &w.field,
                crate::value::truncate(m, 120),
                "downloads a script and runs it at once with a shell".to_string(),
            );
        }
    }

    /// C501 for `chmod` making something world-writable.
    fn chmod_world(&mut self, w: &Word) {
        let words = split_words(&w.text);
        for (i, word) in words.iter().enumerate() {
            if base_name(word) != "chmod" {
                continue;
            }
            let Some(mode) = words[i + 1..].iter().find(|m| !m.starts_with('-')) else {
                continue;
            };
            if world_writable_mode(mode) {
                self.push(
                    "C501",
                    &w.field,
                    format!("chmod {mode}"),
                    format!("`chmod {mode}` makes a path writable by every local user"),
                );
            }
        }
    }

    fn world_writable_path(&mut self, text: &str, field: &str, what: &str) {
        if let Some(dir) = world_writable_dir(text) {
            self.push(
                "C501",
                field,
                crate::value::truncate(text, 120),
                format!("{what} lies in {dir}, which every local user can write"),
            );
        }
    }

    /// The rules of one command line (`words[at..]`), looking through
    /// wrappers and shell strings.
    fn argv(&mut self, words: &[Word], depth: usize) {
        if depth > 8 {
            return;
        }
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            let name = base_name(&w.text);
            match name.as_str() {
                "sudo" | "doas" | "pkexec" | "run0" => {
                    let (w_text, w_field) = (w.text.clone(), w.field.clone());
                    self.push(
                        "C301",
                        &w_field,
                        w_text,
                        format!("the server is started through `{name}`, with root's rights"),
                    );
                    i += 1;
                    // sudo's own options (and the values of -u, -g, -C).
                    while i < words.len() && words[i].text.starts_with('-') {
                        let takes = matches!(
                            words[i].text.as_str(),
                            "-u" | "-g" | "-C" | "-h" | "-p" | "-U"
                        );
                        i += if takes { 2 } else { 1 };
                    }
                }
                "env" | "nice" | "nohup" | "exec" | "time" | "command" | "stdbuf" => {
                    i += 1;
                    while i < words.len()
                        && (words[i].text.starts_with('-')
                            || (name == "env" && words[i].text.contains('=')))
                    {
                        i += 1;
                    }
                }
                "sh" | "bash" | "zsh" | "dash" | "ash" | "ksh" | "fish" => {
                    // `sh -c LINE`, `bash -lc LINE`.
                    let mut j = i + 1;
                    while j < words.len() && words[j].text.starts_with('-') {
                        let flag = &words[j].text;
                        j += 1;
                        if !flag.starts_with("--") && flag.contains('c') {
                            if let Some(line) = words.get(j) {
                                self.shell_line(line, depth);
                            }
                            return;
                        }
                    }
                    return;
                }
                "cmd" => {
                    // `cmd /c LINE`: only `/` switches come before it.
                    self.after_switch(&words[i + 1..], &["/c", "/k"], Some('/'), depth);
                    return;
                }
                "powershell" | "pwsh" => {
                    self.after_switch(&words[i + 1..], &["-command", "-c"], None, depth);
                    return;
                }
                _ => {
                    self.program(&words[i..]);
                    return;
                }
            }
        }
    }

    /// A shell string: each command of it (split at `;`, `&&`, `||`, `|`,
    /// `&` and line breaks) judged as a command line of its own.
    /// What a shell runs after one of `switches` (`cmd /c …`, `pwsh -Command
    /// …`, matched without case): one word is a command line, more are the
    /// program and its arguments. With `prefix`, the search stops at the
    /// first word that does not start with it.
    fn after_switch(
        &mut self,
        words: &[Word],
        switches: &[&str],
        prefix: Option<char>,
        depth: usize,
    ) {
        for (j, word) in words.iter().enumerate() {
            if prefix.is_some_and(|p| !word.text.starts_with(p)) {
                return;
            }
            if switches.contains(&word.text.to_ascii_lowercase().as_str()) {
                let rest = &words[j + 1..];
                if rest.len() == 1 {
                    self.shell_line(&rest[0], depth);
                } else {
                    self.argv(rest, depth + 1);
                }
                return;
            }
        }
    }

    fn shell_line(&mut self, line: &Word, depth: usize) {
        for part in shell_commands(&line.text) {
            let words: Vec<Word> = split_words(&part)
                .into_iter()
                .map(|text| Word {
                    text,
                    field: line.field.clone(),
                })
                .collect();
            self.argv(&words, depth + 1);
        }
    }

    /// A program and its arguments: package runners and container engines.
    fn program(&mut self, words: &[Word]) {
        let Some(first) = words.first() else { return };
        let name = base_name(&first.text);
        let second = words.get(1).map(|w| w.text.as_str()).unwrap_or("");
        match (name.as_str(), second) {
            ("npx" | "bunx" | "pnpx", _) => self.npm_runner(&name, &words[1..]),
            ("pnpm" | "yarn", "dlx") | ("npm", "exec" | "x") => {
                self.npm_runner(&format!("{name} {second}"), &words[2..]);
            }
            ("uvx", _) => self.python_runner("uvx", &words[1..]),
            ("uv", "tool") if words.get(2).is_some_and(|w| w.text == "run") => {
                self.python_runner("uv tool run", &words[3..]);
            }
            ("pipx", "run") => self.python_runner("pipx run", &words[2..]),
            ("docker" | "podman" | "nerdctl", "run") => self.container(&name, &words[2..]),
            ("docker" | "podman" | "nerdctl", "container")
                if words.get(2).is_some_and(|w| w.text == "run") =>
            {
                self.container(&name, &words[3..]);
            }
            _ => {}
        }
    }

    fn npm_runner(&mut self, runner: &str, words: &[Word]) {
        let mut packages: Vec<&Word> = Vec::new();
        let mut i = 0;
        let mut positional = None;
        while i < words.len() {
            let t = words[i].text.as_str();
            if t == "--" {
                positional = words.get(i + 1);
                break;
            }
            if t.starts_with("--package=") {
                packages.push(&words[i]);
                i += 1;
                continue;
            }
            if t == "-p" || t == "--package" {
                if let Some(w) = words.get(i + 1) {
                    packages.push(w);
                }
                i += 2;
                continue;
            }
            if t == "-c" || t == "--call" {
                i += 2;
                continue;
            }
            if t.starts_with('-') {
                i += 1;
                continue;
            }
            positional = Some(&words[i]);
            break;
        }
        // With --package, the positional word is a command, not a package.
        if packages.is_empty() {
            packages.extend(positional);
        }
        for w in packages {
            let spec = w.text.strip_prefix("--package=").unwrap_or(&w.text);
            if let Some(why) = npm_unpinned(spec) {
                self.push(
                    "C201",
                    &w.field,
                    spec.to_string(),
                    format!(
                        "`{runner}` runs `{spec}` {why}; pin an exact version (`{}@1.2.3`)",
                        npm_name(spec)
                    ),
                );
            }
        }
    }

    fn python_runner(&mut self, runner: &str, words: &[Word]) {
        let mut specs: Vec<(&Word, &str)> = Vec::new();
        let mut from = false;
        let mut positional = None;
        let mut i = 0;
        while i < words.len() {
            let t = words[i].text.as_str();
            let value_flag = |flag: &str| -> Option<(&str, bool)> {
                if t == flag {
                    Some(("", true))
                } else {
                    t.strip_prefix(&format!("{flag}=")).map(|v| (v, false))
                }
            };
            let mut handled = false;
            for flag in ["--from", "--spec", "--with"] {
                if let Some((inline, next)) = value_flag(flag) {
                    let w = if next {
                        words.get(i + 1)
                    } else {
                        Some(&words[i])
                    };
                    if let Some(w) = w {
                        let spec = if next { w.text.as_str() } else { inline };
                        specs.push((w, spec));
                    }
                    if flag != "--with" {
                        from = true;
                    }
                    i += if next { 2 } else { 1 };
                    handled = true;
                    break;
                }
            }
            if handled {
                continue;
            }
            if matches!(
                t,
                "--python"
                    | "-p"
                    | "--index"
                    | "--index-url"
                    | "--extra-index-url"
                    | "--with-requirements"
                    | "--pip-args"
            ) {
                i += 2;
                continue;
            }
            if t.starts_with('-') {
                i += 1;
                continue;
            }
            positional = Some(&words[i]);
            break;
        }
        if !from && let Some(w) = positional {
            specs.push((w, w.text.as_str()));
        }
        for (w, spec) in specs {
            if let Some(why) = python_unpinned(spec) {
                let name = python_name(spec);
                self.push(
                    "C201",
                    &w.field,
                    spec.to_string(),
                    format!(
                        "`{runner}` runs `{spec}` {why}; pin an exact version (`{name}==1.2.3`)"
                    ),
                );
            }
        }
    }

    fn container(&mut self, engine: &str, words: &[Word]) {
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            let t = w.text.as_str();
            if !t.starts_with('-') || t == "-" {
                // The image.
                if let Some(why) = image_unpinned(t) {
                    self.push(
                        "C202",
                        &w.field,
                        t.to_string(),
                        format!("`{engine} run` runs the image `{t}` {why}; name a version tag or a digest"),
                    );
                }
                return;
            }
            let (flag, inline) = match t.split_once('=') {
                Some((f, v)) if t.starts_with("--") => (f, Some(v.to_string())),
                _ => (t, None),
            };
            let takes = container_option_takes_value(flag);
            let value = match (&inline, takes) {
                (Some(v), _) => Some(v.clone()),
                (None, true) => words.get(i + 1).map(|w| w.text.clone()),
                (None, false) => None,
            };
            let field = if inline.is_none() && takes {
                words
                    .get(i + 1)
                    .map_or(w.field.clone(), |n| n.field.clone())
            } else {
                w.field.clone()
            };
            self.container_option(engine, flag, value.as_deref(), &field);
            i += if inline.is_none() && takes { 2 } else { 1 };
        }
    }

    fn container_option(&mut self, engine: &str, flag: &str, value: Option<&str>, field: &str) {
        let said = match value {
            Some(v) => format!("{flag} {v}"),
            None => flag.to_string(),
        };
        let lower = value.map(str::to_ascii_lowercase).unwrap_or_default();
        let privileged = match flag {
            "--privileged" => Some("runs the container with every privilege of the host"),
            "--cap-add"
                if matches!(
                    lower.trim_start_matches("cap_"),
                    "all" | "sys_admin" | "sys_ptrace" | "sys_module" | "dac_read_search"
                ) =>
            {
                Some("gives the container an administrative capability")
            }
            "--security-opt"
                if lower.ends_with("=unconfined") || lower.ends_with(":unconfined") =>
            {
                Some("turns the container's security profile off")
            }
            "--pid" | "--userns" | "--ipc" | "--uts" if lower == "host" => {
                Some("shares a namespace of the host with the container")
            }
            _ => None,
        };
        if let Some(why) = privileged {
            self.push(
                "C401",
                field,
                said.clone(),
                format!("`{engine} run {said}` {why}"),
            );
        }
        let source = match flag {
            "-v" | "--volume" => value.map(|v| v.split(':').next().unwrap_or("").to_string()),
            "--mount" => value.and_then(|v| {
                v.split(',').find_map(|kv| {
                    let (k, val) = kv.split_once('=')?;
                    matches!(k.trim(), "source" | "src").then(|| val.trim().to_string())
                })
            }),
            _ => None,
        };
        if let Some(source) = source {
            let trimmed = source.trim_end_matches('/');
            let socket = [
                "/var/run/docker.sock",
                "/run/docker.sock",
                "/run/podman/podman.sock",
                "/var/run/podman/podman.sock",
                "/run/containerd/containerd.sock",
            ];
            let why = if trimmed.is_empty() && source.starts_with('/') {
                Some("mounts the host's root directory")
            } else if socket.contains(&trimmed) {
                Some("mounts the container engine's socket, which controls the host")
            } else {
                None
            };
            if let Some(why) = why {
                self.push(
                    "C402",
                    field,
                    said,
                    format!("`{engine} run {flag} {}` {why}", value.unwrap_or("")),
                );
            }
        }
    }
}

/// Whether an env or header value is a literal secret rather than a setting:
/// at least 8 characters, no spaces (a scheme and its credential count as
/// one), not a path, a plain URL, a number, a boolean or a placeholder.
fn literal_secret(value: &str) -> bool {
    let v = value.trim();
    let credential = v
        .split_once(' ')
        .filter(|(scheme, _)| {
            ["bearer", "basic", "token", "apikey"].contains(&scheme.to_ascii_lowercase().as_str())
        })
        .map_or(v, |(_, c)| c.trim());
    if credential.chars().count() < 8 || credential.contains(char::is_whitespace) {
        return false;
    }
    let lower = credential.to_ascii_lowercase();
    let path = credential.starts_with(['/', '.', '~'])
        || credential.get(1..3) == Some(":\\")
        || credential.contains(['/', '\\']) && !credential.contains("://");
    let url = lower.starts_with("http://") || lower.starts_with("https://");
    let url_with_credentials = url
        && credential.split("://").nth(1).is_some_and(|r| {
            r.split('/')
                .next()
                .is_some_and(|auth| auth.contains('@') && auth.contains(':'))
        });
    let number = credential.chars().all(|c| c.is_ascii_digit() || c == '.');
    let word = [
        "true", "false", "enabled", "disabled", "required", "optional",
    ]
    .contains(&lower.as_str());
    let placeholder = [
        "example",
        "xxxx",
        "your",
        "changeme",
        "placeholder",
        "replace",
        "<",
        "…",
        "...",
    ]
    .iter()
    .any(|p| lower.contains(p));
    (url_with_credentials || !(path || url)) && !number && !word && !placeholder
}

/// The last path component of a program, without `.exe`/`.cmd`, lower case.
fn base_name(word: &str) -> String {
    let last = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let lower = last.to_ascii_lowercase();
    for ext in [".exe", ".cmd", ".bat", ".ps1"] {
        if let Some(stem) = lower.strip_suffix(ext) {
            return stem.to_string();
        }
    }
    lower
}

/// A command line split into words as a shell would (quotes grouped and
/// removed, backslash escapes outside single quotes), without expansion.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut any = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                    any = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The commands of a shell string, split at `;`, `&&`, `||`, `|`, `&`,
/// line breaks, `$(` and backticks (outside quotes).
fn shell_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.push(c);
            }
            (None, ';' | '|' | '&' | '\n' | '`' | '(' | ')') => {
                if c == '(' && cur.ends_with('$') {
                    cur.pop();
                }
                if c == '(' && cur.ends_with('<') {
                    cur.pop();
                }
                out.push(std::mem::take(&mut cur));
            }
            (None, c) => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

static PIPE_TO_SHELL: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?(?:sh|bash|zsh|dash|ksh|fish|python[0-9.]*|node|perl|ruby|iex|invoke-expression)\b|\b(?:sh|bash|zsh|dash|ksh|source|\.)\s+<\(\s*(?:curl|wget)\b|\b(?:sh|bash|zsh|dash|ksh)\s+-c\s+[\x22']?\$\(\s*(?:curl|wget)\b|\b(?:iex|invoke-expression)\s*\(?\s*(?:\(\s*)?(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)\b",
    )
    .ok()
});

/// The first download piped into a shell in `text`, if any.
fn pipe_to_shell(text: &str) -> Option<&str> {
    let re = PIPE_TO_SHELL.as_ref()?;
    re.find(text).map(|m| m.as_str())
}

/// The world-writable directory `text` lies in, when it is a path in one.
fn world_writable_dir(text: &str) -> Option<&'static str> {
    let t = text.trim();
    let path = t
        .split_once('=')
        .map_or(t, |(flag, v)| if flag.starts_with('-') { v } else { t });
    for dir in ["/tmp", "/var/tmp", "/dev/shm", "/private/tmp"] {
        if path == dir || path.starts_with(&format!("{dir}/")) {
            return Some(match dir {
                "/var/tmp" => "/var/tmp",
                "/dev/shm" => "/dev/shm",
                "/private/tmp" => "/private/tmp",
                _ => "/tmp",
            });
        }
    }
    let lower = path.to_ascii_lowercase();
    if lower.starts_with("c:\\windows\\temp\\") || lower == "c:\\windows\\temp" {
        return Some("C:\\Windows\\Temp");
    }
    None
}

/// Whether a `chmod` mode makes a path writable by others.
fn world_writable_mode(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) && !mode.is_empty() {
        let others = mode.chars().last().and_then(|c| c.to_digit(8)).unwrap_or(0);
        return others & 2 != 0;
    }
    mode.split(',').any(|clause| {
        let (who, rest) = clause
            .find(['+', '='])
            .map_or(("", ""), |at| clause.split_at(at));
        (who.is_empty() || who.contains('o') || who.contains('a')) && rest.contains('w')
    })
}

/// The name part of an npm package spec (`@scope/name`, `name`).
fn npm_name(spec: &str) -> &str {
    let from = usize::from(spec.starts_with('@'));
    match spec[from..].find('@') {
        Some(at) => &spec[..from + at],
        None => spec,
    }
}

/// Why an npm package spec is not pinned to one release, if it is not.
/// Local paths and tarball URLs are not registry packages and pass.
fn npm_unpinned(spec: &str) -> Option<String> {
    let spec = spec.trim();
    if spec.is_empty()
        || spec.starts_with(['.', '/', '~'])
        || spec.starts_with("file:")
        || spec.contains('\\')
        || spec.ends_with(".tgz")
        || spec.ends_with(".js")
        || spec.ends_with(".mjs")
        || spec.ends_with(".cjs")
    {
        return None;
    }
    let git = [
        "github:",
        "gitlab:",
        "bitbucket:",
        "git+",
        "git://",
        "https://",
        "http://",
    ];
    if git.iter().any(|g| spec.starts_with(g)) {
        return match spec.split_once('#') {
            Some((_, commit)) if is_commit(commit) => None,
            Some((_, r)) => Some(format!("at `{r}`, a branch or tag that can move")),
            None => Some("from a repository's default branch".to_string()),
        };
    }
    let name = npm_name(spec);
    let version = spec[name.len()..].trim_start_matches('@');
    if name.len() == spec.len() || version.is_empty() {
        return Some("without a version, so the latest release runs at every start".to_string());
    }
    if exact_semver(version) {
        return None;
    }
    if version.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Some(format!(
            "at the tag `{version}`, which moves with every release"
        ))
    } else {
        Some(format!(
            "at the range `{version}`, which takes new releases"
        ))
    }
}

/// `1.2.3`, `1.2.3-beta.1`, `1.2.3+build` (with an optional `v`).
fn exact_semver(v: &str) -> bool {
    let v = v.strip_prefix(['v', '=']).unwrap_or(v);
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

fn is_commit(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// The distribution name of a Python requirement.
fn python_name(spec: &str) -> &str {
    let end = spec
        .find(['=', '<', '>', '~', '!', '@', '[', ';', ' '])
        .unwrap_or(spec.len());
    &spec[..end]
}

/// Why a Python requirement (as uvx and pipx take it) is not pinned.
fn python_unpinned(spec: &str) -> Option<String> {
    let spec = spec.trim();
    if spec.is_empty()
        || spec.starts_with(['.', '/', '~'])
        || spec.contains('\\')
        || spec.ends_with(".whl")
        || spec.ends_with(".py")
    {
        return None;
    }
    if let Some(url) = spec
        .strip_prefix("git+")
        .or_else(|| spec.split_once(" @ git+").map(|(_, u)| u))
    {
        return match url.rsplit_once('@') {
            Some((_, rev)) if is_commit(rev) => None,
            Some((_, rev)) if !rev.contains('/') => {
                Some(format!("at `{rev}`, a branch or tag that can move"))
            }
            _ => Some("from a repository's default branch".to_string()),
        };
    }
    let name = python_name(spec);
    let rest = spec[name.len()..].trim();
    // Extras: `pkg[cli]==1.0`.
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or("", |(_, after)| after.trim()),
        None => rest,
    };
    if rest.is_empty() {
        return Some("without a version, so the latest release runs at every start".to_string());
    }
    if let Some(v) = rest.strip_prefix("===").or_else(|| rest.strip_prefix("==")) {
        let v = v.trim();
        return if v.is_empty() || v.contains('*') {
            Some(format!("at `{rest}`, which takes new releases"))
        } else {
            None
        };
    }
    if let Some(v) = rest.strip_prefix('@') {
        let v = v.trim();
        return if v.eq_ignore_ascii_case("latest") || v.is_empty() {
            Some(format!("at `@{v}`, the latest release at every start"))
        } else if v.starts_with(|c: char| c.is_ascii_digit()) {
            None
        } else {
            Some(format!("at `@{v}`, which is not a version"))
        };
    }
    Some(format!("at the range `{rest}`, which takes new releases"))
}

/// Why a container image reference is not pinned, if it is not.
fn image_unpinned(image: &str) -> Option<String> {
    if image.contains("@sha256:") {
        return None;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.split_once(':') {
        None => Some("without a tag (so `latest`)".to_string()),
        Some((_, tag)) if tag == "latest" || tag.is_empty() => {
            Some("at `latest`, which moves with every push".to_string())
        }
        Some(_) => None,
    }
}

/// Whether a `docker run` option takes a value as the next word.
fn container_option_takes_value(flag: &str) -> bool {
    const SHORT: &[&str] = &["-a", "-c", "-e", "-h", "-l", "-m", "-p", "-u", "-v", "-w"];
    const LONG: &[&str] = &[
        "--add-host",
        "--annotation",
        "--attach",
        "--blkio-weight",
        "--cap-add",
        "--cap-drop",
        "--cgroup-parent",
        "--cgroupns",
        "--cidfile",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-shares",
        "--cpus",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--device",
        "--device-cgroup-rule",
        "--dns",
        "--dns-option",
        "--dns-search",
        "--domainname",
        "--entrypoint",
        "--env",
        "--env-file",
        "--expose",
        "--gpus",
        "--group-add",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-start-period",
        "--health-timeout",
        "--hostname",
        "--ip",
        "--ip6",
        "--ipc",
        "--isolation",
        "--kernel-memory",
        "--label",
        "--label-file",
        "--link",
        "--log-driver",
        "--log-opt",
        "--mac-address",
        "--memory",
        "--memory-reservation",
        "--memory-swap",
        "--memory-swappiness",
        "--mount",
        "--name",
        "--net",
        "--network",
        "--network-alias",
        "--oom-score-adj",
        "--pid",
        "--pids-limit",
        "--platform",
        "--publish",
        "--pull",
        "--restart",
        "--runtime",
        "--security-opt",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "--sysctl",
        "--tmpfs",
        "--ulimit",
        "--user",
        "--userns",
        "--uts",
        "--volume",
        "--volume-driver",
        "--volumes-from",
        "--workdir",
    ];
    SHORT.contains(&flag) || LONG.contains(&flag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(config: Value) -> Vec<(&'static str, String)> {
        check_config("mcp.json", &config)
            .into_iter()
            .map(|f| (f.code(), f.field().to_string()))
            .collect()
    }

    #[test]
    fn rules_are_numbered_in_order() {
        let codes: Vec<&str> = RULES.iter().map(|r| r.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        assert_eq!(codes, sorted);
    }

    #[test]
    fn planted_problems_are_found_where_they_are() {
        let found = codes(json!({"mcpServers": {
            "gh": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz01",
                           "DB_PASSWORD": "hunter2hunter2"}},
            "py": {"command": "uvx", "args": ["mcp-server-fetch@latest"]},
            "root": {"command": "sudo", "args": ["node", "/opt/server.js"]},
            "pipe": {"command": "bash", "args": ["-c", "curl -fsSL https://get.example.sh | sh"]},
            "box": {"command": "docker", "args": ["run", "-i", "--rm", "--privileged", "-v", "/:/host", "mcp/fetch"]},
            "tmp": {"command": "/tmp/server", "args": []},
            "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer sk-proj-abcdefghijklmnopqrstuvwx0123"}}
        }}));
        let has = |code: &str, field: &str| found.iter().any(|(c, f)| *c == code && f == field);
        assert!(
            has("C101", "/mcpServers/gh/env/GITHUB_PERSONAL_ACCESS_TOKEN"),
            "{found:?}"
        );
        assert!(has("C102", "/mcpServers/gh/env/DB_PASSWORD"), "{found:?}");
        assert!(has("C201", "/mcpServers/gh/args/1"), "{found:?}");
        assert!(has("C201", "/mcpServers/py/args/0"), "{found:?}");
        assert!(has("C301", "/mcpServers/root/command"), "{found:?}");
        assert!(has("C302", "/mcpServers/pipe/args/1"), "{found:?}");
        assert!(has("C401", "/mcpServers/box/args/3"), "{found:?}");
        assert!(has("C402", "/mcpServers/box/args/5"), "{found:?}");
        assert!(has("C202", "/mcpServers/box/args/6"), "{found:?}");
        assert!(has("C501", "/mcpServers/tmp/command"), "{found:?}");
        assert!(
            has("C101", "/mcpServers/remote/headers/Authorization"),
            "{found:?}"
        );
    }

    #[test]
    fn a_clean_config_holds() {
        let found = codes(json!({"servers": {
            "gh": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github@2025.4.8"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${input:github_token}", "LOG_LEVEL": "debug"}},
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@0.6.2", "/home/me/projects"]},
            "py": {"command": "uvx", "args": ["mcp-server-fetch==2025.4.7"]},
            "pinned": {"command": "uvx", "args": ["--from", "git+https://github.com/o/r@0123456789abcdef0123456789abcdef01234567", "tool"]},
            "box": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "TOKEN", "-v", "/home/me/data:/data:ro", "mcp/fetch@sha256:0123abcd"]},
            "local": {"command": "node", "args": ["./build/index.js"], "env": {"API_KEY": "${API_KEY}", "TOKEN_FILE": "/home/me/.config/token"}},
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
        }}));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn shells_and_wrappers_are_looked_through() {
        let found = codes(json!({"mcpServers": {
            "a": {"command": "cmd", "args": ["/c", "npx", "-y", "some-server"]},
            "b": {"command": "sh", "args": ["-c", "cd /srv && sudo -E npx some-server@latest --port 1"]},
            "c": {"command": "env", "args": ["FOO=1", "pipx", "run", "mcp-thing"]},
            "d": {"command": "powershell", "args": ["-Command", "iex (iwr https://x.example/install.ps1)"]},
            "e": {"command": "bash", "args": ["-c", "chmod 777 /srv/data && node s.js"]},
            "f": {"command": "npx -y other-server"}
        }}));
        let has = |code: &str, field: &str| found.iter().any(|(c, f)| *c == code && f == field);
        assert!(has("C201", "/mcpServers/a/args/3"), "{found:?}");
        assert!(has("C301", "/mcpServers/b/args/1"), "{found:?}");
        assert!(has("C201", "/mcpServers/b/args/1"), "{found:?}");
        assert!(has("C201", "/mcpServers/c/args/3"), "{found:?}");
        assert!(has("C302", "/mcpServers/d/args/1"), "{found:?}");
        assert!(has("C501", "/mcpServers/e/args/1"), "{found:?}");
        assert!(has("C201", "/mcpServers/f/command"), "{found:?}");
    }

    #[test]
    fn specs() {
        assert!(npm_unpinned("pkg").is_some());
        assert!(npm_unpinned("@scope/pkg").is_some());
        assert!(npm_unpinned("@scope/pkg@latest").is_some());
        assert!(npm_unpinned("pkg@^1.2.0").is_some());
        assert!(npm_unpinned("pkg@1.2.3").is_none());
        assert!(npm_unpinned("@scope/pkg@1.2.3-beta.1").is_none());
        assert!(npm_unpinned("./local").is_none());
        assert!(npm_unpinned("github:o/r").is_some());
        assert!(npm_unpinned("github:o/r#0123456789abcdef").is_none());
        assert!(python_unpinned("pkg").is_some());
        assert!(python_unpinned("pkg@latest").is_some());
        assert!(python_unpinned("pkg>=1").is_some());
        assert!(python_unpinned("pkg==1.0").is_none());
        assert!(python_unpinned("pkg[cli]==1.0").is_none());
        assert!(python_unpinned("pkg@1.0.2").is_none());
        assert!(image_unpinned("mcp/fetch").is_some());
        assert!(image_unpinned("ghcr.io/o/i:latest").is_some());
        assert!(image_unpinned("localhost:5000/i").is_some());
        assert!(image_unpinned("localhost:5000/i:1.0").is_none());
        assert!(world_writable_mode("777"));
        assert!(world_writable_mode("o+w"));
        assert!(world_writable_mode("a=rwx"));
        assert!(!world_writable_mode("755"));
        assert!(!world_writable_mode("u+w"));
        assert!(literal_secret("hunter2hunter2"));
        assert!(!literal_secret("/home/me/token"));
        assert!(!literal_secret("your-token-here"));
        assert!(!literal_secret("true"));
        assert!(literal_secret("Bearer abcdefgh12345"));
    }

    #[test]
    fn jsonc_is_read_with_its_lines() {
        let text = "{\n  // servers\n  \"servers\": {\"a\": {\"command\": \"x\",}, /* b */},\n}";
        let plain = strip_jsonc(text).expect("changed");
        let doc: Value = serde_json::from_str(&plain).expect("json");
        assert_eq!(doc["servers"]["a"]["command"], "x");
        assert_eq!(plain.lines().count(), text.lines().count());
        assert_eq!(strip_jsonc("{\"a\": \"// not a comment\"}"), None);
    }
}
