//! What a listing offers to bookings that ask for a container, and what a booking asks to
//! run, as the API reads and shows them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A container a booking runs on its GPUs: an image the listing allows
/// (`access.containers.images`), an optional command and plain environment variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BookingContainerView {
    /// One of the listing's `access.containers.images`, exactly (422 `container.image`
    /// otherwise).
    pub image: String,
    /// The command and its arguments (1 to 64, each at most 4096 printable characters); the
    /// image's own when absent.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// At most 64 variables (names of letters, digits and `_`, not `NVIDIA_*`).
    #[serde(default)]
    pub env: Vec<EnvVarView>,
}

/// One environment variable of a booking's container.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvVarView {
    pub name: String,
    pub value: String,
}

impl From<BookingContainerView> for domain::container::BookingContainer {
    fn from(v: BookingContainerView) -> Self {
        Self {
            image: v.image,
            command: v.command,
            env: v
                .env
                .into_iter()
                .map(|e| domain::container::EnvVar {
                    name: e.name,
                    value: e.value,
                })
                .collect(),
        }
    }
}

impl From<domain::container::BookingContainer> for BookingContainerView {
    fn from(c: domain::container::BookingContainer) -> Self {
        Self {
            image: c.image,
            command: c.command,
            env: c
                .env
                .into_iter()
                .map(|e| EnvVarView {
                    name: e.name,
                    value: e.value,
                })
                .collect(),
        }
    }
}

/// What a listing offers to bookings that ask for a container (`container` on a booking).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContainerAccessView {
    /// The images a booking may run, by reference (`vllm/vllm-openai:v0.32.0`) or digest
    /// (`…@sha256:…`), matched exactly; 1 to 32 of lower-case `name[:tag][@digest]`.
    pub images: Vec<String>,
    /// CPUs per booked GPU (0.1 to 256): a booking's container gets its GPUs' share.
    pub max_cpus_per_gpu: f64,
    /// Memory per booked GPU, GiB (1 to 4096).
    pub max_memory_gb_per_gpu: f64,
    /// Whether the container's root file system may be written (default: read-only, with
    /// `/workspace` and `/tmp` writable).
    #[serde(default)]
    pub writable_root: bool,
}

impl From<ContainerAccessView> for domain::container::ContainerAccess {
    fn from(v: ContainerAccessView) -> Self {
        Self {
            images: v.images,
            max_cpus_per_gpu: v.max_cpus_per_gpu,
            max_memory_gb_per_gpu: v.max_memory_gb_per_gpu,
            writable_root: v.writable_root,
        }
    }
}

impl From<domain::container::ContainerAccess> for ContainerAccessView {
    fn from(c: domain::container::ContainerAccess) -> Self {
        Self {
            images: c.images,
            max_cpus_per_gpu: c.max_cpus_per_gpu,
            max_memory_gb_per_gpu: c.max_memory_gb_per_gpu,
            writable_root: c.writable_root,
        }
    }
}
