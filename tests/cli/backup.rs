//! `gpumarket backup` on the demo's SQLite database while it serves writes: the copy passes
//! every check (reports' signatures, the log's leaves against every checkpoint, the ledger,
//! the secrets key's canary), and a copy with a report's payload or a leaf changed behind its
//! back fails its check, naming what broke. `gpumarket restore` restores only a copy that
//! passes, with the key that sealed it, into a new database.

use std::path::Path;
use std::process::Command;

use crate::{gpumarket, run, stderr};

/// Changes `file` (a SQLite database) with Python's sqlite3 (`c`, the connection).
fn tamper(file: &Path, python: &str) {
    let python_bin = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = format!(
        "import sqlite3, json\nc = sqlite3.connect({:?})\n{python}\nc.commit()\n",
        file.display().to_string()
    );
    let output = run(Command::new(python_bin).args(["-c", &script]));
    assert!(output.status.success(), "{}", stderr(&output));
}

/// Checks `file`: the exit code and what it printed.
fn check(dir: &Path, file: &Path) -> (i32, String) {
    let output = run(gpumarket(dir).args(["backup", "--check"]).arg(file));
    (
        output.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            stderr(&output)
        ),
    )
}

/// Backs the demo (serving at `base` from `dir`) up while accounts register, and checks the
/// copy, then copies with planted violations.
pub async fn backup_checks(dir: &Path, base: &str) {
    let copies = tempfile::tempdir().unwrap();
    let backup = copies.path().join("backup.db");
    // Accounts register while the copy is taken (the demo's prober and uptime statements
    // write too); past the sign-up rate limit, a 429 is the server serving all the same.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writes = {
        let (base, stop) = (base.to_owned(), stop.clone());
        tokio::spawn(async move {
            let client = crate::http();
            let mut registered = 0;
            for i in 0.. {
                if stop.load(std::sync::atomic::Ordering::SeqCst) && registered > 0 {
                    return registered;
                }
                let res = client
                    .post(format!("{base}/v1/auth/register"))
                    .json(&serde_json::json!({
                        "email": format!("backup-{i}@example.com"),
                        "password": "correct horse battery",
                        "name": "Backup",
                    }))
                    .send()
                    .await
                    .unwrap();
                match res.status().as_u16() {
                    201 => registered += 1,
                    429 => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
                    other => panic!("registering during the backup: {other}"),
                }
            }
            registered
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let dir_owned = dir.to_owned();
    let out = backup.clone();
    let output = tokio::task::spawn_blocking(move || {
        run(gpumarket(&dir_owned).args(["backup", "--out"]).arg(&out))
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        !writes.is_finished(),
        "the backup was taken while writes went on"
    );
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(writes.await.unwrap() > 0);
    // A backup is written to a new file only.
    let again = run(gpumarket(dir).args(["backup", "--out"]).arg(&backup));
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));

    let (code, said) = check(dir, &backup);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("every check holds"), "{said}");
    let reports: usize = said
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(reports >= 1, "the demo's report is in the copy: {said}");
    let backed_up: u64 = said
        .split("a log of ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no log size: {said}"));

    // A report's payload changed: its signature no longer holds.
    let changed = copies.path().join("changed-report.db");
    std::fs::copy(&backup, &changed).unwrap();
    tamper(
        &changed,
        "(i, e), *_ = c.execute('SELECT id, envelope FROM reports').fetchall()\n\
         e = json.loads(e)\n\
         p = e['payload']\n\
         e['payload'] = p[:-8] + ('A' if p[-8] != 'A' else 'B') + p[-7:]\n\
         c.execute('UPDATE reports SET envelope = ? WHERE id = ?', (json.dumps(e), i))",
    );
    let (code, said) = check(dir, &changed);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("problem: report"), "{said}");
    assert!(said.contains("signature does not verify"), "{said}");

    // The log's first leaf changed: replayed, the leaves no longer give the checkpoints'
    // roots.
    let changed = copies.path().join("changed-log.db");
    std::fs::copy(&backup, &changed).unwrap();
    tamper(
        &changed,
        "c.execute('UPDATE log_entries SET leaf = zeroblob(8) WHERE idx = 0')",
    );
    let (code, said) = check(dir, &changed);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("replayed do not give checkpoint"), "{said}");

    // Restored into a new database, with the key its secrets were sealed with (the tests'):
    // the checks run first; the restored database checks out as the backup did.
    let restored = copies.path().join("restored");
    std::fs::create_dir(&restored).unwrap();
    let url = format!("sqlite://{}/gpumarket.db?mode=rwc", restored.display());
    let restore_into = |url: &str, file: &Path, args: &[&std::ffi::OsStr]| {
        let output = run(gpumarket(dir)
            .env("GPUMARKET_DATABASE_URL", url)
            .arg("restore")
            .arg(file)
            .args(args));
        (
            output.status.code().unwrap_or(-1),
            format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                stderr(&output)
            ),
        )
    };
    let restore = |file: &Path, key: Option<&Path>| match key {
        Some(key) => restore_into(&url, file, &["--secrets-key-file".as_ref(), key.as_ref()]),
        None => restore_into(&url, file, &[]),
    };
    // A key that did not seal it is refused at once, and nothing is written.
    let wrong_key = copies.path().join("wrong.key");
    std::fs::write(&wrong_key, format!("{}\n", "ab".repeat(32))).unwrap();
    let (code, said) = restore(&backup, Some(&wrong_key));
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("does not open the backup's canary"), "{said}");
    assert!(!restored.join("gpumarket.db").exists());
    // A copy that fails its checks is not restored.
    let (code, said) = restore(&changed, None);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("nothing restored"), "{said}");
    assert!(!restored.join("gpumarket.db").exists());
    let (code, said) = restore(&backup, None);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("restored into"), "{said}");
    let (code, said) = check(dir, &restored.join("gpumarket.db"));
    assert_eq!(code, 0, "{said}");
    // Only into a new database.
    let (code, said) = restore(&backup, None);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("exists"), "{said}");

    // The demo's log went on (its uptime statements) and published a newer checkpoint:
    // restored behind it, signing is held (the API test shows the server signs nothing).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let published = loop {
        let note = crate::http_get(format!("{base}/v1/log/checkpoint"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let size: u64 = note.lines().nth(1).and_then(|n| n.parse().ok()).unwrap();
        if size > backed_up {
            break note;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no checkpoint past the backup's {backed_up} leaves: {note}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    };
    let checkpoint = copies.path().join("checkpoint.txt");
    std::fs::write(&checkpoint, &published).unwrap();
    let behind = copies.path().join("behind.db");
    let behind_url = format!("sqlite://{}?mode=rwc", behind.display());
    let (code, said) = restore_into(
        &behind_url,
        &backup,
        &["--checkpoint".as_ref(), checkpoint.as_ref()],
    );
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("signing is held"), "{said}");
    // Accepting a rollback names the checkpoint it is behind.
    let (code, said) = restore_into(&url, &backup, &["--accept-rollback".as_ref()]);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("--checkpoint"), "{said}");

    // What is not a database is a usage error, not a verdict.
    let (code, said) = check(dir, &copies.path().join("missing.db"));
    assert_eq!(code, 2, "{said}");
}
