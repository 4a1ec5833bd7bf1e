//! Accounts: who a person is and the secrets they hold.

use std::fmt;

use crate::{ValidationError, bounded_text};

/// What a link mailed to an address is for; each purpose's links are voided together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkPurpose {
    /// Confirms the address an account signed up with.
    Confirm,
    /// Sets a new password.
    Reset,
}

impl LinkPurpose {
    /// The name stored with the link.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Confirm => "confirm",
            Self::Reset => "reset",
        }
    }
}

/// An email address, trimmed and lower-cased, so that one address is one account.
///
/// The check is deliberately plain (one `@`, a dotted domain, no spaces): deliverability is
/// proven by mail, not by a regular expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub const MAX_LEN: usize = 254;

    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        let email = raw.trim().to_lowercase();
        let invalid = |why: &str| Err(ValidationError::new("email", why));
        if email.is_empty() {
            return invalid("must not be empty");
        }
        if email.len() > Self::MAX_LEN {
            return invalid("must be at most 254 characters");
        }
        let Some((local, domain)) = email.split_once('@') else {
            return invalid("must be an address like name@example.com");
        };
        let domain_ok = domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..");
        if local.is_empty()
            || domain.contains('@')
            || !domain_ok
            || email.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return invalid("must be an address like name@example.com");
        }
        Ok(Self(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A password as typed, before hashing. Its `Debug` never shows it.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub const MIN_LEN: usize = 10;
    /// Argon2 accepts more, but a longer "password" is a denial-of-service vector.
    pub const MAX_LEN: usize = 256;

    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        let len = raw.chars().count();
        if len < Self::MIN_LEN {
            return Err(ValidationError::new(
                "password",
                format!("must be at least {} characters", Self::MIN_LEN),
            ));
        }
        if len > Self::MAX_LEN {
            return Err(ValidationError::new(
                "password",
                format!("must be at most {} characters", Self::MAX_LEN),
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(..)")
    }
}

/// The name a person goes by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayName(String);

impl DisplayName {
    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        bounded_text("name", raw, 1, 100).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The label a user gives an API key so they can tell keys apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyName(String);

impl ApiKeyName {
    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        bounded_text("name", raw, 1, 100).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_is_normalised_and_checked() {
        assert_eq!(
            Email::parse("  Ada@Example.COM ").unwrap().as_str(),
            "ada@example.com"
        );
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.com",
            "ada@example",
            "a da@example.com",
            "ada@@example.com",
            "ada@.example.com",
            "ada@example..com",
        ] {
            let err = Email::parse(bad).unwrap_err();
            assert_eq!(err.field, "email", "{bad:?}");
        }
    }

    #[test]
    fn password_length_is_bounded_and_never_printed() {
        assert_eq!(Password::parse("short").unwrap_err().field, "password");
        assert!(Password::parse(&"x".repeat(257)).is_err());
        let password = Password::parse("correct horse battery").unwrap();
        assert_eq!(format!("{password:?}"), "Password(..)");
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(DisplayName::parse("  Ada ").unwrap().as_str(), "Ada");
        assert_eq!(DisplayName::parse("   ").unwrap_err().field, "name");
        assert!(DisplayName::parse(&"x".repeat(101)).is_err());
        assert!(ApiKeyName::parse("ci\u{7}").is_err());
    }
}
