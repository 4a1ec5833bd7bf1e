//! The agent's containers per booking against a real dockerd (Debian's `docker.io`, 20.10),
//! which `scripts/check` starts on a private socket (`TEST_DOCKER_HOST`) with no
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
    let host = std::env::var("TEST_DOCKER_HOST").ok();
    if host.is_none() {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: no TEST_DOCKER_HOST (scripts/check starts dockerd and sets it)");
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
        "sh", "ls", "cat", "echo", "sleep", "ps", "id", "env", "touch", "tty", "tr", "grep",
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

/// The provider's machine: sshd on `sshd_port` and the agent for `listing` (its key in
/// `key_file`) on the test's dockerd at `host`, once the agent reported it (a booking's SSH
/// access names an account only on a machine with an agent; `provider` reads it).
async fn docker_machine(
    root: &Path,
    (sshd_port, host): (u16, &str),
    (base, listing): (&str, &str),
    (key_file, provider): (&Path, &str),
) -> crate::machine::Machine {
    let machine = crate::machine::Machine::with_sshd(
        root,
        sshd_port,
        (base, listing),
        key_file,
        &["--docker-host", host],
    );
    let agent_url = format!("{base}/v1/listings/{listing}/agent");
    let client = crate::http();
    eventually("the machine never reported", async || {
        let answer = client.get(&agent_url).bearer_auth(provider).send().await;
        answer.is_ok_and(|a| a.status() == 200)
    })
    .await;
    machine
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

/// The whole life of a booking's container: a listing offers containers of one image; a
/// booking asking another is refused (422 naming `container.image`); one asking the offered
/// image gets, from the machine's agent, a container holding exactly the machine's GPU with
/// the listing's share of CPU and memory; its renter enters it over the machine's real sshd
/// (`gpumarket ssh`, with and without a terminal) and nobody else does; cancelled, the login
/// is refused and its container and volume are gone within 10 s.
#[tokio::test]
async fn the_agent_runs_a_booking_s_container_and_its_renter_enters_it_over_ssh() {
    use crate::agent::{agent_key, fake_nvidia_smi};
    use crate::machine::{SSH_OPTIONS, gpumarket_ssh, key_pair, machine_log, ssh, sshd_runs_here};
    use crate::{Demo, SHORT_WINDOWS, free_port, http, send_json};
    use serde_json::json;
    let Some(host) = docker_host() else {
        return;
    };
    if !sshd_runs_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tag = format!("gm-e2e-{}:busybox", std::process::id());
    import_busybox(&host, &tag);
    let runtime = Runtime::connect(&host).await.unwrap();
    let demo = Demo::start_with(root, SHORT_WINDOWS).await;
    let api = format!("{}/v1", demo.base);
    let listing = demo.listing_url.rsplit('/').next().unwrap().to_owned();
    let client = http();
    let (provider, key_file) = agent_key(&demo, root).await;
    let sshd_port = free_port();
    let offered = client
        .patch(&demo.listing_url)
        .bearer_auth(&provider)
        .json(
            &json!({"access": {"ssh": {"host": "127.0.0.1", "port": sshd_port, "user": "ubuntu"},
                               "containers": {"images": [tag], "max_cpus_per_gpu": 1.5,
                                              "max_memory_gb_per_gpu": 1}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(offered.status(), 200, "{:?}", offered.text().await);
    let listed: Value = send_json(client.get(&demo.listing_url)).await;
    assert_eq!(
        listed["access"]["containers"]["images"],
        json!([tag]),
        "{listed}"
    );

    // The machine: an RTX 3060 as claimed, sshd, and the test's dockerd.
    let bin = root.join("bin");
    std::fs::create_dir(&bin).unwrap();
    fake_nvidia_smi(&bin, "rtx3060.csv", 0);
    for name in ["renter", "stranger"] {
        key_pair(root, name);
    }
    let _machine = docker_machine(
        root,
        (sshd_port, &host),
        (&demo.base, &listing),
        (&key_file, &provider),
    )
    .await;
    let log = || machine_log(root);
    let agent_url = format!("{api}/listings/{listing}/agent");

    let renter: Value = send_json(client.post(format!("{api}/auth/register")).json(
        &json!({"email": "renter@example.com", "password": "a long renter password", "name": "R"}),
    ))
    .await;
    let renter = renter["access_token"].as_str().unwrap().to_owned();
    let added = client
        .post(format!("{api}/me/ssh-keys"))
        .bearer_auth(&renter)
        .json(&json!({"name": "laptop", "public_key": std::fs::read_to_string(root.join("renter.pub")).unwrap()}))
        .send()
        .await
        .unwrap();
    assert_eq!(added.status(), 201, "{:?}", added.text().await);
    let starts = chrono::Utc::now() + chrono::Duration::seconds(2);
    let book = |image: &str, key: &str| {
        client
            .post(format!("{api}/bookings"))
            .bearer_auth(&renter)
            .header("Idempotency-Key", key)
            .json(&json!({
                "listing_id": listing, "gpu_count": 1,
                "starts_at": starts, "ends_at": starts + chrono::Duration::hours(1),
                "container": {"image": image, "command": ["sh", "-c", "echo ready; exec sleep 600"],
                              "env": [{"name": "GM_ROLE", "value": "renter"}]},
            }))
            .send()
    };
    let refused: Value = book("busybox:latest", "refused")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        refused["errors"][0]["field"], "container.image",
        "{refused}"
    );
    let booked = book(&tag, "container").await.unwrap();
    assert_eq!(booked.status(), 201, "{:?}", booked.text().await);
    let booking: Value = booked.json().await.unwrap();
    let booking_id = booking["id"].as_str().unwrap().to_owned();
    assert_eq!(booking["container"]["image"], tag.as_str(), "{booking}");
    // The container is entered through the machine's SSH as the booking's entry account; the
    // engine's own address (the machine's) is not handed out.
    let access: Value = send_json(
        client
            .get(format!("{api}/bookings/{booking_id}/access"))
            .bearer_auth(&renter),
    )
    .await;
    let account = format!("gm-{}", &booking_id.replace('-', "")[20..]);
    assert_eq!(access["ssh"]["user"], account.as_str(), "{access}");
    assert_eq!(access["ssh"]["port"], sshd_port, "{access}");
    assert!(access["https_url"].is_null(), "{access}");

    // At its start the agent runs it on the machine's one GPU, with the listing's share.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let running = runtime.containers().await.unwrap();
        if running
            .iter()
            .any(|c| c.booking_id == booking_id && c.state == "running")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no container for the booking\n{}",
            log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    let inspected = runtime.inspect(&booking_id).await.unwrap();
    let host_config = &inspected["HostConfig"];
    assert_eq!(
        host_config["DeviceRequests"][0]["DeviceIDs"],
        json!(["GPU-00000000-0000-0000-0000-000000003060"]),
        "{host_config}"
    );
    assert_eq!(host_config["NanoCpus"], 1_500_000_000);
    assert_eq!(host_config["Memory"], 1024 * 1024 * 1024);
    assert!(
        inspected["Config"]["Env"]
            .as_array()
            .unwrap()
            .contains(&json!("GM_ROLE=renter")),
        "{inspected}"
    );

    // The agent says so in its heartbeat (at once: a change of its containers wakes it).
    eventually("the heartbeat never named the container", async || {
        let presence: Value = send_json(client.get(&agent_url).bearer_auth(&provider)).await;
        presence["presence"]["containers"]
            .as_array()
            .is_some_and(|c| {
                c.contains(&json!({"booking_id": booking_id, "state": "running",
                                   "gpus": ["GPU-00000000-0000-0000-0000-000000003060"]}))
            })
    })
    .await;

    // Its logs, for its renter only, read on the machine when asked.
    let logs_url = format!("{api}/bookings/{booking_id}/logs");
    let logs: Value = send_json(client.get(&logs_url).bearer_auth(&renter)).await;
    assert_eq!(logs["source"], "agent", "{logs}");
    assert!(logs["text"].as_str().unwrap().contains("ready"), "{logs}");
    for (token, status) in [(None, 401), (Some(provider.as_str()), 403)] {
        let mut request = client.get(&logs_url);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        assert_eq!(request.send().await.unwrap().status(), status);
    }
    let bad = client
        .get(format!("{logs_url}?tail=0"))
        .bearer_auth(&renter)
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);

    // Its renter enters it over SSH: the command runs in the container (its GPU as dockerd
    // handed it to the container's first process, its host name, its workspace; nothing of the
    // machine), and its exit code comes back.
    let hostname = inspected["Config"]["Hostname"].as_str().unwrap().to_owned();
    let renter_key = root.join("renter");
    let out = gpumarket_ssh(
        root,
        (&demo.base, &renter),
        &booking_id,
        &renter_key,
        "tr '\\0' '\\n' < /proc/1/environ | grep ^NVIDIA_VISIBLE_DEVICES=; cat /etc/hostname; \
             pwd; echo kept > note; test -e /mnt/gm/gpumarket || echo no-machine-binary; exit 7",
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(7),
        "{said}{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        log()
    );
    for line in [
        "NVIDIA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000003060",
        &hostname,
        "/workspace",
        "no-machine-binary",
    ] {
        assert!(said.lines().any(|l| l == line), "{line:?} not in {said}");
    }
    let (code, kept) = ssh(sshd_port, &renter_key, &account, "cat /workspace/note");
    assert_eq!((code, kept.trim()), (0, "kept"), "{kept}");
    // With a terminal: a login shell on the container's terminal, its exit code kept.
    let mut login = Command::new("ssh")
        .args([
            "-tt",
            "-i",
            renter_key.to_str().unwrap(),
            "-p",
            &sshd_port.to_string(),
        ])
        .args(SSH_OPTIONS)
        .arg(format!("{account}@127.0.0.1"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = login.stdin.take().unwrap();
        stdin
            .write_all(b"tty && echo answer=$((6*7))\nexit 3\n")
            .unwrap();
    }
    let out = login.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{said}\n{}", log());
    assert!(said.contains("answer=42"), "{said}");
    assert!(
        said.contains("/dev/pts/"),
        "no terminal in the container: {said}"
    );
    // Another's key does not log in; the machine's own users do not enter through the socket.
    let (code, said) = ssh(sshd_port, &root.join("stranger"), &account, "true");
    assert_eq!(code, 255, "another's key logged in: {said}");
    let out = crate::gpumarket(root)
        .args(["agent", "enter", "--state-dir"])
        .arg(root.join("state"))
        .env("SSH_ORIGINAL_COMMAND", "true")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(255));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("enters no container"),
        "{out:?}"
    );

    // Cancelled: the login is refused, the container gone within 10 s, with its volume.
    let cancelled = client
        .post(format!("{api}/bookings/{booking_id}/cancel"))
        .bearer_auth(&renter)
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), 200, "{:?}", cancelled.text().await);
    let cancelled_at = std::time::Instant::now();
    eventually("the cancelled booking's container stayed", async || {
        runtime
            .containers()
            .await
            .unwrap()
            .iter()
            .all(|c| c.booking_id != booking_id)
    })
    .await;
    assert!(cancelled_at.elapsed() <= std::time::Duration::from_secs(10));
    let (code, said) = ssh(sshd_port, &renter_key, &account, "true");
    assert_eq!(code, 255, "let in after the cancellation: {said}");
    let volumes = Command::new("docker")
        .args(["-H", &host, "volume", "ls", "-q"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&volumes.stdout).contains(&name_of(&booking_id)));
    let _ = Command::new("docker")
        .args(["-H", &host, "rmi", &tag])
        .output();
}

/// The whole case: two renters each book two GPUs of a four-GPU listing over the same
/// hours, each with the offered image; the machine's agent gives each container two GPUs no
/// other holds (by inspection, and as its heartbeat says); each renter reaches its own
/// container over SSH and sees its two GPUs there, and neither's key enters the other's; the
/// first's container is gone at its end while the second's runs on, and the second's once it
/// is cancelled.
#[tokio::test]
async fn two_renters_on_one_machine_each_get_their_own_gpus() {
    use crate::agent::agent_key;
    use crate::machine::{key_pair, machine_log, ssh, sshd_runs_here};
    use crate::{Demo, SHORT_WINDOWS, free_port, http, send_json};
    use serde_json::json;
    let Some(host) = docker_host() else {
        return;
    };
    if !sshd_runs_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tag = format!("gm-two-{}:busybox", std::process::id());
    import_busybox(&host, &tag);
    let runtime = Runtime::connect(&host).await.unwrap();
    let demo = Demo::start_with(root, SHORT_WINDOWS).await;
    let api = format!("{}/v1", demo.base);
    let client = http();
    let (provider, _) = agent_key(&demo, root).await;
    let listed: Value = send_json(client.get(&demo.listing_url)).await;
    let org = listed["org_id"].as_str().unwrap();
    // A machine of four RTX 3060s offering containers of one image, reached over SSH.
    let sshd_port = free_port();
    let created: Value = send_json(
        client
            .post(format!("{api}/listings"))
            .bearer_auth(&provider)
            .json(&json!({
                "org_id": org, "title": "Four RTX 3060s",
                "hardware": {"gpu_model": "NVIDIA GeForce RTX 3060", "gpu_count": 4, "vram_gb": 12,
                             "cpu_model": "AMD EPYC 7B13", "ram_gb": 64},
                "region": "local", "price": {"amount_per_gpu_hour": 30, "currency": "USD"},
                "engine": {"base_url": format!("http://{}", demo.engine), "model": "bench"},
                "access": {"ssh": {"host": "127.0.0.1", "port": sshd_port, "user": "ubuntu"},
                           "containers": {"images": [tag], "max_cpus_per_gpu": 0.5,
                                          "max_memory_gb_per_gpu": 1}},
            })),
    )
    .await;
    let listing = created["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_owned();
    let minted: Value = send_json(
        client
            .post(format!("{api}/orgs/{org}/api-keys"))
            .bearer_auth(&provider)
            .json(&json!({"name": "four", "scopes": ["agent"], "listing_ids": [listing]})),
    )
    .await;
    let key_file = root.join("four.key");
    std::fs::write(&key_file, minted["key"].as_str().unwrap()).unwrap();
    let bin = root.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let gpus: Vec<String> = (0..4)
        .map(|i| format!("GPU-00000000-0000-0000-0000-00000000306{i}"))
        .collect();
    let lines: String = gpus
        .iter()
        .enumerate()
        .map(|(i, uuid)| {
            format!(
                "{i}, {uuid}, NVIDIA GeForce RTX 3060, 12288, 580.95.05, 00000001:0{i}:00.0, 170.00, 8.6\n"
            )
        })
        .collect();
    std::fs::write(root.join("four.csv"), lines).unwrap();
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = \"--query-gpu=index,uuid,name,memory.total,driver_version,pci.bus_id,power.limit,compute_cap\" ] \
         || {{ echo \"unexpected arguments: $*\"; exit 2; }}\ncat '{}'\n",
        root.join("four.csv").display()
    );
    std::fs::write(bin.join("nvidia-smi"), script).unwrap();
    std::fs::set_permissions(
        bin.join("nvidia-smi"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    // A container of another listing's agent on the same dockerd, which this agent must leave
    // alone.
    let foreign = "0193a1b2-c3d4-7e5f-8a9b-f0f0f0f0f0f0";
    runtime
        .ensure(&spec(foreign, &tag, Vec::new(), "foreign"))
        .await
        .unwrap();
    let _machine = docker_machine(
        root,
        (sshd_port, &host),
        (&demo.base, &listing),
        (&key_file, &provider),
    )
    .await;
    let log = || machine_log(root);
    let agent_url = format!("{api}/listings/{listing}/agent");

    // The first runs to its end a few seconds in; the second for an hour.
    let starts = chrono::Utc::now() + chrono::Duration::seconds(2);
    let first_ends = starts + chrono::Duration::seconds(15);
    let mut bookings = Vec::new();
    for (who, ends) in [
        ("one", first_ends),
        ("two", starts + chrono::Duration::hours(1)),
    ] {
        let renter: Value = send_json(client.post(format!("{api}/auth/register")).json(
            &json!({"email": format!("{who}@example.com"), "password": "a long renter password", "name": who}),
        ))
        .await;
        let renter = renter["access_token"].as_str().unwrap().to_owned();
        let public_key = key_pair(root, who);
        let added = client
            .post(format!("{api}/me/ssh-keys"))
            .bearer_auth(&renter)
            .json(&json!({"name": who, "public_key": public_key}))
            .send()
            .await
            .unwrap();
        assert_eq!(added.status(), 201, "{:?}", added.text().await);
        let booked: Value = send_json(
            client
                .post(format!("{api}/bookings"))
                .bearer_auth(&renter)
                .header("Idempotency-Key", who)
                .json(&json!({
                    "listing_id": listing, "gpu_count": 2,
                    "starts_at": starts, "ends_at": ends,
                    "container": {"image": tag, "command": ["sh", "-c", "exec sleep 600"]},
                })),
        )
        .await;
        let id = booked["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{booked}\n{}", log()))
            .to_owned();
        bookings.push((renter, id));
    }

    // Both run, each holding two GPUs no other holds: by inspection and by the heartbeat.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let held: Vec<Vec<String>> = loop {
        let presence: Value = send_json(client.get(&agent_url).bearer_auth(&provider)).await;
        let reported = presence["presence"]["containers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let running: Vec<Vec<String>> = bookings
            .iter()
            .filter_map(|(_, id)| {
                let c = reported
                    .iter()
                    .find(|c| c["booking_id"] == id.as_str() && c["state"] == "running")?;
                serde_json::from_value(c["gpus"].clone()).ok()
            })
            .collect();
        if running.len() == 2 {
            break running;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not both running: {presence}\n{}",
            log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    };
    assert!(held.iter().all(|g| g.len() == 2), "{held:?}");
    assert!(held[0].iter().all(|g| !held[1].contains(g)), "{held:?}");
    for ((_, id), gpus) in bookings.iter().zip(&held) {
        let inspected = runtime.inspect(id).await.unwrap();
        assert_eq!(
            inspected["HostConfig"]["DeviceRequests"][0]["DeviceIDs"],
            json!(gpus)
        );
        assert!(gpus.iter().all(|g| machine_has(g, &root.join("four.csv"))));
        assert_eq!(
            inspected["Config"]["Labels"]["dev.gpumarket.listing"],
            listing.as_str()
        );
    }
    // Each renter reaches its own container and sees its GPUs there; neither enters the other's.
    for (i, ((renter, id), gpus)) in bookings.iter().zip(&held).enumerate() {
        let access: Value = send_json(
            client
                .get(format!("{api}/bookings/{id}/access"))
                .bearer_auth(renter),
        )
        .await;
        let account = access["ssh"]["user"]
            .as_str()
            .unwrap_or_else(|| panic!("{access}"));
        let own = root.join(["one", "two"][i]);
        let (code, said) = ssh(
            sshd_port,
            &own,
            account,
            "tr '\\0' '\\n' < /proc/1/environ | grep ^NVIDIA_VISIBLE_DEVICES=",
        );
        assert_eq!(
            (code, said.trim()),
            (
                0,
                format!("NVIDIA_VISIBLE_DEVICES={}", gpus.join(",")).as_str()
            ),
            "{}",
            log()
        );
        let other = root.join(["two", "one"][i]);
        let (code, said) = ssh(sshd_port, &other, account, "true");
        assert_eq!(code, 255, "another renter's key entered: {said}");
    }

    // The first's end: its container goes at its `access_until` (within the agent's pass and
    // the stop's grace), the other's stays.
    assert!(
        chrono::Utc::now() < first_ends,
        "the test was too slow to see the first booking before its end"
    );
    tokio::time::sleep(
        (first_ends - chrono::Utc::now())
            .to_std()
            .unwrap_or_default(),
    )
    .await;
    eventually("the container outlived its booking's end", async || {
        let left = runtime.containers().await.unwrap();
        left.iter().all(|c| c.booking_id != bookings[0].1)
            && left
                .iter()
                .any(|c| c.booking_id == bookings[1].1 && c.state == "running")
    })
    .await;
    let volumes = Command::new("docker")
        .args(["-H", &host, "volume", "ls", "-q"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&volumes.stdout).contains(&name_of(&bookings[0].1)));
    // The second's: cancelled, gone too.
    let (renter, id) = &bookings[1];
    let cancelled = client
        .post(format!("{api}/bookings/{id}/cancel"))
        .bearer_auth(renter)
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), 200);
    eventually("a container outlived its booking", async || {
        let left = runtime.containers().await.unwrap();
        bookings
            .iter()
            .all(|(_, id)| left.iter().all(|c| &c.booking_id != id))
    })
    .await;
    assert!(
        runtime
            .containers()
            .await
            .unwrap()
            .iter()
            .any(|c| c.booking_id == foreign && c.state == "running"),
        "the agent touched another listing's container\n{}",
        log()
    );
    runtime.remove(foreign).await.unwrap();
    let _ = Command::new("docker")
        .args(["-H", &host, "rmi", &tag])
        .output();
}

/// Whether the fake `nvidia-smi`'s output at `csv` lists GPU `uuid`.
fn machine_has(uuid: &str, csv: &Path) -> bool {
    std::fs::read_to_string(csv).unwrap().contains(uuid)
}
