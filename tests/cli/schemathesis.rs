//! The API fuzzed from its own OpenAPI document (`scripts/schemathesis`): an embedded server
//! of the binary under test, every operation called with generated and deliberately invalid
//! input by schemathesis. It runs as a test of the suite, so it runs beside the measuring
//! tests (at idle priority) instead of after them.

use std::path::Path;
use std::process::Command;

use crate::{BIN, stderr};

#[test]
fn the_api_answers_generated_requests_as_its_openapi_document_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(root.join("scripts/schemathesis"))
        .env("GPUMARKET_BIN", BIN)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "schemathesis failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
}
