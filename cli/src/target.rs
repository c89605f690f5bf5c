//! The server a command connects to once: `--server CMD`, or `--url URL`
//! with `--transport` and `--header`s. Shared by `conformance` and
//! `generate`.

use clap::{Args, ValueEnum};

use crate::client::Endpoint;

/// Where the server is.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The server to start on stdio (split like a shell would).
    #[arg(
        long,
        value_name = "CMD",
        conflicts_with = "url",
        required_unless_present = "url"
    )]
    pub server: Option<String>,

    /// The server's URL (Streamable HTTP, or legacy SSE with --transport sse).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// The HTTP transport for --url.
    #[arg(long, value_enum, default_value_t = HttpTransport::Http, requires = "url")]
    pub transport: HttpTransport,

    /// An HTTP header for --url, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "HEADER", requires = "url")]
    pub headers: Vec<String>,

    /// Run the --server command in this container image: `docker run --rm
    /// -i [-v FIXTURE:FIXTURE] IMAGE CMD` (podman when docker is not
    /// installed).
    #[arg(long, value_name = "IMAGE", conflicts_with = "url")]
    pub docker: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HttpTransport {
    /// Streamable HTTP.
    Http,
    /// Legacy HTTP+SSE.
    Sse,
}

impl TargetArgs {
    /// The endpoint the flags describe (in its container with --docker), or
    /// what is wrong with them.
    pub fn endpoint(&self) -> Result<Endpoint, String> {
        Ok(self.contain(self.bare_endpoint()?, None))
    }

    /// `endpoint` in the --docker container, with `fixture` mounted; as it
    /// is without --docker.
    pub fn contain(&self, endpoint: Endpoint, fixture: Option<&std::path::Path>) -> Endpoint {
        match (&self.docker, endpoint) {
            (Some(image), Endpoint::Stdio { command, args, env }) => {
                crate::client::container::wrap(image, command, args, env, &[], fixture)
            }
            (_, other) => other,
        }
    }

    /// The endpoint the flags describe, outside any container.
    pub fn bare_endpoint(&self) -> Result<Endpoint, String> {
        if let Some(cmd) = &self.server {
            let argv = shlex::split(cmd)
                .filter(|a| !a.is_empty())
                .ok_or_else(|| format!("cannot split --server {cmd:?}: check its quotes"))?;
            let (command, rest) = argv.split_first().ok_or("--server is empty")?;
            return Ok(Endpoint::Stdio {
                command: command.clone(),
                args: rest.to_vec(),
                env: Vec::new(),
            });
        }
        let url = self.url.clone().ok_or("give --server CMD or --url URL")?;
        let mut headers = Vec::new();
        for h in &self.headers {
            let (k, v) = h
                .split_once(':')
                .ok_or_else(|| format!("--header {h:?}: write it as `Name: value`"))?;
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok(match self.transport {
            HttpTransport::Http => Endpoint::Http { url, headers },
            HttpTransport::Sse => Endpoint::Sse { url, headers },
        })
    }
}
