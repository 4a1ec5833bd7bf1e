//! People's data on request: a person's export of everything held about them, and the
//! erasure of their account (what is kept, and why, is in the book's "People's data").

use chrono::Utc;
use store::{Erasure, PersonRows};

use crate::{App, AppError, Caller, Credential};

impl App {
    /// Everything held about the caller: each table that names a person with the caller's
    /// rows (secrets' digests and payment secrets left out).
    pub async fn export_person(&self, caller: Caller) -> Result<PersonRows, AppError> {
        let caller = caller.person("an account's data is")?;
        self.db()
            .person_rows(caller.user_id)
            .await?
            .filter(|rows| {
                rows.get("users")
                    .and_then(|users| users.first())
                    .is_some_and(|user| user["deleted_at"].is_null())
            })
            .ok_or(AppError::InvalidToken("the account no longer exists"))
    }

    /// Erases the caller's account (a signed-in session only: not an API key): 409
    /// `last_owner` while they are an organisation's only owner, 409 `bookings_not_ended`
    /// while a booking of theirs has not ended. Every session of theirs ends on every
    /// replica; bookings and the ledger keep the account's id, nothing personal.
    pub async fn delete_person(&self, caller: Caller) -> Result<(), AppError> {
        let Credential::AccessToken { .. } = caller.via else {
            return Err(AppError::Forbidden(
                "deleting an account needs a signed-in session, not an API key".to_owned(),
            ));
        };
        match self.db().erase_person(caller.user_id, Utc::now()).await? {
            Erasure::Erased { sessions } => {
                self.sessions_ended(&sessions).await;
                tracing::info!(user_id = %caller.user_id, sessions = sessions.len(), "account erased on its person's request");
                Ok(())
            }
            Erasure::SoleOwner { org } => Err(AppError::SoleOwner(format!(
                "you are the only owner of the organisation {org:?}: make another member an \
                 owner first"
            ))),
            Erasure::BookingsNotEnded { count } => Err(AppError::BookingsNotEnded(format!(
                "{count} of your bookings have not ended: cancel them, or wait for their end"
            ))),
            Erasure::Unknown => Err(AppError::InvalidToken("the account no longer exists")),
        }
    }
}
