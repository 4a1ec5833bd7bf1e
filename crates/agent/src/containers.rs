//! Containers per booking, through the Docker Engine API (`bollard`, over dockerd's Unix
//! socket; never the `docker` command). A booking that asks for a container gets one holding
//! exactly its GPUs — `DeviceRequests` by GPU UUID, which the NVIDIA runtime's hook turns into
//! the devices — with CPU and memory limits by its share of the machine, no privileges
//! (every capability dropped, no new privileges), a read-only root unless the listing allows
//! otherwise (a `/tmp` in memory either way), no network of its own unless asked, and a
//! volume of its own at `/workspace`. At `access_until` it is stopped and removed with its
//! volume. Containers and volumes are named after the booking (`gm-` and the last 12 hex digits
//! of its id) and labelled with it, so a restarted agent finds its own and touches no other.
//!
//! GPUs are assigned so that no two live containers share one ([`assign_gpus`]): the capacity
//! rule already keeps overlapping bookings within the machine's GPUs; this picks which.

use std::collections::HashMap;

use bollard::Docker;
use bollard::models::{ContainerCreateBody, DeviceRequest, HostConfig, Mount, MountType};
use bollard::query_parameters::{
    CreateContainerOptions, ListContainersOptions, LogsOptions, RemoveContainerOptions,
    RemoveVolumeOptions, StopContainerOptions,
};
use futures_util::StreamExt;

/// The label naming the booking a container or volume is for.
pub const BOOKING_LABEL: &str = "dev.gpumarket.booking";
/// The label naming the listing whose agent made a container: an agent touches only its own
/// listing's (a machine may serve several listings, each with an agent, on one dockerd).
pub const LISTING_LABEL: &str = "dev.gpumarket.listing";
/// The label naming the GPUs a container holds (comma-separated UUIDs).
pub const GPUS_LABEL: &str = "dev.gpumarket.gpus";
/// Where the booking's volume is mounted.
pub const WORKSPACE: &str = "/workspace";
/// The most bytes of logs read back.
pub const MAX_LOG_BYTES: usize = 256 * 1024;
/// Seconds a container gets to stop before it is killed.
const STOP_GRACE_SECS: i32 = 10;

/// What a booking's container must be.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerSpec {
    pub booking_id: String,
    /// An image the listing allows, by reference or digest.
    pub image: String,
    pub command: Option<Vec<String>>,
    pub env: Vec<(String, String)>,
    /// Exactly the booking's GPUs, by UUID.
    pub gpus: Vec<String>,
    /// CPU share, in billionths of a CPU (`NanoCpus`).
    pub nano_cpus: i64,
    pub memory_bytes: i64,
    /// Whether the listing lets the root file system be written.
    pub writable_root: bool,
    /// `none` (no network) or `host` (the machine's, for a gateway-only engine); never a
    /// bridge's private-range address.
    pub network: String,
}

/// What went wrong with the container engine.
#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    #[error("the container engine at {socket} did not answer: {said}")]
    Unreachable { socket: String, said: String },
    #[error("the image {image} is not on this machine and could not be pulled: {said}")]
    Image { image: String, said: String },
    #[error("the container engine refused: {0}")]
    Engine(String),
}

impl From<bollard::errors::Error> for ContainerError {
    fn from(e: bollard::errors::Error) -> Self {
        Self::Engine(e.to_string())
    }
}

/// A booking's container as the engine has it.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingContainer {
    pub booking_id: String,
    pub name: String,
    /// `created`, `running`, `exited`, …
    pub state: String,
    pub gpus: Vec<String>,
}

/// A command started in a container, attached: what it writes, and its input.
pub struct Attached {
    pub exec_id: String,
    pub output: std::pin::Pin<
        Box<
            dyn futures_util::Stream<
                    Item = Result<bollard::container::LogOutput, bollard::errors::Error>,
                > + Send,
        >,
    >,
    pub input: std::pin::Pin<Box<dyn tokio::io::AsyncWrite + Send>>,
}

impl std::fmt::Debug for Attached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attached")
            .field("exec_id", &self.exec_id)
            .finish_non_exhaustive()
    }
}

/// The name of a booking's container and of its volume: `gm-` and the last 12 hex digits of its
/// id (a UUIDv7's random tail: unique among a machine's bookings).
pub fn name_of(booking_id: &str) -> String {
    let hex: String = booking_id.chars().filter(char::is_ascii_hexdigit).collect();
    format!("gm-{}", &hex[hex.len().saturating_sub(12)..])
}

/// `want` GPUs of `all` that no container in `taken` holds, in `all`'s order; `None` when
/// fewer are free.
pub fn assign_gpus(all: &[String], taken: &[Vec<String>], want: usize) -> Option<Vec<String>> {
    let free: Vec<String> = all
        .iter()
        .filter(|g| !taken.iter().flatten().any(|t| t == *g))
        .take(want)
        .cloned()
        .collect();
    (free.len() == want).then_some(free)
}

/// The Docker Engine API on this machine.
#[derive(Debug, Clone)]
pub struct Runtime {
    docker: Docker,
    /// The listing whose containers it makes and sees; `None`: every booking container.
    listing: Option<String>,
}

impl Runtime {
    /// Connects to dockerd's socket (`unix:///var/run/docker.sock`) and agrees on the API
    /// version it speaks (dockerd 20.10 speaks 1.41).
    pub async fn connect(socket: &str) -> Result<Self, ContainerError> {
        let unreachable = |said: String| ContainerError::Unreachable {
            socket: socket.to_owned(),
            said,
        };
        let path = socket.strip_prefix("unix://").unwrap_or(socket);
        let docker = Docker::connect_with_unix(path, 30, bollard::API_DEFAULT_VERSION)
            .map_err(|e| unreachable(e.to_string()))?
            .negotiate_version()
            .await
            .map_err(|e| unreachable(e.to_string()))?;
        Ok(Self {
            docker,
            listing: None,
        })
    }

    /// The same engine, making and seeing only `listing`'s containers.
    #[must_use]
    pub fn of_listing(self, listing: &str) -> Self {
        Self {
            listing: Some(listing.to_owned()),
            ..self
        }
    }

    /// The booking's container, created and started when it is not there yet (its image
    /// pulled when the machine lacks it); its name.
    pub async fn ensure(&self, spec: &ContainerSpec) -> Result<String, ContainerError> {
        let name = name_of(&spec.booking_id);
        if let Some(existing) = self
            .containers()
            .await?
            .into_iter()
            .find(|c| c.name == name)
        {
            if existing.state != "running" {
                self.docker.start_container(&name, None).await?;
            }
            return Ok(name);
        }
        self.image(&spec.image).await?;
        let mut labels = HashMap::from([
            (BOOKING_LABEL.to_owned(), spec.booking_id.clone()),
            (GPUS_LABEL.to_owned(), spec.gpus.join(",")),
        ]);
        if let Some(listing) = &self.listing {
            labels.insert(LISTING_LABEL.to_owned(), listing.clone());
        }
        let host = HostConfig {
            device_requests: (!spec.gpus.is_empty()).then(|| {
                vec![DeviceRequest {
                    driver: Some("nvidia".to_owned()),
                    device_ids: Some(spec.gpus.clone()),
                    capabilities: Some(vec![vec!["gpu".to_owned()]]),
                    ..Default::default()
                }]
            }),
            nano_cpus: Some(spec.nano_cpus),
            memory: Some(spec.memory_bytes),
            // No swap beyond the memory limit.
            memory_swap: Some(spec.memory_bytes),
            pids_limit: Some(4096),
            privileged: Some(false),
            cap_drop: Some(vec!["ALL".to_owned()]),
            security_opt: Some(vec!["no-new-privileges".to_owned()]),
            readonly_rootfs: Some(!spec.writable_root),
            tmpfs: Some(HashMap::from([(
                "/tmp".to_owned(),
                "rw,nosuid,nodev,size=1g".to_owned(),
            )])),
            network_mode: Some(spec.network.clone()),
            mounts: Some(vec![Mount {
                typ: Some(MountType::VOLUME),
                source: Some(name.clone()),
                target: Some(WORKSPACE.to_owned()),
                read_only: Some(false),
                ..Default::default()
            }]),
            init: Some(true),
            ..Default::default()
        };
        let body = ContainerCreateBody {
            image: Some(spec.image.clone()),
            cmd: spec.command.clone(),
            env: Some(spec.env.iter().map(|(k, v)| format!("{k}={v}")).collect()),
            labels: Some(labels),
            working_dir: Some(WORKSPACE.to_owned()),
            host_config: Some(host),
            ..Default::default()
        };
        let options = CreateContainerOptions {
            name: Some(name.clone()),
            ..Default::default()
        };
        self.docker.create_container(Some(options), body).await?;
        self.docker.start_container(&name, None).await?;
        Ok(name)
    }

    /// The image, pulled when this machine lacks it.
    async fn image(&self, image: &str) -> Result<(), ContainerError> {
        if self.docker.inspect_image(image).await.is_ok() {
            return Ok(());
        }
        let options = bollard::query_parameters::CreateImageOptions {
            from_image: Some(image.to_owned()),
            ..Default::default()
        };
        let mut pulling = self.docker.create_image(Some(options), None, None);
        while let Some(progress) = pulling.next().await {
            progress.map_err(|e| ContainerError::Image {
                image: image.to_owned(),
                said: e.to_string(),
            })?;
        }
        Ok(())
    }

    /// Every booking container on this machine (labelled by an agent; of its listing when it
    /// has one), running or not.
    pub async fn containers(&self) -> Result<Vec<BookingContainer>, ContainerError> {
        let mut labels = vec![BOOKING_LABEL.to_owned()];
        if let Some(listing) = &self.listing {
            labels.push(format!("{LISTING_LABEL}={listing}"));
        }
        let options = ListContainersOptions {
            all: true,
            filters: Some(HashMap::from([("label".to_owned(), labels)])),
            ..Default::default()
        };
        Ok(self
            .docker
            .list_containers(Some(options))
            .await?
            .into_iter()
            .filter_map(|c| {
                let labels = c.labels.unwrap_or_default();
                let booking_id = labels.get(BOOKING_LABEL)?.clone();
                let name = name_of(&booking_id);
                // A container named otherwise is not one an agent made.
                c.names?
                    .iter()
                    .any(|n| n.trim_start_matches('/') == name)
                    .then(|| BookingContainer {
                        booking_id,
                        name,
                        state: c.state.map(|s| s.to_string()).unwrap_or_default(),
                        gpus: labels
                            .get(GPUS_LABEL)
                            .map(|g| {
                                g.split(',')
                                    .filter(|s| !s.is_empty())
                                    .map(str::to_owned)
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
            })
            .collect())
    }

    /// Stops the booking's container (its processes get [`STOP_GRACE_SECS`]), removes it and
    /// its volume. Nothing there is not an error.
    pub async fn remove(&self, booking_id: &str) -> Result<(), ContainerError> {
        let name = name_of(booking_id);
        let options = StopContainerOptions {
            t: Some(STOP_GRACE_SECS),
            ..Default::default()
        };
        ignore_missing(self.docker.stop_container(&name, Some(options)).await)?;
        let options = RemoveContainerOptions {
            force: true,
            v: true,
            ..Default::default()
        };
        ignore_missing(self.docker.remove_container(&name, Some(options)).await)?;
        let options = RemoveVolumeOptions { force: true };
        ignore_missing(self.docker.remove_volume(&name, Some(options)).await)
    }

    /// The last `tail` lines the booking's container wrote (standard output and error), at
    /// most [`MAX_LOG_BYTES`].
    pub async fn logs(&self, booking_id: &str, tail: u32) -> Result<String, ContainerError> {
        // Bounded here too: the server asks at most 5000 lines.
        let tail = tail.min(5000);
        let options = LogsOptions {
            stdout: true,
            stderr: true,
            tail: tail.to_string(),
            ..Default::default()
        };
        let mut stream = self.docker.logs(&name_of(booking_id), Some(options));
        let mut text = Vec::new();
        while let Some(chunk) = stream.next().await {
            text.extend_from_slice(&chunk?.into_bytes());
            if text.len() >= MAX_LOG_BYTES {
                text.truncate(MAX_LOG_BYTES);
                break;
            }
        }
        Ok(String::from_utf8_lossy(&text).into_owned())
    }

    /// Runs `command` in the booking's running container as its own user; its exit code and
    /// what it wrote (at most [`MAX_LOG_BYTES`]).
    pub async fn exec(
        &self,
        booking_id: &str,
        command: &[&str],
    ) -> Result<(i64, String), ContainerError> {
        let created = self
            .docker
            .create_exec(
                &name_of(booking_id),
                bollard::exec::CreateExecOptions {
                    cmd: Some(command.iter().map(|c| (*c).to_owned()).collect()),
                    attach_stdout: Some(true),
                    attach_stderr: Some(true),
                    ..Default::default()
                },
            )
            .await?;
        let mut text = Vec::new();
        if let bollard::exec::StartExecResults::Attached { mut output, .. } =
            self.docker.start_exec(&created.id, None).await?
        {
            while let Some(chunk) = output.next().await {
                text.extend_from_slice(&chunk?.into_bytes());
                text.truncate(MAX_LOG_BYTES);
            }
        }
        let code = self
            .docker
            .inspect_exec(&created.id)
            .await?
            .exit_code
            .unwrap_or(-1);
        Ok((code, String::from_utf8_lossy(&text).into_owned()))
    }

    /// Starts `argv` in the booking's running container (in `/workspace`; on a terminal of
    /// `rows` × `cols` when `tty`, with `env`), attached both ways.
    pub async fn attach(
        &self,
        booking_id: &str,
        argv: Vec<String>,
        (tty, env, (rows, cols)): (bool, Option<String>, (u16, u16)),
    ) -> Result<Attached, ContainerError> {
        let created = self
            .docker
            .create_exec(
                &name_of(booking_id),
                bollard::exec::CreateExecOptions {
                    cmd: Some(argv),
                    attach_stdin: Some(true),
                    attach_stdout: Some(true),
                    attach_stderr: Some(true),
                    tty: Some(tty),
                    env: env.map(|e| vec![e]),
                    working_dir: Some(WORKSPACE.to_owned()),
                    ..Default::default()
                },
            )
            .await?;
        let started = self
            .docker
            .start_exec(
                &created.id,
                Some(bollard::exec::StartExecOptions {
                    detach: false,
                    tty,
                    output_capacity: None,
                }),
            )
            .await?;
        let bollard::exec::StartExecResults::Attached { output, input } = started else {
            return Err(ContainerError::Engine(
                "the command was not attached".into(),
            ));
        };
        if tty {
            // Best effort: a terminal of the wrong size still works.
            let _ = self.resize(&created.id, rows, cols).await;
        }
        Ok(Attached {
            exec_id: created.id,
            output,
            input,
        })
    }

    /// Gives a login's terminal its new size.
    pub async fn resize(&self, exec_id: &str, rows: u16, cols: u16) -> Result<(), ContainerError> {
        if rows == 0 || cols == 0 {
            return Ok(());
        }
        self.docker
            .resize_exec(
                exec_id,
                bollard::exec::ResizeExecOptions {
                    height: rows,
                    width: cols,
                },
            )
            .await?;
        Ok(())
    }

    /// A finished command's exit code.
    pub async fn exit_code(&self, exec_id: &str) -> Result<i64, ContainerError> {
        Ok(self
            .docker
            .inspect_exec(exec_id)
            .await?
            .exit_code
            .unwrap_or(-1))
    }

    /// What the engine says of the booking's container (its `HostConfig`, `Config`, state),
    /// as JSON.
    pub async fn inspect(&self, booking_id: &str) -> Result<serde_json::Value, ContainerError> {
        let found = self
            .docker
            .inspect_container(&name_of(booking_id), None)
            .await?;
        serde_json::to_value(found).map_err(|e| ContainerError::Engine(e.to_string()))
    }
}

/// `Ok` for a container or volume that is already gone (404) or already stopped (304).
fn ignore_missing(result: Result<(), bollard::errors::Error>) -> Result<(), ContainerError> {
    match result {
        Err(bollard::errors::Error::DockerResponseServerError { status_code, .. })
            if status_code == 404 || status_code == 304 =>
        {
            Ok(())
        }
        other => other.map_err(ContainerError::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpus_are_assigned_so_that_no_two_containers_share_one() {
        let all: Vec<String> = (0..4).map(|i| format!("GPU-{i}")).collect();
        let first = assign_gpus(&all, &[], 2).unwrap();
        assert_eq!(first, ["GPU-0", "GPU-1"]);
        let second = assign_gpus(&all, std::slice::from_ref(&first), 2).unwrap();
        assert_eq!(second, ["GPU-2", "GPU-3"]);
        assert_eq!(assign_gpus(&all, &[first.clone(), second], 1), None);
        assert_eq!(
            assign_gpus(&all, &[vec!["GPU-1".into()]], 3).unwrap(),
            ["GPU-0", "GPU-2", "GPU-3"]
        );
        assert_eq!(
            name_of("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"),
            "gm-0c1d2e3f4a5b"
        );
    }
}
