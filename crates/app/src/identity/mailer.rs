//! Mail: the confirmation and password-reset links, over SMTP (`smtp_url`; TLS by rustls).
//! A link is a secret: it is never logged, and a failure to send says why without it.

use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::ExposeSecret;

use crate::{AppError, Config};

/// Sends the platform's mail, when an SMTP server is configured.
pub(crate) struct Mailer {
    transport: Option<AsyncSmtpTransport<Tokio1Executor>>,
    from: Mailbox,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL: it may hold a password.
        f.debug_struct("Mailer")
            .field("configured", &self.transport.is_some())
            .finish_non_exhaustive()
    }
}

impl Mailer {
    pub(crate) fn from_config(config: &Config) -> Result<Self, AppError> {
        let transport = config
            .mail
            .smtp_url
            .as_ref()
            .map(|url| {
                AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose_secret())
                    .map(|builder| {
                        builder
                            .timeout(Some(std::time::Duration::from_secs(10)))
                            .build()
                    })
                    // Never the URL in the message: it may hold a password.
                    .map_err(|_| AppError::Config("smtp_url: not a usable SMTP URL".into()))
            })
            .transpose()?;
        let from = config
            .mail
            .smtp_from
            .parse()
            .map_err(|_| AppError::Config("smtp_from: not a mailbox".into()))?;
        Ok(Self { transport, from })
    }

    /// Sends `body` to `to`; without an SMTP server, nothing (and no error: the caller
    /// decides whether mail was needed).
    pub(crate) async fn send(&self, to: &str, subject: &str, body: String) -> Result<(), AppError> {
        let Some(transport) = &self.transport else {
            return Ok(());
        };
        let to: Mailbox = to
            .parse()
            .map_err(|_| AppError::Internal("a stored address is not a mailbox".into()))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .body(body)
            .map_err(|e| AppError::Internal(format!("building a mail: {e}")))?;
        transport.send(message).await.map_err(|e| {
            // The SMTP error names the server's answer, never the message.
            AppError::Unavailable(format!("the mail server did not take the mail: {e}"))
        })?;
        Ok(())
    }
}
