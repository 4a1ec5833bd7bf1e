//! A provider's machine for the agent's access tests: the agent and a real sshd in a private
//! mount namespace — `/etc` is a copy (so `useradd` never touches this machine's accounts, and
//! parallel runs never meet), the binary in a root-owned 0755 tmpfs as sshd requires of an
//! `AuthorizedKeysCommand` — and the ssh client's side of logging in to it.

use std::path::Path;

/// Runs `program args`, returning its output; panics when it cannot start.
pub(crate) fn output(program: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

pub(crate) fn not_root() -> bool {
    output("id", &["-u"]).stdout != b"0\n"
}

/// Whether the sshd tests can run here (root, for `useradd` and `unshare -m`, and sshd); says
/// why not when they cannot.
pub(crate) fn sshd_runs_here() -> bool {
    let runs = !not_root() && Path::new("/usr/sbin/sshd").exists();
    if !runs {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "skipped: needs root (useradd, unshare -m) and /usr/sbin/sshd (scripts/check installs openssh-server)"
            );
        }
    }
    runs
}

/// A fresh ed25519 key pair in `dir/name` (and `.pub`); the public half.
pub(crate) fn key_pair(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    let made = output(
        "ssh-keygen",
        &[
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            name,
            "-f",
            path.to_str().unwrap(),
        ],
    );
    assert!(made.status.success(), "{made:?}");
    std::fs::read_to_string(path.with_extension("pub")).unwrap()
}

/// The ssh client's options: keys only, the test's key alone, no host key kept, quiet.
pub(crate) const SSH_OPTIONS: [&str; 10] = [
    "-o",
    "BatchMode=yes",
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "LogLevel=ERROR",
];

/// Logs in to `account` over the test's sshd with `key` and runs `command`: its exit code
/// (255: refused) and output.
pub(crate) fn ssh(port: u16, key: &Path, account: &str, command: &str) -> (i32, String) {
    let out = std::process::Command::new("ssh")
        .args(["-i", key.to_str().unwrap(), "-p", &port.to_string()])
        .args(SSH_OPTIONS)
        .args(["-o", "ConnectTimeout=5"])
        .arg(format!("{account}@127.0.0.1"))
        .arg(command)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// `gpumarket ssh BOOKING -i KEY -- COMMAND` as `token` against the server at `base`, with the
/// test's ssh options; its output.
pub(crate) fn gpumarket_ssh(
    root: &Path,
    (base, token): (&str, &str),
    booking_id: &str,
    key: &Path,
    command: &str,
) -> std::process::Output {
    crate::gpumarket(root)
        .args(["ssh", "--server", base, "--token", token, booking_id, "-i"])
        .arg(key)
        .args(SSH_OPTIONS)
        .args(["--", command])
        .output()
        .unwrap()
}

/// A process group the test started (the agent, or the namespace with sshd and the agent),
/// killed whole when dropped.
pub(crate) struct Machine {
    pub(crate) child: std::process::Child,
}

impl Drop for Machine {
    fn drop(&mut self) {
        // The whole group: the shell, sshd, the agent.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

/// What the machine's agent and sshd said, for a failing assertion.
pub(crate) fn machine_log(root: &Path) -> String {
    format!(
        "--- agent\n{}\n--- sshd\n{}",
        std::fs::read_to_string(root.join("agent.log")).unwrap_or_default(),
        std::fs::read_to_string(root.join("sshd.log")).unwrap_or_default()
    )
}

impl Machine {
    /// `agent run` for `listing` at `base` with `key_file` and `agent_args`, its state in
    /// `root/state`, the tools in `root/bin` first on its `PATH` and no NVML; its log in
    /// `root/agent.log`.
    pub(crate) fn agent(
        root: &Path,
        (base, listing): (&str, &str),
        key_file: &Path,
        agent_args: &[&str],
    ) -> Self {
        use std::os::unix::process::CommandExt;
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_gpumarket"))
            .args(["agent", "run", "--server", base, "--listing", listing])
            .arg("--key-file")
            .arg(key_file)
            .arg("--state-dir")
            .arg(root.join("state"))
            .args(["--nvml-lib", "/nonexistent/libnvidia-ml.so.1"])
            .args(agent_args)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    root.join("bin").display(),
                    std::env::var("PATH").unwrap()
                ),
            )
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(root.join("agent.log")).unwrap())
            .process_group(0)
            .spawn()
            .unwrap();
        Self { child }
    }

    /// sshd on `sshd_port` answering keys from the agent's cache (`AuthorizedKeysCommand`
    /// as `nobody`), and `agent run` for `listing` at `base` with `key_file` and `agent_args`,
    /// its homes, uids and state under `root` (0755: `nobody` reads the keys cache through
    /// it), the tools in `root/bin` first on its `PATH`. Logs in `root/agent.log` and
    /// `root/sshd.log`.
    pub(crate) fn with_sshd(
        root: &Path,
        sshd_port: u16,
        (base, listing): (&str, &str),
        key_file: &Path,
        agent_args: &[&str],
    ) -> Self {
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::process::CommandExt;
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).unwrap();
        key_pair(root, "host_key");
        let uid_min = 300_000 + (std::process::id() % 1000) * 100;
        std::fs::write(
            root.join("agent.toml"),
            format!(
                "[agent]\nagent_end_grace_secs = 2\nagent_uid_min = {uid_min}\nagent_uid_max = {}\n\
                 agent_home_base = \"{}\"\n",
                uid_min + 99,
                root.join("home").display()
            ),
        )
        .unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        let state = root.join("state");
        std::fs::write(
            root.join("sshd_config"),
            format!(
                "Port {sshd_port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {pid}\n\
                 UsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
                 AuthorizedKeysFile none\n\
                 AuthorizedKeysCommand /mnt/gm/gpumarket agent authorized-keys --state-dir {state} %u\n\
                 AuthorizedKeysCommandUser nobody\n",
                host_key = root.join("host_key").display(),
                pid = root.join("sshd.pid").display(),
                state = state.display(),
            ),
        )
        .unwrap();
        let copy = output("cp", &["-a", "/etc", root.join("etc").to_str().unwrap()]);
        assert!(copy.status.success(), "{copy:?}");
        let script = format!(
            "set -e\n\
             mount --bind {etc} /etc\n\
             mkdir -p /mnt/gm /run/sshd\n\
             mount -t tmpfs -o mode=0755 gm /mnt/gm\n\
             cp {binary} /mnt/gm/gpumarket && chmod 0755 /mnt/gm/gpumarket\n\
             /usr/sbin/sshd -D -e -f {config} 2>{root}/sshd.log &\n\
             PATH={bin}:$PATH exec /mnt/gm/gpumarket --config {root}/agent.toml agent run \
               --server {base} --listing {listing} --key-file {key} --state-dir {state} {args} \
               2>{root}/agent.log\n",
            etc = root.join("etc").display(),
            binary = env!("CARGO_BIN_EXE_gpumarket"),
            config = root.join("sshd_config").display(),
            root = root.display(),
            bin = root.join("bin").display(),
            key = key_file.display(),
            state = state.display(),
            args = agent_args.join(" "),
        );
        Self {
            child: std::process::Command::new("unshare")
                .args(["--mount", "--propagation", "private", "sh", "-c", &script])
                .process_group(0)
                .spawn()
                .unwrap(),
        }
    }
}
