//! `gpumarket agent`: the provider's agent on its machine. Today it reports what the machine
//! says it is (`agent facts`); granting and ending renters' access comes next (issue 56).

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    command: AgentCommand,
}

#[derive(Debug, clap::Subcommand)]
enum AgentCommand {
    /// Print the machine's facts as JSON: its GPUs (through `nvidia-smi`), CPU, memory, disk,
    /// OS and kernel — the machine's word, not an attestation. Exits 1 when no GPU could be
    /// read (the JSON says why).
    Facts {
        /// The directory whose file system's free space is reported.
        #[arg(long, default_value = "/var/lib/gpumarket-agent")]
        state_dir: PathBuf,
        /// The `nvidia-smi` to run (found on PATH by default).
        #[arg(long, default_value = "nvidia-smi")]
        nvidia_smi: PathBuf,
    },
}

pub async fn agent(args: AgentArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        AgentCommand::Facts {
            state_dir,
            nvidia_smi,
        } => {
            // The state directory may not exist yet: its nearest existing parent's disk.
            let dir = state_dir
                .ancestors()
                .find(|d| d.exists())
                .map_or_else(|| PathBuf::from("/"), PathBuf::from);
            let facts = agent::facts::read_facts(&nvidia_smi, &dir).await;
            let json = serde_json::to_string_pretty(&facts)?;
            #[allow(clippy::print_stdout)]
            {
                println!("{json}");
            }
            Ok(if facts.gpus.is_empty() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}
