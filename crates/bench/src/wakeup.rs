//! While the harness measures, it asks the kernel to keep every CPU out of deep idle: the
//! power-management QoS request of `/dev/cpu_dma_latency` held at 0 µs (what `tuned`'s
//! latency-performance profile does). On a virtual machine an idle vCPU halts and the host
//! takes its time to run it again, so a timer due in 1 ms fires late — lateness the lag probe
//! would count against the client (`client_bound`) though the client was idle, not starved. On
//! a 2-vCPU VM a 1 ms sleep woke late by 1.85 ms at p99 without the request and 0.22 ms with
//! it. The request lasts while the file stays open: it ends with the run. Where it is not
//! permitted (not root, no such device) the run goes on as before, and the log says so.

use std::fs::File;
use std::io::Write;

const DEVICE: &str = "/dev/cpu_dma_latency";

/// The request, held until dropped.
#[derive(Debug)]
pub struct FastWakeups(Option<File>);

impl FastWakeups {
    /// Asks for no deep idle on any CPU; [`FastWakeups::held`] says whether the kernel took it.
    pub fn request() -> Self {
        let held = File::options()
            .write(true)
            .open(DEVICE)
            .and_then(|mut file| file.write_all(&0i32.to_ne_bytes()).map(|()| file));
        match held {
            Ok(file) => Self(Some(file)),
            Err(e) => {
                tracing::info!(
                    error = %e,
                    "CPUs may sleep deeply while measuring ({DEVICE} not writable): on a virtual machine, timers can fire late"
                );
                Self(None)
            }
        }
    }

    pub fn held(&self) -> bool {
        self.0.is_some()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn while_held_the_kernel_allows_no_wakeup_latency() {
        let request = FastWakeups::request();
        if !request.held() {
            // Unprivileged: the device refuses writers (or does not exist); nothing was held.
            let writable = File::options().write(true).open(DEVICE);
            assert!(
                writable.is_err(),
                "{DEVICE} opened, but the request was not held"
            );
            return;
        }
        let mut current = [0u8; 4];
        File::open(DEVICE)
            .and_then(|mut f| f.read_exact(&mut current))
            .unwrap();
        assert_eq!(
            i32::from_ne_bytes(current),
            0,
            "the latency the kernel allows now"
        );
    }
}
