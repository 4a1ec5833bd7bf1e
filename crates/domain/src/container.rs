//! Containers per booking: what a listing offers (`access.containers`: the images it allows
//! and each GPU's share of CPU and memory) and what a booking asks (`container: {image,
//! command, env}`), checked before anything is stored — the agent runs them as root's
//! dockerd would, so nothing here may carry more than a name, a command line and plain
//! variables.

use serde::{Deserialize, Serialize};

use crate::ValidationError;

/// The most images a listing allows.
pub const MAX_IMAGES: usize = 32;
/// The longest image reference (Docker's own limit for a name is 255).
const MAX_IMAGE_LEN: usize = 255;
/// The most arguments of a command, and the longest one.
const MAX_ARGS: usize = 64;
const MAX_ARG_LEN: usize = 4096;
/// The most environment variables, and the longest value.
const MAX_ENV: usize = 64;
const MAX_VALUE_LEN: usize = 4096;

/// What a listing offers to bookings that ask for a container.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContainerAccess {
    /// The images a booking may run, by reference (`vllm/vllm-openai:v0.32.0`) or digest
    /// (`…@sha256:…`), matched exactly.
    pub images: Vec<String>,
    /// CPUs per booked GPU (0.1 to 256).
    pub max_cpus_per_gpu: f64,
    /// Memory per booked GPU, GiB (1 to 4096).
    pub max_memory_gb_per_gpu: f64,
    /// Whether the container's root file system may be written (default: read-only, with
    /// `/workspace` and `/tmp` writable).
    #[serde(default)]
    pub writable_root: bool,
}

// Its figures are checked finite (`check`), so equality is an equivalence.
impl Eq for ContainerAccess {}

/// What a booking asks to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookingContainer {
    pub image: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
}

/// A booking's container as kept: what it asked, and the limits its listing's offer gave it
/// when it was made (a later change of the offer does not move them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptContainer {
    pub ask: BookingContainer,
    pub nano_cpus: i64,
    pub memory_bytes: i64,
    pub writable_root: bool,
}

impl KeptContainer {
    /// Checks a kept container as a machine receives it: what the booking asked bounded as
    /// when it was made, and limits that are limits.
    pub fn check(&self) -> Result<(), ValidationError> {
        let own = ContainerAccess {
            images: vec![self.ask.image.clone()],
            max_cpus_per_gpu: 1.0,
            max_memory_gb_per_gpu: 1.0,
            writable_root: self.writable_root,
        };
        own.check()?;
        self.ask.check(Some(&own))?;
        if self.nano_cpus < 1 || self.memory_bytes < 1024 * 1024 {
            return Err(ValidationError::new(
                "container",
                "limits that are not limits",
            ));
        }
        Ok(())
    }

    /// `ask` on `gpus` GPUs of a listing offering `offered`.
    pub fn new(ask: BookingContainer, offered: &ContainerAccess, gpus: i32) -> Self {
        Self {
            ask,
            nano_cpus: offered.nano_cpus(gpus),
            memory_bytes: offered.memory_bytes(gpus),
            writable_root: offered.writable_root,
        }
    }
}

/// One environment variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvVar {
    pub name: String,
    pub value: String,
}

/// Whether `image` is an image reference: `[registry/]name[:tag][@digest]` of lower-case
/// letters, digits and `. _ - / : @`, starting with a letter or digit.
pub fn valid_image(image: &str) -> bool {
    !image.is_empty()
        && image.len() <= MAX_IMAGE_LEN
        && image.as_bytes()[0].is_ascii_alphanumeric()
        && image
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-/:@".contains(&b))
        && !image.contains("..")
        && !image.ends_with([':', '/', '@'])
}

fn printable(text: &str) -> bool {
    !text.chars().any(char::is_control)
}

impl ContainerAccess {
    /// Checks what a listing offers, naming the field (`access.containers.images` …).
    pub fn check(&self) -> Result<(), ValidationError> {
        if self.images.is_empty() || self.images.len() > MAX_IMAGES {
            return Err(ValidationError::new(
                "access.containers.images",
                format!("must name 1 to {MAX_IMAGES} images"),
            ));
        }
        if let Some(bad) = self.images.iter().find(|i| !valid_image(i)) {
            return Err(ValidationError::new(
                "access.containers.images",
                format!(
                    "{:?} is not an image reference (lower-case name[:tag][@digest])",
                    bad.chars().take(64).collect::<String>()
                ),
            ));
        }
        if !(self.max_cpus_per_gpu.is_finite() && (0.1..=256.0).contains(&self.max_cpus_per_gpu)) {
            return Err(ValidationError::new(
                "access.containers.max_cpus_per_gpu",
                "must be between 0.1 and 256",
            ));
        }
        if !(self.max_memory_gb_per_gpu.is_finite()
            && (1.0..=4096.0).contains(&self.max_memory_gb_per_gpu))
        {
            return Err(ValidationError::new(
                "access.containers.max_memory_gb_per_gpu",
                "must be between 1 and 4096 GiB",
            ));
        }
        Ok(())
    }

    /// A booking of `gpus` GPUs' CPU limit, in billionths of a CPU (Docker's `NanoCpus`).
    pub fn nano_cpus(&self, gpus: i32) -> i64 {
        (self.max_cpus_per_gpu * f64::from(gpus) * 1e9).round() as i64
    }

    /// A booking of `gpus` GPUs' memory limit, bytes.
    pub fn memory_bytes(&self, gpus: i32) -> i64 {
        (self.max_memory_gb_per_gpu * f64::from(gpus) * 1024.0 * 1024.0 * 1024.0).round() as i64
    }
}

impl BookingContainer {
    /// Checks what a booking asks against what the listing offers: an image it allows (422
    /// naming `container.image` otherwise), a bounded command and plain variables.
    pub fn check(&self, offered: Option<&ContainerAccess>) -> Result<(), ValidationError> {
        let Some(offered) = offered else {
            return Err(ValidationError::new(
                "container",
                "this listing offers no containers (its access.containers is not set)",
            ));
        };
        if !offered.images.contains(&self.image) {
            return Err(ValidationError::new(
                "container.image",
                "is not among the images the listing allows (access.containers.images)",
            ));
        }
        if let Some(command) = &self.command
            && (command.is_empty()
                || command.len() > MAX_ARGS
                || command
                    .iter()
                    .any(|a| a.len() > MAX_ARG_LEN || !printable(a)))
        {
            return Err(ValidationError::new(
                "container.command",
                format!(
                    "must be 1 to {MAX_ARGS} arguments of at most {MAX_ARG_LEN} printable characters"
                ),
            ));
        }
        if self.env.len() > MAX_ENV {
            return Err(ValidationError::new(
                "container.env",
                format!("at most {MAX_ENV} variables"),
            ));
        }
        for var in &self.env {
            let name_ok = var
                .name
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && var.name.len() <= 128
                && var
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !name_ok || var.name.starts_with("NVIDIA_") {
                return Err(ValidationError::new(
                    "container.env",
                    format!(
                        "{:?} is not a variable a booking may set (letters, digits and _; not NVIDIA_*)",
                        var.name.chars().take(64).collect::<String>()
                    ),
                ));
            }
            if var.value.len() > MAX_VALUE_LEN || !printable(&var.value) {
                return Err(ValidationError::new(
                    "container.env",
                    format!(
                        "{}'s value must be at most {MAX_VALUE_LEN} printable characters",
                        var.name
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered() -> ContainerAccess {
        ContainerAccess {
            images: vec![
                "vllm/vllm-openai:v0.32.0".into(),
                "ghcr.io/org/trainer@sha256:0123abcd".into(),
            ],
            max_cpus_per_gpu: 4.0,
            max_memory_gb_per_gpu: 32.0,
            writable_root: false,
        }
    }

    #[test]
    fn a_listing_offers_bounded_images_and_shares() {
        assert_eq!(offered().check(), Ok(()));
        assert_eq!(offered().nano_cpus(2), 8_000_000_000);
        assert_eq!(offered().memory_bytes(2), 64 * 1024 * 1024 * 1024);
        for (edit, field) in [
            (
                (|o: &mut ContainerAccess| o.images.clear()) as fn(&mut ContainerAccess),
                "access.containers.images",
            ),
            (
                |o| o.images.push("Vllm:Latest".into()),
                "access.containers.images",
            ),
            (
                |o| o.images.push("a;rm -rf /".into()),
                "access.containers.images",
            ),
            (
                |o| o.max_cpus_per_gpu = 0.0,
                "access.containers.max_cpus_per_gpu",
            ),
            (
                |o| o.max_memory_gb_per_gpu = f64::NAN,
                "access.containers.max_memory_gb_per_gpu",
            ),
        ] {
            let mut o = offered();
            edit(&mut o);
            assert_eq!(o.check().unwrap_err().field, field);
        }
    }

    #[test]
    fn a_booking_runs_only_an_allowed_image_with_plain_arguments() {
        let ask = |image: &str| BookingContainer {
            image: image.into(),
            command: Some(vec!["python".into(), "serve.py".into()]),
            env: vec![EnvVar {
                name: "HF_HOME".into(),
                value: "/workspace/hf".into(),
            }],
        };
        let o = offered();
        assert_eq!(ask("vllm/vllm-openai:v0.32.0").check(Some(&o)), Ok(()));
        assert_eq!(
            ask("ghcr.io/org/trainer@sha256:0123abcd").check(Some(&o)),
            Ok(())
        );
        let field = |c: BookingContainer, o: Option<&ContainerAccess>| {
            c.check(o).unwrap_err().field.to_owned()
        };
        assert_eq!(
            field(ask("vllm/vllm-openai:latest"), Some(&o)),
            "container.image"
        );
        assert_eq!(field(ask("vllm/vllm-openai:v0.32.0"), None), "container");
        let mut bad = ask("vllm/vllm-openai:v0.32.0");
        bad.command = Some(vec!["sh\n-c".into()]);
        assert_eq!(field(bad, Some(&o)), "container.command");
        let mut bad = ask("vllm/vllm-openai:v0.32.0");
        bad.env[0].name = "NVIDIA_VISIBLE_DEVICES".into();
        assert_eq!(field(bad, Some(&o)), "container.env");
        let mut bad = ask("vllm/vllm-openai:v0.32.0");
        bad.env[0].name = "1X".into();
        assert_eq!(field(bad, Some(&o)), "container.env");
    }
}
