//! The agent's containers per booking against a real dockerd (Debian's `docker.io`, 20.10),
//! which `scripts/check` starts on a private socket (`GPUMARKET_TEST_DOCKER_HOST`) with no
//! bridge, and with a stand-in `nvidia-container-runtime-hook` on its `PATH` — these machines
//! have no GPU — so that dockerd registers its NVIDIA device driver and a container whose
//! `DeviceRequests` name GPUs starts (the hook does nothing; dockerd itself hands the UUIDs to
//! the container as `NVIDIA_VISIBLE_DEVICES`, which the real hook reads). No registry is
//! reachable: the image is `docker import`ed from a root file system of `busybox-static`.

use std::path::Path;
use std::process::Command;

use agent::containers::{ContainerSpec, Runtime, assign_gpus, name_of};
use serde_json::Value;

/// The dockerd `scripts/check` started, or `None` (the test says it was skipped).
fn docker_host() -> Option<String> {
    let host = std::env::var("GPUMARKET_TEST_DOCKER_HOST").ok();
    if host.is_none() {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "skipped: no GPUMARKET_TEST_DOCKER_HOST (scripts/check starts dockerd and sets it)"
            );
        }
    }
    host
}

/// An image of busybox's applets, imported into the dockerd at `host` as `tag`.
fn import_busybox(host: &str, tag: &str) {
    let root = tempfile::tempdir().unwrap();
    let bin = root.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy("/bin/busybox", bin.join("busybox")).expect("busybox-static is installed");
    for applet in [
        "sh", "ls", "cat", "echo", "sleep", "ps", "id", "env", "touch",
    ] {
        std::os::unix::fs::symlink("busybox", bin.join(applet)).unwrap();
    }
    for dir in ["etc", "tmp", "proc", "sys", "dev", "workspace"] {
        std::fs::create_dir(root.path().join(dir)).unwrap();
    }
    let tar = Command::new("tar")
        .arg("-C")
        .arg(root.path())
        .args(["-c", "."])
        .output()
        .unwrap();
    assert!(tar.status.success());
    let mut import = Command::new("docker")
        .args(["-H", host, "import", "-", tag])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    import.stdin.take().unwrap().write_all(&tar.stdout).unwrap();
    assert!(import.wait().unwrap().success(), "docker import failed");
}

fn spec(booking: &str, image: &str, gpus: Vec<String>, marker: &str) -> ContainerSpec {
    ContainerSpec {
        booking_id: booking.to_owned(),
        image: image.to_owned(),
        command: Some(vec![
            "sh".into(),
            "-c".into(),
            format!(
                "echo gpus=$NVIDIA_VISIBLE_DEVICES; echo {marker} > /workspace/{marker}; exec sleep 600"
            ),
        ]),
        env: vec![("GM_MARKER".into(), marker.to_owned())],
        gpus,
        nano_cpus: 500_000_000,
        memory_bytes: 256 * 1024 * 1024,
        writable_root: false,
        network: "none".into(),
    }
}

/// Until `check` holds (every 200 ms, at most 10 s).
async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !check().await {
        assert!(std::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// Two bookings of two GPUs each on a four-GPU machine: each container holds exactly its
/// GPUs (by inspection, and as the runtime hands them in), its CPU and memory limits, no
/// privilege, a read-only root, no network and a volume of its own; neither sees the other's
/// files or processes; removing one takes its container and volume and leaves the other.
#[tokio::test]
async fn each_booking_s_container_holds_exactly_its_gpus_and_nothing_of_another() {
    let Some(host) = docker_host() else {
        return;
    };
    assert!(Path::new("/bin/busybox").exists(), "busybox-static");
    let tag = format!("gm-test-{}:busybox", std::process::id());
    import_busybox(&host, &tag);
    let runtime = Runtime::connect(&host).await.unwrap();
    let machine: Vec<String> = (0..4)
        .map(|i| format!("GPU-00000000-0000-0000-0000-00000000000{i}"))
        .collect();
    let a = format!("0193a1b2-c3d4-7e5f-8a9b-{:012x}", std::process::id());
    let b = format!("0193a1b2-c3d4-7e5f-8a9b-{:012x}", std::process::id() + 1);
    let a_gpus = assign_gpus(&machine, &[], 2).unwrap();
    let b_gpus = assign_gpus(&machine, std::slice::from_ref(&a_gpus), 2).unwrap();
    assert_eq!(b_gpus, machine[2..]);
    runtime
        .ensure(&spec(&a, &tag, a_gpus.clone(), "alpha"))
        .await
        .unwrap();
    runtime
        .ensure(&spec(&b, &tag, b_gpus.clone(), "bravo"))
        .await
        .unwrap();

    // As created: exactly its GPUs, its limits, nothing more.
    let inspected: Value = runtime.inspect(&a).await.unwrap();
    let host_config = &inspected["HostConfig"];
    assert_eq!(
        host_config["DeviceRequests"][0]["DeviceIDs"],
        serde_json::json!(a_gpus),
        "{host_config}"
    );
    assert_eq!(
        host_config["DeviceRequests"][0]["Capabilities"],
        serde_json::json!([["gpu"]])
    );
    assert_eq!(host_config["NanoCpus"], 500_000_000);
    assert_eq!(host_config["Memory"], 256 * 1024 * 1024);
    assert_eq!(host_config["Privileged"], false);
    assert_eq!(host_config["ReadonlyRootfs"], true);
    assert_eq!(host_config["CapDrop"], serde_json::json!(["ALL"]));
    assert_eq!(
        host_config["SecurityOpt"],
        serde_json::json!(["no-new-privileges"])
    );
    assert_eq!(host_config["NetworkMode"], "none");
    assert_eq!(host_config["Mounts"][0]["Type"], "volume");
    assert_eq!(host_config["Mounts"][0]["Source"], name_of(&a));
    assert_eq!(host_config["Mounts"][0]["Target"], "/workspace");
    assert_eq!(inspected["State"]["Running"], true, "{inspected}");

    // Running: the runtime handed it exactly its GPUs; its command wrote to its volume.
    eventually("container a never wrote its GPUs", async || {
        runtime
            .logs(&a, 50)
            .await
            .unwrap()
            .contains(&format!("gpus={}", a_gpus.join(",")))
    })
    .await;
    let logs_b = runtime.logs(&b, 50).await.unwrap();
    assert!(!logs_b.contains(&a_gpus[0]), "{logs_b}");
    let listed = runtime.containers().await.unwrap();
    let mine: Vec<_> = listed
        .iter()
        .filter(|c| c.booking_id == a || c.booking_id == b)
        .map(|c| (c.booking_id.clone(), c.gpus.clone(), c.state.clone()))
        .collect();
    assert_eq!(mine.len(), 2, "{listed:?}");
    assert!(mine.contains(&(a.clone(), a_gpus.clone(), "running".into())));

    // Isolated: its own files, its own processes; the root is not writable, the workspace is.
    eventually("container a's workspace never held its file", async || {
        runtime.exec(&a, &["ls", "/workspace"]).await.unwrap().1 == "alpha\n"
    })
    .await;
    let (_, files_b) = runtime.exec(&b, &["ls", "/workspace"]).await.unwrap();
    assert!(!files_b.contains("alpha"), "{files_b}");
    let (_, processes) = runtime.exec(&a, &["ps"]).await.unwrap();
    assert!(!processes.contains("bravo"), "{processes}");
    let (code, _) = runtime.exec(&a, &["touch", "/etc/written"]).await.unwrap();
    assert_ne!(code, 0, "the root is read-only");
    let (code, _) = runtime
        .exec(&a, &["touch", "/workspace/written"])
        .await
        .unwrap();
    assert_eq!(code, 0);
    let (_, user) = runtime
        .exec(&a, &["cat", "/proc/self/status"])
        .await
        .unwrap();
    assert!(
        user.lines()
            .any(|l| l.starts_with("CapEff:") && l.ends_with("0000000000000000")),
        "no capability: {user}"
    );

    // Removed: the container and its volume gone, the other untouched.
    runtime.remove(&a).await.unwrap();
    assert!(runtime.inspect(&a).await.is_err());
    let volumes = Command::new("docker")
        .args(["-H", &host, "volume", "ls", "-q"])
        .output()
        .unwrap();
    let volumes = String::from_utf8_lossy(&volumes.stdout);
    assert!(!volumes.contains(&name_of(&a)), "{volumes}");
    assert!(volumes.contains(&name_of(&b)), "{volumes}");
    runtime.remove(&a).await.unwrap();
    runtime.remove(&b).await.unwrap();
    assert!(
        runtime
            .containers()
            .await
            .unwrap()
            .iter()
            .all(|c| c.booking_id != b)
    );
    let _ = Command::new("docker")
        .args(["-H", &host, "rmi", &tag])
        .output();
}
