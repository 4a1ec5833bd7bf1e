//! Entering a booking's container over SSH. The renter logs in to the machine's own sshd as the
//! booking's *entry account*, whose every key line forces `gpumarket agent enter` (no shell on
//! the machine, no forwarding: see [`crate::keys`]). That command, running as the entry account,
//! cannot reach dockerd (whose socket is root's: reaching it is root); it asks the agent over
//! the agent's socket beside its state directory (`<state-dir>.enter`, which anyone may
//! connect to). The agent learns who is asking from the kernel (`SO_PEERCRED`), not from
//! anything the caller says: only the uid of an entry account it made, while its booking gives
//! access, enters — and only that booking's container. It runs the login's command (or a login
//! shell) there through the Docker Engine API (`exec`, a terminal when the login has one) and
//! relays it both ways until it exits; at `access_until` the session ends.
//!
//! Why not an sshd inside the container: the images renters bring have none, the container has
//! no network of its own (no bridge address on the provider's network), and keys, expiry and
//! the end of access are already enforced by the machine's sshd and the agent's keys cache.
//!
//! The socket speaks frames of `[kind: u8][length: u32 big-endian][bytes]` after one JSON line
//! (the [`EnterRequest`]). From the login: `DATA` (its input), `EOF` (input closed), `RESIZE`
//! (rows and columns, two `u16`). From the agent: `STDOUT`, `STDERR`, `EXIT` (the exit code, an
//! `i32`), `ERROR` (why it cannot enter; the end).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest frame either side sends or accepts.
pub const MAX_FRAME: usize = 1 << 20;
/// The longest request line (a login's command is at most this long).
const MAX_REQUEST: usize = 64 * 1024;
/// How long the agent waits for a login's request line.
const REQUEST_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Frames from the login.
pub const DATA: u8 = 0;
pub const EOF: u8 = 1;
pub const RESIZE: u8 = 2;
/// Frames from the agent.
pub const STDOUT: u8 = 0;
pub const STDERR: u8 = 1;
pub const EXIT: u8 = 2;
pub const ERROR: u8 = 3;

/// What a login asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnterRequest {
    /// The command the renter gave `ssh` (`SSH_ORIGINAL_COMMAND`), run by `/bin/sh -c`; `None`:
    /// a login shell.
    pub command: Option<String>,
    /// Whether the login has a terminal (then so does the command).
    pub tty: bool,
    pub rows: u16,
    pub cols: u16,
    /// The login's `TERM`, given to the command when it has a terminal.
    pub term: Option<String>,
}

impl EnterRequest {
    /// The command run in the container.
    pub fn argv(&self) -> Vec<String> {
        let script = self.command.clone().unwrap_or_else(|| {
            "if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi".into()
        });
        vec!["/bin/sh".into(), "-c".into(), script]
    }

    /// `TERM` for the command: the login's when it is a plain terminal name.
    pub fn term(&self) -> Option<String> {
        let term = self.term.as_deref()?;
        (self.tty
            && !term.is_empty()
            && term.len() <= 64
            && term
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._+".contains(&b)))
        .then(|| format!("TERM={term}"))
    }
}

/// The agent's socket for `state_dir`: its sibling `<name>.enter`.
pub fn enter_socket(state_dir: &Path) -> PathBuf {
    let name = state_dir
        .file_name()
        .map_or_else(|| "gpumarket-agent".into(), |n| n.to_string_lossy());
    state_dir.with_file_name(format!("{name}.enter"))
}

/// Writes one frame.
pub async fn write_frame(
    w: &mut (impl AsyncWrite + Unpin),
    kind: u8,
    payload: &[u8],
) -> std::io::Result<()> {
    for chunk in payload
        .chunks(MAX_FRAME)
        .chain(payload.is_empty().then_some(&[][..]))
    {
        let mut frame = Vec::with_capacity(5 + chunk.len());
        frame.push(kind);
        frame.extend_from_slice(&u32::try_from(chunk.len()).unwrap_or(u32::MAX).to_be_bytes());
        frame.extend_from_slice(chunk);
        w.write_all(&frame).await?;
    }
    w.flush().await
}

/// Reads one frame; `None` when the other side closed between frames.
pub async fn read_frame(
    r: &mut (impl AsyncRead + Unpin),
) -> std::io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head[..1]).await {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    };
    r.read_exact(&mut head[1..]).await?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::other("a frame too large"));
    }
    let mut payload = vec![0; len];
    r.read_exact(&mut payload).await?;
    Ok(Some((head[0], payload)))
}

/// An entry account's booking, and when its access ends by this machine's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub booking_id: String,
    pub until: DateTime<Utc>,
}

/// Who may enter which container now: entry accounts by uid, kept by the agent's loop.
#[derive(Debug, Clone, Default)]
pub struct Entries(Arc<Mutex<HashMap<u32, Entry>>>);

impl Entries {
    pub fn set(&self, entries: HashMap<u32, Entry>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = entries;
    }

    /// The booking `uid` enters, while its access lasts.
    pub fn of(&self, uid: u32, now: DateTime<Utc>) -> Option<Entry> {
        let entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(&uid).filter(|e| now < e.until).cloned()
    }
}

/// Listens on `socket` for ever, entering each caller that is an entry account into its
/// booking's container through dockerd at `docker_host`.
pub async fn serve(socket: PathBuf, entries: Entries, docker_host: String) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::remove_file(&socket) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("{}: {e}", socket.display()));
        }
        _ => {}
    }
    let listener = tokio::net::UnixListener::bind(&socket)
        .map_err(|e| format!("{}: {e}", socket.display()))?;
    // Anyone may connect: who enters is decided by the caller's uid alone.
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666))
        .map_err(|e| format!("{}: {e}", socket.display()))?;
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let (entries, docker_host) = (entries.clone(), docker_host.clone());
        tokio::spawn(async move {
            if let Err(e) = session(stream, &entries, &docker_host).await {
                tracing::warn!(error = %e, "an entry session ended badly");
            }
        });
    }
}

/// Reads the request line, at most [`MAX_REQUEST`] bytes.
async fn read_request(r: &mut (impl AsyncRead + Unpin)) -> Result<EnterRequest, String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        r.read_exact(&mut byte).await.map_err(|e| e.to_string())?;
        if byte[0] == b'\n' {
            break;
        }
        line.push(byte[0]);
        if line.len() > MAX_REQUEST {
            return Err("a request too long".into());
        }
    }
    serde_json::from_slice(&line).map_err(|e| format!("a request that is not one: {e}"))
}

/// One login: who it is, then its command in its booking's container, relayed.
async fn session(
    stream: tokio::net::UnixStream,
    entries: &Entries,
    docker_host: &str,
) -> Result<(), String> {
    let uid = stream.peer_cred().map_err(|e| e.to_string())?.uid();
    let (mut from_login, mut to_login) = stream.into_split();
    let refuse = async |to_login: &mut tokio::net::unix::OwnedWriteHalf, why: &str| {
        let _ = write_frame(to_login, ERROR, why.as_bytes()).await;
        let _ = to_login.shutdown().await;
        Err::<(), String>(format!("uid {uid}: {why}"))
    };
    let Some(entry) = entries.of(uid, Utc::now()) else {
        return refuse(&mut to_login, "this account enters no container now").await;
    };
    // The login's side sends its request at once; one that does not is not waited for.
    let request = match tokio::time::timeout(REQUEST_WAIT, read_request(&mut from_login)).await {
        Ok(Ok(request)) => request,
        Ok(Err(e)) => return refuse(&mut to_login, &e).await,
        Err(_) => return refuse(&mut to_login, "no request within 10 s").await,
    };
    let runtime = match crate::containers::Runtime::connect(docker_host).await {
        Ok(runtime) => runtime,
        Err(e) => return refuse(&mut to_login, &e.to_string()).await,
    };
    let attached = match runtime
        .attach(
            &entry.booking_id,
            request.argv(),
            (request.tty, request.term(), (request.rows, request.cols)),
        )
        .await
    {
        Ok(attached) => attached,
        Err(e) => {
            let why = format!("the booking's container cannot be entered: {e}");
            return refuse(&mut to_login, &why).await;
        }
    };
    tracing::info!(
        uid,
        booking = entry.booking_id,
        tty = request.tty,
        "entered"
    );
    let crate::containers::Attached {
        exec_id,
        mut output,
        mut input,
    } = attached;
    // The login's input and resizes, until it closes.
    let resizer = runtime.clone();
    let id = exec_id.clone();
    let inbound = async move {
        while let Ok(Some((kind, payload))) = read_frame(&mut from_login).await {
            match kind {
                DATA if input.write_all(&payload).await.is_ok() => {
                    let _ = input.flush().await;
                }
                EOF => {
                    let _ = input.shutdown().await;
                }
                RESIZE if payload.len() == 4 => {
                    let rows = u16::from_be_bytes([payload[0], payload[1]]);
                    let cols = u16::from_be_bytes([payload[2], payload[3]]);
                    let _ = resizer.resize(&id, rows, cols).await;
                }
                _ => {}
            }
        }
    };
    // The command's output, then its exit code.
    let outbound = async {
        use futures_util::StreamExt;
        while let Some(chunk) = output.next().await {
            let (kind, bytes) = match chunk {
                Ok(bollard::container::LogOutput::StdErr { message }) => (STDERR, message),
                Ok(other) => (STDOUT, other.into_bytes()),
                Err(e) => return Err(e.to_string()),
            };
            write_frame(&mut to_login, kind, &bytes)
                .await
                .map_err(|e| e.to_string())?;
        }
        let code = runtime.exit_code(&exec_id).await.unwrap_or(-1);
        let code = i32::try_from(code).unwrap_or(-1);
        write_frame(&mut to_login, EXIT, &code.to_be_bytes())
            .await
            .map_err(|e| e.to_string())
    };
    let ends = tokio::time::sleep((entry.until - Utc::now()).to_std().unwrap_or_default());
    // The login gone (its socket closed) or access over: the session ends (the container's
    // command loses its input; at `access_until` the container goes too).
    tokio::select! {
        () = inbound => Ok(()),
        done = outbound => done,
        () = ends => Err("access ended".into()),
    }
}

/// The login's terminal, put in raw mode while the container's terminal does the work (so
/// nothing is echoed or edited twice), and restored when dropped.
struct RawTerminal {
    saved: rustix::termios::Termios,
}

impl RawTerminal {
    fn enter() -> Option<Self> {
        let stdin = std::io::stdin();
        let saved = rustix::termios::tcgetattr(&stdin).ok()?;
        let mut raw = saved.clone();
        raw.make_raw();
        rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Now, &raw).ok()?;
        Some(Self { saved })
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        let _ = rustix::termios::tcsetattr(
            std::io::stdin(),
            rustix::termios::OptionalActions::Now,
            &self.saved,
        );
    }
}

/// The login's terminal size (rows, columns); zeros without one.
fn window_size() -> (u16, u16) {
    rustix::termios::tcgetwinsize(std::io::stdin()).map_or((0, 0), |w| (w.ws_row, w.ws_col))
}

/// `gpumarket agent enter`: the forced command of an entry account's logins. Asks the agent at
/// `socket` to run the login's command (`SSH_ORIGINAL_COMMAND`, else a login shell) in the
/// booking's container and relays it; the command's exit code (255 when it could not enter).
pub async fn enter(socket: &Path) -> i32 {
    let tty = rustix::termios::isatty(std::io::stdin());
    let (rows, cols) = if tty { window_size() } else { (0, 0) };
    let request = EnterRequest {
        command: std::env::var("SSH_ORIGINAL_COMMAND").ok(),
        tty,
        rows,
        cols,
        term: std::env::var("TERM").ok(),
    };
    let stream = match tokio::net::UnixStream::connect(socket).await {
        Ok(stream) => stream,
        Err(e) => {
            say_error(&format!("the machine's agent does not answer ({e})"));
            return 255;
        }
    };
    let (mut from_agent, mut to_agent) = stream.into_split();
    let mut line = serde_json::to_vec(&request).unwrap_or_default();
    line.push(b'\n');
    // A refusal may close the socket before the request is read: its reason is read below.
    let _ = to_agent.write_all(&line).await;
    let _raw = tty.then(RawTerminal::enter);
    // The login's input and terminal size, through one writer.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<(u8, Vec<u8>)>(16);
    let writer = tokio::spawn(async move {
        while let Some((kind, payload)) = rx.recv().await {
            if write_frame(&mut to_agent, kind, &payload).await.is_err() {
                break;
            }
        }
        // Held open until the command exits: the agent takes a closed socket for a login
        // that is gone.
        std::future::pending::<()>().await;
        drop(to_agent);
    });
    let input = tx.clone();
    tokio::spawn(async move {
        let mut stdin = tokio::io::stdin();
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            match stdin.read(&mut buffer).await {
                Ok(0) | Err(_) => {
                    let _ = input.send((EOF, Vec::new())).await;
                    break;
                }
                Ok(n) => {
                    if input.send((DATA, buffer[..n].to_vec())).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    if tty
        && let Ok(mut resized) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::window_change())
    {
        let resizes = tx.clone();
        tokio::spawn(async move {
            while resized.recv().await.is_some() {
                let (rows, cols) = window_size();
                let mut size = rows.to_be_bytes().to_vec();
                size.extend_from_slice(&cols.to_be_bytes());
                if resizes.send((RESIZE, size)).await.is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let mut stdout = tokio::io::stdout();
    let mut stderr = tokio::io::stderr();
    let code = loop {
        match read_frame(&mut from_agent).await {
            Ok(Some((STDOUT, bytes))) => {
                let _ = stdout.write_all(&bytes).await;
                let _ = stdout.flush().await;
            }
            Ok(Some((STDERR, bytes))) => {
                let _ = stderr.write_all(&bytes).await;
                let _ = stderr.flush().await;
            }
            Ok(Some((EXIT, bytes))) if bytes.len() == 4 => {
                break i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            }
            Ok(Some((ERROR, bytes))) => {
                drop(_raw);
                say_error(&String::from_utf8_lossy(&bytes));
                return 255;
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => {
                drop(_raw);
                say_error("the session ended (the booking's access is over, or the agent stopped)");
                return 255;
            }
        }
    };
    writer.abort();
    code
}

/// A line on stderr, never a panic when no one reads it.
fn say_error(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "gpumarket: {text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn frames_carry_their_kind_and_bytes_and_refuse_what_is_too_large() {
        let (mut a, mut b) = tokio::io::duplex(4 * MAX_FRAME);
        write_frame(&mut a, DATA, b"hello").await.unwrap();
        write_frame(&mut a, EOF, b"").await.unwrap();
        let big = vec![7u8; MAX_FRAME + 3];
        write_frame(&mut a, STDOUT, &big).await.unwrap();
        assert_eq!(
            read_frame(&mut b).await.unwrap(),
            Some((DATA, b"hello".to_vec()))
        );
        assert_eq!(read_frame(&mut b).await.unwrap(), Some((EOF, Vec::new())));
        // Split into frames no larger than the largest.
        assert_eq!(
            read_frame(&mut b).await.unwrap().unwrap().1.len(),
            MAX_FRAME
        );
        assert_eq!(read_frame(&mut b).await.unwrap().unwrap().1.len(), 3);
        // A length beyond the largest is refused, not allocated.
        a.write_all(&[DATA, 0xff, 0xff, 0xff, 0xff]).await.unwrap();
        assert!(read_frame(&mut b).await.is_err());
        drop(a);
        let (a, mut b) = tokio::io::duplex(64);
        drop(a);
        assert_eq!(read_frame(&mut b).await.unwrap(), None);
    }

    #[test]
    fn a_login_runs_its_command_or_a_login_shell_and_passes_only_a_plain_term() {
        let mut request = EnterRequest {
            command: Some("nvidia-smi -L".into()),
            tty: false,
            rows: 0,
            cols: 0,
            term: Some("xterm-256color".into()),
        };
        assert_eq!(request.argv(), ["/bin/sh", "-c", "nvidia-smi -L"]);
        assert_eq!(request.term(), None, "no terminal: no TERM");
        request.tty = true;
        assert_eq!(request.term().as_deref(), Some("TERM=xterm-256color"));
        request.term = Some("xterm\nLD_PRELOAD=/x".into());
        assert_eq!(request.term(), None);
        request.command = None;
        assert!(request.argv()[2].contains("exec sh -l"));
        assert_eq!(
            enter_socket(Path::new("/var/lib/gpumarket-agent")),
            Path::new("/var/lib/gpumarket-agent.enter")
        );
    }
}
