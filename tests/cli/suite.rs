//! The test suite's own rules (`.config/nextest.toml`): the tests that measure are one list,
//! and every other test runs niced beside them.

use std::path::Path;

fn nextest_config() -> toml::Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".config/nextest.toml");
    std::fs::read_to_string(path).unwrap().parse().unwrap()
}

fn str_of<'a>(table: &'a toml::Value, key: &str) -> Option<&'a str> {
    table.get(key).and_then(toml::Value::as_str)
}

/// The `filter` of each entry of `entries` whose `key` is `value`.
fn filters_where<'a>(entries: &'a toml::Value, key: &str, value: &str) -> Vec<&'a str> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| str_of(entry, key) == Some(value))
        .map(|entry| str_of(entry, "filter").unwrap())
        .collect()
}

/// The measuring tests are named in one override (they run alone), and the niced wrapper's
/// filter is exactly its negation: a test added to the list cannot be left niced, nor one
/// removed left out of both.
#[test]
fn the_niced_tests_are_exactly_those_that_do_not_measure() {
    let config = nextest_config();
    let profile = &config["profile"]["default"];
    let measuring = filters_where(
        &profile["overrides"],
        "threads-required",
        "num-test-threads",
    );
    assert_eq!(measuring.len(), 1, "one override names the measuring tests");
    let niced = filters_where(&profile["scripts"], "run-wrapper", "niced");
    assert_eq!(niced, [format!("not {}", measuring[0])]);
    let command = &config["scripts"]["wrapper"]["niced"]["command"];
    assert_eq!(
        command.as_array().unwrap(),
        &["nice", "-n", "19"].map(toml::Value::from)
    );
}

/// Under nextest this test, which measures nothing, runs at the lowest priority: the wrapper is
/// applied, not silently dropped (an experimental nextest feature). Under `cargo test` nothing
/// is niced and the test only reads its priority.
#[test]
fn a_test_that_does_not_measure_runs_niced_under_nextest() {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command's closing parenthesis; `nice` is the 19th field of the line.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let nice: i32 = fields[19 - 3].parse().unwrap();
    if std::env::var_os("NEXTEST").is_some() {
        assert_eq!(nice, 19, "{stat}");
    }
}
