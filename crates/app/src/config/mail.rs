//! `[mail]`: how confirmation and reset links are mailed.

use documented::{Documented, DocumentedFields};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure, redacted};

/// Mail that confirms addresses and resets passwords.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct MailSettings {
    /// The SMTP server that sends confirmation and password-reset links:
    /// `smtps://user:pass@host:465` (TLS), `smtp://user:pass@host:587?tls=required`
    /// (STARTTLS) or `smtp://host:25` (none, for a relay on the same host; a user name or
    /// password over `smtp://` to another host is refused: it would cross the network in
    /// the clear). Unset: no mail is
    /// sent, and `email_verification` defaults to `off`.
    #[serde(serialize_with = "redacted")]
    pub smtp_url: Option<SecretString>,
    /// The `From` of the mail sent.
    pub smtp_from: String,
    /// Confirmation links one address receives an hour at most (at sign-up, and when its
    /// signed-in owner asks for another), so nobody floods a mailbox through the platform;
    /// beyond, they are not sent.
    pub mails_per_address_per_hour: u32,
    /// Password-reset links one address receives an hour at most. Anyone may ask for one, so
    /// they have this budget of their own: a stranger asking for resets never uses up the
    /// mail its owner asks for while signed in.
    pub reset_mails_per_address_per_hour: u32,
}

impl Default for MailSettings {
    fn default() -> Self {
        Self {
            smtp_url: None,
            smtp_from: "gpumarket <no-reply@localhost>".to_owned(),
            mails_per_address_per_hour: 5,
            reset_mails_per_address_per_hour: 5,
        }
    }
}

impl MailSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.smtp_from.parse::<lettre::message::Mailbox>().is_ok(),
            "smtp_from",
            "must be a mailbox, e.g. `gpumarket <no-reply@example.com>`",
        )?;
        ensure(
            self.smtp_url
                .as_ref()
                .is_none_or(|url| !plain_credentials_leave_the_host(url.expose_secret())),
            "smtp_url",
            "credentials for a server on another host need TLS: `smtps://…` or \
             `smtp://…?tls=required`",
        )
    }
}

/// Whether an SMTP URL sends a user name or password in the clear (`smtp://` without
/// `tls=required`) to a host other than this machine's loopback.
fn plain_credentials_leave_the_host(smtp_url: &str) -> bool {
    let Ok(url) = url::Url::parse(smtp_url) else {
        return false;
    };
    let credentials = !url.username().is_empty() || url.password().is_some();
    let tls = url.scheme() == "smtps"
        || url
            .query_pairs()
            .any(|(key, value)| key == "tls" && value == "required");
    // `smtp:` is not a special scheme: its host is kept as written, an address included.
    let loopback = match url.host() {
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost")
                || name
                    .trim_matches(|c| c == '[' || c == ']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    credentials && !tls && !loopback
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_credentials_never_cross_the_network_in_the_clear() {
        for clear in [
            "smtp://user:pass@mail.example.com:587",
            "smtp://user@10.0.0.5:25",
            "smtp://user:pass@mail.example.com:587?tls=opportunistic",
        ] {
            assert!(plain_credentials_leave_the_host(clear), "{clear}");
        }
        for fine in [
            "smtps://user:pass@mail.example.com:465",
            "smtp://user:pass@mail.example.com:587?tls=required",
            "smtp://user:pass@127.0.0.1:25",
            "smtp://user:pass@localhost:25",
            "smtp://user:pass@[::1]:25",
            "smtp://mail.example.com:25",
        ] {
            assert!(!plain_credentials_leave_the_host(fine), "{fine}");
        }
    }
}
