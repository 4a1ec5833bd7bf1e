//! The GPUs through NVML, the driver's own library (`libnvidia-ml.so.1`, loaded at run time
//! through `nvml-wrapper`: a machine without the driver simply has no NVML, and the agent
//! asks `nvidia-smi` instead). The values are the ones `nvidia-smi --query-gpu` prints for the
//! same fields, and are checked by the same rules before they are believed; so is each GPU's
//! health (ECC errors, throttle reasons, persistence mode, compute processes).

use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::{EccCounter, MemoryError};
use nvml_wrapper::error::NvmlError;

use crate::smi::{FactsError, Gpu, GpuHealth, MAX_GPUS, checked, throttle_reasons};

/// How long NVML may take to answer for every GPU.
const NVML_TIMEOUT: Duration = Duration::from_secs(10);

/// The GPUs the NVML library at `lib` reports (a bare name is found by the dynamic loader).
pub async fn gpus(lib: &std::ffi::OsStr) -> Result<Vec<Gpu>, FactsError> {
    with_nvml(lib, read).await
}

/// Each GPU's health as the NVML library at `lib` reports it.
pub async fn health(lib: &std::ffi::OsStr) -> Result<Vec<GpuHealth>, FactsError> {
    with_nvml(lib, read_health).await
}

/// Whether a call into NVML is under way. A driver that hangs holds its thread for good: a
/// call that timed out is never joined by another, so a hung driver holds one thread, not
/// one a reading.
static IN_NVML: AtomicBool = AtomicBool::new(false);

/// `read` of NVML loaded from `lib`, on a blocking thread, within [`NVML_TIMEOUT`]; refused
/// while an earlier call has not returned.
async fn with_nvml<T: Send + 'static>(
    lib: &std::ffi::OsStr,
    read: fn(&Nvml) -> Result<T, Error>,
) -> Result<T, FactsError> {
    let name = lib.to_string_lossy().into_owned();
    if IN_NVML.swap(true, Ordering::AcqRel) {
        return Err(FactsError::Nvml {
            library: name,
            said: "an earlier call into NVML has not returned (a hung driver?)".to_owned(),
        });
    }
    let lib: OsString = lib.to_owned();
    let reading = tokio::task::spawn_blocking(move || {
        /// Says the call returned, however it returned.
        struct Returned;
        impl Drop for Returned {
            fn drop(&mut self) {
                IN_NVML.store(false, Ordering::Release);
            }
        }
        let _returned = Returned;
        let nvml = Nvml::builder().lib_path(&lib).init()?;
        read(&nvml)
    });
    match tokio::time::timeout(NVML_TIMEOUT, reading).await {
        Err(_) => Err(FactsError::TimedOut {
            tool: name,
            secs: NVML_TIMEOUT.as_secs(),
        }),
        Ok(Err(e)) => Err(FactsError::Nvml {
            library: name,
            said: e.to_string(),
        }),
        Ok(Ok(Err(e))) => Err(match e {
            Error::Load => FactsError::Missing { tool: name },
            Error::Nvml(said) => FactsError::Nvml {
                library: name,
                said,
            },
            Error::Odd(why) => FactsError::Unparseable { tool: name, why },
        }),
        Ok(Ok(Ok(answer))) => Ok(answer),
    }
}

enum Error {
    /// The library could not be loaded (no driver here).
    Load,
    /// NVML answered an error.
    Nvml(String),
    /// NVML answered something the checks refuse.
    Odd(String),
}

impl From<NvmlError> for Error {
    fn from(e: NvmlError) -> Self {
        match e {
            NvmlError::LibloadingError(_) => Error::Load,
            e => Error::Nvml(e.to_string()),
        }
    }
}

/// A value a GPU may not give (`[N/A]` in `nvidia-smi`'s words) is `None`; any other error is one.
fn optional<T>(value: Result<T, NvmlError>) -> Result<Option<T>, Error> {
    match value {
        Ok(v) => Ok(Some(v)),
        Err(NvmlError::NotSupported | NvmlError::NoPermission) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// How many GPUs NVML lists, held to [`MAX_GPUS`].
fn count(nvml: &Nvml) -> Result<u32, Error> {
    let count = nvml.device_count()?;
    if count as usize > MAX_GPUS {
        return Err(Error::Odd(format!("more than {MAX_GPUS} GPUs")));
    }
    if count == 0 {
        return Err(Error::Odd("no GPU listed".to_owned()));
    }
    Ok(count)
}

fn read_health(nvml: &Nvml) -> Result<Vec<GpuHealth>, Error> {
    let mut health = Vec::new();
    for index in 0..count(nvml)? {
        let device = nvml.device_by_index(index)?;
        let uuid = device.uuid()?;
        if uuid.is_empty() || uuid.len() > 64 || uuid.chars().any(char::is_control) {
            return Err(Error::Odd("a GPU's uuid is not one".to_owned()));
        }
        health.push(GpuHealth {
            uuid,
            ecc_errors_uncorrected: optional(
                device.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile),
            )?,
            throttle_reasons: optional(device.current_throttle_reasons())?
                .map_or_else(Vec::new, |r| throttle_reasons(r.bits())),
            persistence_mode: optional(device.is_in_persistent_mode())?,
            compute_processes: optional(device.running_compute_processes_count())?,
        });
    }
    Ok(health)
}

fn read(nvml: &Nvml) -> Result<Vec<Gpu>, Error> {
    let count = count(nvml)?;
    let driver_version = nvml.sys_driver_version()?;
    let mut gpus = Vec::new();
    for index in 0..count {
        let device = nvml.device_by_index(index)?;
        let gpu = Gpu {
            index,
            uuid: device.uuid()?,
            name: device.name()?,
            // Bytes; `nvidia-smi`'s `memory.total` is the same total in MiB.
            memory_total_mib: device.memory_info()?.total / (1024 * 1024),
            driver_version: driver_version.clone(),
            pci_bus_id: device.pci_info()?.bus_id,
            // Milliwatts; `nvidia-smi`'s `power.limit` is this limit in W.
            power_limit_w: optional(device.power_management_limit())?
                .map(|mw| f64::from(mw) / 1000.0),
            compute_cap: optional(device.cuda_compute_capability())?
                .map(|c| format!("{}.{}", c.major, c.minor)),
        };
        gpus.push(checked(gpu).map_err(Error::Odd)?);
    }
    Ok(gpus)
}
