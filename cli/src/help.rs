//! The links `--help` gives, built in one place so they cannot drift: the
//! documentation as rendered on the web (a user who installed the binary
//! alone, through pip or npx, has no `docs/` folder), and `mcpcheck rule
//! CODE` for the commands whose findings carry rule codes. The repository is
//! the workspace's `repository` (Cargo.toml).
//!
//! They are macros so that a command's `after_help` stays one string built
//! at compile time (`concat!`).

/// The rendered page of the repository's `docs/NAME.md`.
macro_rules! doc_url {
    ($name:literal) => {
        concat!(
            env!("CARGO_PKG_REPOSITORY"),
            "/blob/main/docs/",
            $name,
            ".md"
        )
    };
}

/// The line that ends a command's help: `Documentation: URL`.
macro_rules! docs_line {
    ($name:literal) => {
        concat!("Documentation: ", $crate::help::doc_url!($name))
    };
}

/// The lines that end the help of a command whose findings carry rule codes:
/// where the rules are listed (`Rules, WHAT: URL`), and how to have one
/// explained.
macro_rules! rules_lines {
    ($name:literal, $example:literal, $what:literal) => {
        concat!(
            "Rules, ",
            $what,
            ": ",
            $crate::help::doc_url!($name),
            "\nOne rule explained: mcpcheck rule ",
            $example
        )
    };
}

pub(crate) use {doc_url, docs_line, rules_lines};

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every command and subcommand, by its full name, with its long help.
    fn helps() -> Vec<(String, String)> {
        fn walk(cmd: &mut clap::Command, path: &str, out: &mut Vec<(String, String)>) {
            let name = format!("{path} {}", cmd.get_name()).trim().to_string();
            out.push((name.clone(), cmd.render_long_help().to_string()));
            for sub in cmd.get_subcommands_mut() {
                walk(sub, &name, out);
            }
        }
        let mut cmd = crate::Cli::command();
        cmd.build();
        let mut out = Vec::new();
        walk(&mut cmd, "", &mut out);
        out
    }

    #[test]
    fn every_doc_the_help_names_is_a_link_to_a_page_that_exists() {
        let base = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/");
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
        let mut links = 0;
        for (name, help) in helps() {
            for (at, _) in help.match_indices("docs/") {
                // Only as part of a link: a user of the binary has no docs/.
                let link_start = help[..at].rfind(base.trim_end_matches("docs/"));
                assert!(
                    link_start.is_some_and(|s| s + base.len() == at + "docs/".len()),
                    "`{name} --help` names a docs/ path that is not a link:\n{help}"
                );
                let page: String = help[at + "docs/".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                    .collect();
                let page = page.trim_end_matches('.');
                assert!(page.ends_with(".md"), "`{name} --help`: {page}");
                assert!(
                    docs.join(page).is_file(),
                    "`{name} --help` links docs/{page}, which does not exist"
                );
                links += 1;
            }
        }
        assert!(links > 20, "{links} links");
    }

    #[test]
    fn every_command_links_its_documentation() {
        for (name, help) in helps() {
            // `help` is clap's own; `compliance` only groups `invariants`.
            let words: Vec<&str> = name.split(' ').collect();
            if words.len() == 1 || words.contains(&"help") || name == "mcpcheck compliance" {
                continue;
            }
            assert!(
                help.contains("Documentation: https://") || help.contains("Rules, "),
                "`{name} --help` links no documentation:\n{help}"
            );
        }
    }

    #[test]
    fn the_links_are_the_repositorys() {
        assert_eq!(
            doc_url!("probe"),
            "https://github.com/mcpcheck/mcpcheck/blob/main/docs/probe.md"
        );
        assert_eq!(
            rules_lines!("scan", "S502", "their sources"),
            "Rules, their sources: https://github.com/mcpcheck/mcpcheck/blob/main/docs/scan.md\nOne rule explained: mcpcheck rule S502"
        );
    }
}
