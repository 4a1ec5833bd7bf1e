//! `ssh-keys add|list|delete`: the SSH public keys a provider's agent installs for your
//! bookings.

use std::path::PathBuf;

use client::types;

use super::output::{fields, table};
use super::{Auth, Ctx, Failure, Global, uuid};

#[derive(Debug, clap::Args)]
pub struct SshKeysArgs {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: SshKeysCommand,
}

#[derive(Debug, clap::Subcommand)]
enum SshKeysCommand {
    /// Add a public key (a `.pub` file, or `-` for standard input): ed25519, ECDSA or RSA of at
    /// least 3,072 bits; ten at most.
    Add {
        /// The public key's file (`~/.ssh/id_ed25519.pub`), or `-`.
        file: PathBuf,
        /// A label to tell keys apart (default: the file's name).
        #[arg(long)]
        name: Option<String>,
    },
    /// Your keys, oldest first, with their fingerprints.
    List,
    /// Delete a key: agents stop installing it.
    Delete { id: String },
}

pub async fn ssh_keys(args: SshKeysArgs) -> Result<(), Failure> {
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    match args.command {
        SshKeysCommand::Add { file, name } => {
            let text = if file.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin())
            } else {
                std::fs::read_to_string(&file)
            }
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", file.display())))?;
            let name = name.unwrap_or_else(|| {
                file.file_name()
                    .map_or_else(|| "key".to_owned(), |n| n.to_string_lossy().into_owned())
            });
            let body = types::AddSshKeyRequest {
                name,
                public_key: text,
            };
            if let Some(key) = ctx.outcome(ctx.client.add_ssh_key().body(body).send().await)? {
                ctx.say(&fields(
                    ctx.style,
                    &[
                        ("id", key.id.to_string()),
                        ("name", key.name.clone()),
                        ("fingerprint", key.fingerprint.clone()),
                    ],
                ))?;
            }
        }
        SshKeysCommand::List => {
            if let Some(page) = ctx.outcome(ctx.client.list_ssh_keys().send().await)? {
                let rows: Vec<Vec<String>> = page
                    .items
                    .iter()
                    .map(|k| {
                        vec![
                            k.id.to_string(),
                            k.name.clone(),
                            k.fingerprint.clone(),
                            k.created_at.format("%Y-%m-%d %H:%M").to_string(),
                        ]
                    })
                    .collect();
                ctx.say(&table(
                    ctx.style,
                    &["ID", "NAME", "FINGERPRINT", "ADDED"],
                    &rows,
                ))?;
            }
        }
        SshKeysCommand::Delete { id } => {
            let id = uuid("ssh key", &id)?;
            if ctx
                .outcome(ctx.client.delete_ssh_key().id(id).send().await)?
                .is_some()
            {
                ctx.say(&format!("deleted {id}\n"))?;
            }
        }
    }
    ctx.finish()
}
