//! `gpumarket agent`: the provider's agent on its machine. `agent facts` prints what the
//! machine says it is; `agent run` grants and ends renters' access as the listing's desired
//! state says; `agent authorized-keys` answers OpenSSH's `AuthorizedKeysCommand`; `agent
//! health` and `agent power` print what heartbeats and a run's GPU samples carry.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    command: AgentCommand,
}

const STATE_DIR: &str = "/var/lib/gpumarket-agent";

#[derive(Debug, clap::Subcommand)]
enum AgentCommand {
    /// Print the machine's facts as JSON: its GPUs (through NVML, else `nvidia-smi`), CPU,
    /// memory, disk, OS and kernel — the machine's word, not an attestation. Exits 1 when no
    /// GPU could be read (the JSON says why).
    Facts {
        /// The directory whose file system's free space is reported.
        #[arg(long, default_value = STATE_DIR)]
        state_dir: PathBuf,
        #[command(flatten)]
        gpu_tools: GpuToolArgs,
    },
    /// Print each GPU's health as JSON, as every heartbeat carries it for preflight's
    /// `gpu_health`: uncorrected ECC errors, throttle reasons, persistence mode, compute
    /// processes. Exits 1 when neither NVML nor `nvidia-smi` answered.
    Health {
        #[command(flatten)]
        gpu_tools: GpuToolArgs,
    },
    /// Sample the GPUs for `--secs` seconds as the running agent does all the time (10 Hz:
    /// power draw, NVML's energy counter where the GPU has one, SM clock, temperature,
    /// utilisation) and print the samples as JSON, as a run's upload carries them. Exits 1
    /// when no GPU gave a sample.
    Power {
        /// How long to sample (0.2 to 60).
        #[arg(long, default_value_t = 2.0)]
        secs: f64,
        #[command(flatten)]
        gpu_tools: GpuToolArgs,
    },
    /// Run the agent (as root): report the facts, long-poll the listing's desired state, make
    /// each whole-machine booking's account shortly before its start and remove it (its
    /// processes and files too) when its access ends, beat every 15 s. Outward connections
    /// only. `[agent]` settings come from `--config`.
    Run {
        /// The server (`https://gpumarket.example`; `/v1` is added).
        #[arg(long)]
        server: String,
        /// The listing this machine serves.
        #[arg(long)]
        listing: String,
        /// A file holding the organisation key of scope `agent` bound to the listing.
        #[arg(long)]
        key_file: PathBuf,
        /// Where the agent keeps its state (0700); the keys cache is beside it
        /// (`<state-dir>.keys`).
        #[arg(long, default_value = STATE_DIR)]
        state_dir: PathBuf,
        #[command(flatten)]
        gpu_tools: GpuToolArgs,
        /// Make no account: print the accounts it would make and the `authorized-keys` lines.
        #[arg(long)]
        dry_run: bool,
        /// dockerd's socket: bookings that ask for a container get one through it.
        #[arg(long, default_value = "unix:///var/run/docker.sock")]
        docker_host: String,
    },
    /// Answer OpenSSH's `AuthorizedKeysCommand` for USER from the local keys cache: the
    /// renter's keys while its booking gives access, nothing otherwise. Never waits on the
    /// network. In `sshd_config`: `AuthorizedKeysCommand /usr/local/bin/gpumarket agent
    /// authorized-keys %u` with an unprivileged `AuthorizedKeysCommandUser`.
    AuthorizedKeys {
        #[arg(long, default_value = STATE_DIR)]
        state_dir: PathBuf,
        /// The account logging in (`%u`).
        user: String,
    },
    /// The forced command of a container booking's entry account (its key lines name it; not
    /// run by hand): runs the login's command (`SSH_ORIGINAL_COMMAND`, else a login shell) in
    /// the booking's container through the agent's socket (`<state-dir>.enter`), with a
    /// terminal when the login has one, and exits with the command's code (255 when it could
    /// not enter).
    Enter {
        #[arg(long, default_value = STATE_DIR)]
        state_dir: PathBuf,
    },
}

/// Where the GPUs are read from.
#[derive(Debug, clap::Args)]
struct GpuToolArgs {
    /// The NVML library asked first (the driver's, found by the dynamic loader, by default).
    #[arg(long, default_value = "libnvidia-ml.so.1")]
    nvml_lib: std::ffi::OsString,
    /// The `nvidia-smi` run when NVML is not there or fails (found on PATH by default).
    #[arg(long, default_value = "nvidia-smi")]
    nvidia_smi: PathBuf,
}

impl From<GpuToolArgs> for agent::facts::GpuTools {
    fn from(args: GpuToolArgs) -> Self {
        Self {
            nvml: args.nvml_lib,
            nvidia_smi: args.nvidia_smi,
        }
    }
}

/// Prints what was read as JSON: exit 0 when a GPU was read, 1 when none was.
fn print_read(read: &impl serde::Serialize, any_gpu: bool) -> anyhow::Result<ExitCode> {
    let json = serde_json::to_string_pretty(read)?;
    #[allow(clippy::print_stdout)]
    {
        println!("{json}");
    }
    Ok(if any_gpu {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub async fn agent(args: AgentArgs, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    match args.command {
        AgentCommand::Facts {
            state_dir,
            gpu_tools,
        } => {
            // The state directory may not exist yet: its nearest existing parent's disk.
            let dir = state_dir
                .ancestors()
                .find(|d| d.exists())
                .map_or_else(|| PathBuf::from("/"), PathBuf::from);
            let facts = agent::facts::read_facts(&gpu_tools.into(), &dir).await;
            print_read(&facts, !facts.gpus.is_empty())
        }
        AgentCommand::Health { gpu_tools } => {
            let health = agent::facts::read_health(&gpu_tools.into()).await;
            print_read(&serde_json::json!({ "gpus": health }), health.is_some())
        }
        AgentCommand::Power { secs, gpu_tools } => {
            anyhow::ensure!(
                (0.2..=60.0).contains(&secs),
                "--secs must be between 0.2 and 60"
            );
            let samples = agent::telemetry::read_for(gpu_tools.into(), secs).await;
            let any = !samples.gpus.is_empty();
            print_read(&samples, any)
        }
        AgentCommand::Run {
            server,
            listing,
            key_file,
            state_dir,
            gpu_tools,
            dry_run,
            docker_host,
        } => {
            let config = crate::settings::load(config)?;
            crate::telemetry::init(config.server.log_format);
            let settings = config.agent;
            let key = std::fs::read_to_string(&key_file)
                .with_context(|| format!("reading the key file {}", key_file.display()))?
                .trim()
                .to_owned();
            let server = server.trim_end_matches('/');
            let api = if server.ends_with("/v1") {
                server.to_owned()
            } else {
                format!("{server}/v1")
            };
            let keys_gid =
                agent::accounts::group_id(Path::new("/etc/group"), &settings.agent_keys_group);
            if keys_gid.is_none() && !dry_run {
                anyhow::bail!(
                    "no group {:?} for the keys cache's readers ([agent] agent_keys_group)",
                    settings.agent_keys_group
                );
            }
            let options = agent::run::Options {
                api,
                listing,
                key,
                state_dir,
                keys_gid,
                machine: agent::accounts::Machine {
                    home_base: settings.agent_home_base.into(),
                    uid_min: settings.agent_uid_min,
                    uid_max: settings.agent_uid_max,
                    grace: std::time::Duration::from_secs(settings.agent_end_grace_secs),
                    gpu_tools: gpu_tools.into(),
                    passwd: "/etc/passwd".into(),
                },
                dry_run,
                docker_host,
            };
            agent::run::run(options).await.map_err(anyhow::Error::msg)?;
            Ok(ExitCode::SUCCESS)
        }
        AgentCommand::AuthorizedKeys { state_dir, user } => {
            let cache = agent::keys::KeysCache::new(agent::keys::keys_dir(&state_dir), None);
            // An entry account's lines force this very binary's `agent enter`.
            let enter = std::env::current_exe()
                .ok()
                .and_then(|exe| agent::keys::enter_command(&exe, &state_dir));
            let lines = cache.authorized_keys(&user, chrono::Utc::now(), enter.as_deref());
            #[allow(clippy::print_stdout)]
            {
                print!("{lines}");
            }
            Ok(ExitCode::SUCCESS)
        }
        AgentCommand::Enter { state_dir } => {
            let code = agent::enter::enter(&agent::enter::enter_socket(&state_dir)).await;
            // At once: the read of the login's input blocks a thread the runtime would wait
            // for at its end (a terminal never says end of input).
            std::process::exit(code & 0xff)
        }
    }
}
