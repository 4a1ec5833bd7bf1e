//! SSH public keys as an account keeps them, against keys `ssh-keygen` (OpenSSH 9) made and
//! the fingerprints it printed for them (`ssh-keygen -lf`), copied into `data/ssh/`.

use domain::ssh::SshPublicKey;

fn key(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/domain/data/ssh/{name}.pub",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn accepted_keys_are_fingerprinted_as_openssh_prints_them_and_kept_without_comment() {
    for (name, fingerprint) in [
        (
            "ed25519",
            "SHA256:+GdOPhZheVUoyqeXJaju41F73YJP4CW1J1LG+Srwaog",
        ),
        (
            "ecdsa",
            "SHA256:ZG8y1v3lqwjMGkPJ96atL4Kr+kiU3f9K6TRnfzcvKoI",
        ),
        (
            "rsa3072",
            "SHA256:y1ZHz0ck6N15HhD/1BwE5bb5fCTz9uEnLGsMBrG9Jfs",
        ),
    ] {
        let text = key(name);
        let parsed = SshPublicKey::parse(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(parsed.fingerprint, fingerprint, "{name}");
        // The key itself, its comment (`ada@laptop`) dropped.
        let mut fields = text.split_whitespace();
        let (algorithm, body) = (fields.next().unwrap(), fields.next().unwrap());
        assert_eq!(parsed.openssh, format!("{algorithm} {body}"), "{name}");
        // Surrounding whitespace and a trailing newline, as a pasted file has, change nothing.
        assert_eq!(SshPublicKey::parse(&format!("  {text}\n")).unwrap(), parsed);
    }
}

#[test]
fn weak_odd_or_wrong_keys_are_refused_naming_why() {
    let refused = |text: &str| {
        let error = SshPublicKey::parse(text).unwrap_err();
        assert_eq!(error.field, "public_key", "{error:?}");
        error.message
    };
    assert!(refused(&key("rsa2048")).contains("2048 bits"));
    assert!(
        refused(&key("dsa")).contains("ssh-dss"),
        "{}",
        refused(&key("dsa"))
    );
    assert!(refused("").contains("not an OpenSSH public key"));
    assert!(refused("ssh-ed25519 not-base64!").contains("not an OpenSSH public key"));
    let with_options = format!("command=\"/bin/sh\" {}", key("ed25519"));
    assert!(refused(&with_options).contains("not an OpenSSH public key"));
    let two = format!("{}{}", key("ed25519"), key("ecdsa"));
    assert!(refused(&two).contains("one line"));
    assert!(refused("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n").contains("private key"));
    assert!(refused(&"A".repeat(9000)).contains("longer than"));
}
