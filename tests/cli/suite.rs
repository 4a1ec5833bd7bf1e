//! The test suite's own rules (`.config/nextest.toml`): the tests that measure are one list,
//! run one at a time, and every other test runs beside them at idle priority.

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

/// The measuring tests are named in one override (their group runs one at a time), and the
/// idle wrapper's filter is exactly its negation: a test added to the list cannot be left at
/// idle priority, nor one removed left out of both.
#[test]
fn the_tests_at_idle_priority_are_exactly_those_that_do_not_measure() {
    let config = nextest_config();
    let profile = &config["profile"]["default"];
    assert_eq!(
        config["test-groups"]["measuring"]["max-threads"].as_integer(),
        Some(1)
    );
    let measuring = filters_where(&profile["overrides"], "test-group", "measuring");
    assert_eq!(measuring.len(), 1, "one override names the measuring tests");
    let idle = filters_where(&profile["scripts"], "run-wrapper", "idle");
    assert_eq!(idle, [format!("not {}", measuring[0])]);
    let command = &config["scripts"]["wrapper"]["idle"]["command"];
    assert_eq!(
        command.as_array().unwrap(),
        &["chrt", "--idle", "0"].map(toml::Value::from)
    );
}

/// Under nextest this test, which measures nothing, runs at idle priority (SCHED_IDLE): the
/// wrapper is applied, not silently dropped (an experimental nextest feature). Under `cargo
/// test` nothing is wrapped and the test only reads its policy.
#[test]
fn a_test_that_does_not_measure_runs_at_idle_priority_under_nextest() {
    const SCHED_IDLE: u32 = 5;
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command's closing parenthesis; `policy` is the 41st field of the line.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let policy: u32 = fields[41 - 3].parse().unwrap();
    if std::env::var_os("NEXTEST").is_some() {
        assert_eq!(policy, SCHED_IDLE, "{stat}");
    }
}
