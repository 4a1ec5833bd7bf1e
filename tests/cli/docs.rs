//! The documentation, held to the code: the book's and the README's tested examples run
//! against a fresh `serve --demo`, and the configuration reference is the generated one
//! (`ARCHITECTURE.md` is held to the code by `architecture.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{BIN, Demo, SHORT_PERIODS, SHORT_WINDOWS, gpumarket, stderr};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The README and every page of the book, in a stable order.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, into: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, into);
            } else if path.extension().is_some_and(|e| e == "md") {
                into.push(path);
            }
        }
    }
    let mut pages = vec![Path::new(ROOT).join("README.md")];
    walk(&Path::new(ROOT).join("docs/src"), &mut pages);
    pages.sort();
    pages
}

/// A page's blocks marked as tested (```` ```sh tested ````), in order.
fn tested_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() == "```sh tested" {
            let block: Vec<&str> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .collect();
            blocks.push(block.join("\n"));
        }
    }
    blocks
}

#[test]
fn tested_blocks_are_found_in_order() {
    let page =
        "a\n```sh tested\necho 1\n```\n```sh\nnot this\n```\n```sh tested\necho 2\necho 3\n```\n";
    assert_eq!(tested_blocks(page), ["echo 1", "echo 2\necho 3"]);
}

/// The README's tested examples against a fresh demo, then the SDKs' examples and what the
/// README says of `serve --demo` on the same demo. They wait for the demo's listing to be
/// verified, so the test measures (it is in the measuring group, `.config/nextest.toml`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_s_tested_examples_run_against_the_demo() {
    the_examples_can_run();
    let readme = Path::new(ROOT).join("README.md");
    let dir = tempfile::tempdir().unwrap();
    let demo = Demo::start_with(dir.path(), SHORT_PERIODS).await;
    run_examples(&readme, &demo, dir.path(), true).await;
    // The SDKs' examples (search by measured speed, book, verify the report's signature), on
    // the same demo: its listing is verified by now.
    the_sdks_examples_run(&demo, dir.path()).await;
    // What the README says of its first command, on the same demo.
    crate::the_demo_verified_its_listing(demo, dir.path()).await;
}

/// The SDKs cannot drift from the document: a document changed without running
/// `scripts/sdks` fails `scripts/sdks --check` (a CI step), which names the command.
#[test]
fn a_document_changed_without_regenerating_the_sdks_fails_their_check() {
    let root = Path::new(ROOT);
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &str| {
        let to = dir.path().join(from);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let status = Command::new("cp")
            .args(["-r"])
            .arg(root.join(from))
            .arg(&to)
            .status()
            .unwrap();
        assert!(status.success(), "copying {from}");
    };
    for path in [
        "scripts/sdks",
        "clients/python",
        "clients/templates",
        "clients/openapi-python-client.yml",
        "clients/typescript/schema.d.ts",
        "clients/typescript/package.json",
    ] {
        copy(path);
    }
    std::os::unix::fs::symlink(
        root.join("clients/typescript/node_modules"),
        dir.path().join("clients/typescript/node_modules"),
    )
    .unwrap();
    let document = std::fs::read_to_string(root.join("openapi/openapi.json")).unwrap();
    std::fs::create_dir_all(dir.path().join("openapi")).unwrap();
    let check = || {
        let python = std::env::var("GPUMARKET_TEST_PYTHON").ok();
        let mut command = Command::new("bash");
        command
            .args(["scripts/sdks", "--check"])
            .current_dir(dir.path());
        // The generator lives beside the tests' Python (GPUMARKET_PYTOOLS/bin).
        if let Some(tools) = python
            .as_deref()
            .and_then(|p| Path::new(p).parent()?.parent())
        {
            command.env("GPUMARKET_PYTOOLS", tools);
        }
        command.output().unwrap()
    };
    std::fs::write(dir.path().join("openapi/openapi.json"), &document).unwrap();
    let same = check();
    assert!(same.status.success(), "{}", stderr(&same));
    let changed = document.replacen(
        "Search listings by hardware",
        "Search the listings by hardware",
        1,
    );
    assert_ne!(changed, document);
    std::fs::write(dir.path().join("openapi/openapi.json"), changed).unwrap();
    let stale = check();
    assert!(!stale.status.success());
    assert!(
        stderr(&stale).contains("run `scripts/sdks`"),
        "{}",
        stderr(&stale)
    );
}

/// The Python SDK's README example (with PyNaCl) and the TypeScript SDK's example (with node),
/// against `demo`, whose listing is verified.
async fn the_sdks_examples_run(demo: &Demo, dir: &Path) {
    let root = Path::new(ROOT);
    let readme = std::fs::read_to_string(root.join("clients/python/README.md")).unwrap();
    let example = readme
        .split("```python\n")
        .find(|block| block.contains("nacl.signing"))
        .and_then(|block| block.split("```").next())
        .expect("the Python SDK's README has its example");
    std::fs::write(dir.join("example.py"), example).unwrap();
    let python = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut python = Command::new(python);
    python
        .arg(dir.join("example.py"))
        .env("PYTHONPATH", root.join("clients/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("BASE", &demo.base);
    let typescript = root.join("clients/typescript");
    assert!(
        typescript.join("node_modules/openapi-fetch").exists(),
        "clients/typescript has no packages: run `scripts/sdks` (or npm ci there) first"
    );
    let mut node = Command::new("node");
    node.arg("example.mjs")
        .current_dir(&typescript)
        .env("BASE", &demo.base);
    for (name, mut command) in [("Python", python), ("TypeScript", node)] {
        let output = tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap();
        let printed = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && printed.contains("signature verified"),
            "the {name} SDK's example failed ({}):\n{printed}\n{}",
            output.status,
            stderr(&output)
        );
    }
}

/// Every book page's tested examples, each page against a fresh demo. None waits for a
/// verdict (the events page follows a run to its end, whatever it measured), so this test runs
/// beside others.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_book_s_tested_examples_run_against_demos() {
    let ran = run_tested_examples(|page| page != Path::new(ROOT).join("README.md"), false).await;
    assert!(ran >= 5, "only {ran} book pages have tested examples");
}

/// Every page `which` picks that has tested examples runs them against a fresh demo (see
/// [`run_examples`]). Returns how many pages ran.
async fn run_tested_examples(which: impl Fn(&Path) -> bool, need_verified: bool) -> usize {
    the_examples_can_run();
    let mut ran = 0;
    for page in pages().into_iter().filter(|p| which(p)) {
        if tested_blocks(&std::fs::read_to_string(&page).unwrap()).is_empty() {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let demo = Demo::start_with(dir.path(), SHORT_WINDOWS).await;
        run_examples(&page, &demo, dir.path(), need_verified).await;
        ran += 1;
    }
    ran
}

/// The tools the examples use are installed.
fn the_examples_can_run() {
    for tool in ["bash", "curl", "jq", "timeout"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(
            found,
            "the book's examples need `{tool}` (Debian: apt-get install {tool})"
        );
    }
}

/// The tested shell blocks of `page`, in order, as one bash script against `demo`: the
/// examples cannot rot. `BASE` is the demo's server, `ENGINE` its simulated engine, and the
/// `gpumarket` under test is first on the `PATH`. With `need_verified`, the examples are
/// stopped (and fail) once the demo's verification has ended without verifying its listing,
/// instead of waiting out their timeout.
async fn run_examples(page: &Path, demo: &Demo, dir: &Path, need_verified: bool) {
    let blocks = tested_blocks(&std::fs::read_to_string(page).unwrap());
    let name = page.strip_prefix(ROOT).unwrap().display().to_string();
    let bin_dir = Path::new(BIN).parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = dir.join("examples.sh");
    std::fs::write(&script, blocks.join("\n")).unwrap();
    let started = std::time::Instant::now();
    let mut bash = Command::new("timeout");
    for (key, _) in std::env::vars() {
        if key.starts_with("GPUMARKET_") || key.starts_with("STRIPE_") {
            bash.env_remove(key);
        }
    }
    let child = bash
        .args(["300", "bash", "-euxo", "pipefail"])
        .arg(&script)
        .current_dir(dir)
        .env("PATH", &path)
        .env("BASE", &demo.base)
        .env("ENGINE", format!("http://{}", demo.engine))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let mut output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap());
    // An example that waits for the demo's listing to be verified would wait out its
    // timeout when the demo's verification ended without verifying it: stop it then.
    let output = loop {
        tokio::select! {
            done = &mut output => break done.unwrap(),
            _ = tokio::time::sleep(std::time::Duration::from_secs(2)) => {
                if need_verified && demo.verification_failed().await {
                    let _ = Command::new("kill").arg(&pid).status();
                }
            }
        }
    };
    // What the demo's listing and its report said, for a failure that waited on them.
    let state = if output.status.success() {
        String::new()
    } else {
        demo.state().await
    };
    assert!(
        output.status.success(),
        "the tested examples of {name} failed ({}) after {:.0?}:\n--- stdout\n{}\n--- stderr (the script traced)\n{}\n--- the demo\n{state}",
        output.status,
        started.elapsed(),
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
}

/// The configuration page is exactly what `gpumarket config --markdown` generates, and the
/// check fails on any difference.
#[test]
fn the_configuration_page_is_the_generated_one() {
    let root = Path::new(ROOT);
    let output = crate::run(gpumarket(root).args(["config", "--markdown", "--check"]));
    assert!(output.status.success(), "{}", stderr(&output));

    let dir = tempfile::tempdir().unwrap();
    let page = std::fs::read_to_string(root.join("docs/src/configuration.md")).unwrap();
    let drifted = dir.path().join("configuration.md");
    std::fs::write(
        &drifted,
        page.replace("Address the API listens on.", "Where."),
    )
    .unwrap();
    let output = crate::run(
        gpumarket(root)
            .args(["config", "--markdown", "--check", "--file"])
            .arg(&drifted),
    );
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("cargo run -- config --markdown >"),
        "{}",
        stderr(&output)
    );
}
