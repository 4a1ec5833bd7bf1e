//! What the agent runs for bookings beside their accounts: each container booking's container
//! (started when its access begins, removed when it ends, on GPUs no other container holds),
//! what the heartbeat says of them, and the logs renters ask for.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::desired::{Desired, DesiredBooking};

/// What the heartbeat says of a booking's container.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ContainerBeat {
    booking_id: String,
    gpus: Vec<String>,
    state: String,
}

/// The containers as last listed, shared by the reconciler and the heartbeat (which it
/// wakes when they change, so the server learns of a container at once).
#[derive(Debug, Clone, Default)]
pub(crate) struct LastContainers {
    pub(crate) last: Arc<Mutex<Option<Vec<ContainerBeat>>>>,
    pub(crate) changed: Arc<tokio::sync::Notify>,
}

/// The machine's booking containers: the container engine (connected on first need), the GPUs
/// they are given, and what the heartbeat says of them.
#[derive(Debug, Default)]
pub(crate) struct BookedContainers {
    /// dockerd's socket.
    docker_host: String,
    /// The listing whose containers these are.
    listing: String,
    /// The container engine, once a booking needed it.
    runtime: Option<crate::containers::Runtime>,
    /// The machine's GPUs by UUID, as its facts last read them.
    pub(crate) gpus: Vec<String>,
    /// What the heartbeat says of the containers, shared with its task.
    pub(crate) beats: LastContainers,
}

impl BookedContainers {
    /// `listing`'s containers, run through dockerd at `docker_host`.
    pub(crate) fn new(docker_host: String, listing: String) -> Self {
        Self {
            docker_host,
            listing,
            ..Default::default()
        }
    }

    /// The container engine, connected on first need (a failure is said and tried again at
    /// the next pass).
    async fn runtime(&mut self) -> Option<crate::containers::Runtime> {
        if self.runtime.is_none() {
            match crate::containers::Runtime::connect(&self.docker_host).await {
                Ok(runtime) => self.runtime = Some(runtime.of_listing(&self.listing)),
                Err(e) => tracing::error!(error = %e, "no container engine"),
            }
        }
        self.runtime.clone()
    }

    /// Brings the machine's booking containers to `desired` at the server's `now`: each
    /// booking with a container that gives access now runs one holding GPUs no other holds;
    /// one whose booking left the state or whose access ended is removed with its volume.
    pub(crate) async fn reconcile(&mut self, desired: &Desired, now: DateTime<Utc>) {
        let wanted: Vec<&DesiredBooking> = desired
            .bookings
            .iter()
            .filter(|b| b.container.is_some())
            .collect();
        if wanted.is_empty() && self.runtime.is_none() {
            return;
        }
        let Some(runtime) = self.runtime().await else {
            return;
        };
        let existing = match runtime.containers().await {
            Ok(existing) => existing,
            Err(e) => {
                tracing::error!(error = %e, "the booking containers could not be listed");
                return;
            }
        };
        let gives_access = |booking_id: &str| {
            wanted
                .iter()
                .any(|b| b.booking_id == booking_id && now >= b.starts_at && now < b.access_until)
        };
        let mut taken = Vec::new();
        for container in &existing {
            if gives_access(&container.booking_id) {
                taken.push(container.gpus.clone());
                continue;
            }
            match runtime.remove(&container.booking_id).await {
                Ok(()) => tracing::info!(booking = container.booking_id, "container removed"),
                Err(e) => {
                    tracing::error!(booking = container.booking_id, error = %e, "a container could not be removed")
                }
            }
        }
        for booking in &wanted {
            let running = existing.iter().any(|c| c.booking_id == booking.booking_id);
            if running || !gives_access(&booking.booking_id) {
                continue;
            }
            let Some(kept) = &booking.container else {
                continue;
            };
            let want = usize::try_from(booking.gpu_count).unwrap_or(usize::MAX);
            let Some(gpus) = crate::containers::assign_gpus(&self.gpus, &taken, want) else {
                tracing::error!(
                    booking = booking.booking_id,
                    "not enough free GPUs for its container"
                );
                continue;
            };
            let spec = crate::containers::ContainerSpec {
                booking_id: booking.booking_id.clone(),
                image: kept.ask.image.clone(),
                command: kept.ask.command.clone(),
                env: kept
                    .ask
                    .env
                    .iter()
                    .map(|v| (v.name.clone(), v.value.clone()))
                    .collect(),
                gpus: gpus.clone(),
                nano_cpus: kept.nano_cpus,
                memory_bytes: kept.memory_bytes,
                writable_root: kept.writable_root,
                network: "none".to_owned(),
            };
            match runtime.ensure(&spec).await {
                Ok(name) => {
                    tracing::info!(
                        booking = booking.booking_id,
                        container = name,
                        ?gpus,
                        "container started"
                    );
                    taken.push(gpus);
                }
                Err(e) => {
                    tracing::error!(booking = booking.booking_id, error = %e, "a container could not be started")
                }
            }
        }
        if let Ok(now_running) = runtime.containers().await {
            let beats = now_running
                .into_iter()
                .map(|c| ContainerBeat {
                    booking_id: c.booking_id,
                    gpus: c.gpus,
                    state: c.state,
                })
                .collect();
            let mut last = self.beats.last.lock().unwrap_or_else(|e| e.into_inner());
            if last.as_ref() != Some(&beats) {
                *last = Some(beats);
                self.beats.changed.notify_one();
            }
        }
    }

    /// Answers each logs request `desired` names that was not answered yet: what dockerd kept
    /// of the booking's container (or why nothing could be read), in a task of its own.
    pub(crate) async fn answer_logs(
        &mut self,
        desired: &Desired,
        (http, url, key): (&reqwest::Client, &str, &str),
        answered: &mut std::collections::HashSet<String>,
    ) {
        // Only requests still asked for are remembered.
        answered.retain(|id| desired.logs_wanted.iter().any(|w| &w.request_id == id));
        let fresh: Vec<_> = desired
            .logs_wanted
            .iter()
            .filter(|w| !answered.contains(&w.request_id))
            .cloned()
            .collect();
        if fresh.is_empty() {
            return;
        }
        let runtime = self.runtime().await;
        for wanted in fresh {
            answered.insert(wanted.request_id.clone());
            let (http, url, key, runtime) = (
                http.clone(),
                url.to_owned(),
                key.to_owned(),
                runtime.clone(),
            );
            tokio::spawn(async move {
                let text = match &runtime {
                    Some(runtime) => match runtime.logs(&wanted.booking_id, wanted.tail).await {
                        Ok(text) => text,
                        Err(e) => format!("the agent could not read the container's logs: {e}"),
                    },
                    None => "the agent reaches no container engine on this machine".to_owned(),
                };
                let body = serde_json::json!({"request_id": wanted.request_id,
                    "booking_id": wanted.booking_id, "text": text});
                match http.post(&url).bearer_auth(&key).json(&body).send().await {
                    Ok(answer) if answer.status().is_success() => {}
                    Ok(answer) => tracing::warn!(status = %answer.status(), "logs refused"),
                    Err(e) => tracing::warn!(error = %e, "logs not sent"),
                }
            });
        }
    }
}
