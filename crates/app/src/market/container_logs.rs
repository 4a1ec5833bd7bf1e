//! A booking's container's logs, for its renter while the booking gives access. The machine's
//! agent connects outward only, so the request is a row the desired state names
//! (`logs_wanted`); the agent answers it with what dockerd kept (bounded), and the renter's
//! request waits for that answer a few seconds.

use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{App, AppError, Caller};

/// Lines asked for by default, and at most.
pub const DEFAULT_TAIL: i64 = 200;
pub const MAX_TAIL: i64 = 5000;
/// The most text an agent's answer may carry.
pub const MAX_LOG_BYTES: usize = 256 * 1024;
/// How long a renter's request waits for the agent.
const WAIT: Duration = Duration::from_secs(10);
/// How often it looks whether the answer came.
const LOOK_EVERY: Duration = Duration::from_millis(200);
/// How long a request stays in the desired state unanswered.
const WANTED_SECS: i64 = 60;

/// A container's logs as its machine's agent read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerLogs {
    pub booking_id: Uuid,
    /// Standard output and error, interleaved as written, at most [`MAX_LOG_BYTES`].
    pub text: String,
    pub read_at: DateTime<Utc>,
}

/// A request for logs the machine's agent is to answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LogsWanted {
    pub request_id: Uuid,
    pub booking_id: Uuid,
    pub tail: i32,
}

impl App {
    /// The last `tail` lines of the booking's container, read by its machine's agent now.
    /// The renter only, while the booking gives access; 404 for a booking without a
    /// container; 503 when the agent does not answer within 10 s.
    pub async fn booking_logs(
        &self,
        caller: Caller,
        booking_id: domain::BookingId,
        tail: Option<i64>,
    ) -> Result<ContainerLogs, AppError> {
        let tail = tail.unwrap_or(DEFAULT_TAIL);
        if !(1..=MAX_TAIL).contains(&tail) {
            return Err(domain::ValidationError::new(
                "tail",
                format!("must be between 1 and {MAX_TAIL}"),
            )
            .into());
        }
        let booking = self.booking_record(caller, booking_id.as_uuid()).await?;
        if booking.renter_id != caller.user_id.as_uuid() {
            return Err(AppError::Forbidden(
                "only the booking's renter reads its container's logs".into(),
            ));
        }
        if booking.container.is_none() {
            return Err(AppError::NotFound("container of this booking"));
        }
        let now = Utc::now();
        if !crate::market::access::grants_access(&booking, now) {
            return Err(AppError::BookingNotActive(booking.status.to_string()));
        }
        if !self
            .agent_presence(booking.listing_id)
            .await?
            .is_some_and(|p| p.online)
        {
            return Err(AppError::Unavailable(
                "the machine's agent is not heard: its container's logs cannot be read now".into(),
            ));
        }
        let request = self
            .db()
            .ask_container_logs((booking.id, booking.listing_id), tail as i32, now)
            .await?;
        self.wake_agent(booking.listing_id).await;
        let (db, booking_id) = (self.db(), booking.id);
        let answered = crate::identity::agents::await_answer((WAIT, LOOK_EVERY), || async move {
            Ok(db
                .container_logs(booking_id)
                .await?
                .filter(|answer| answer.request_id == request)
                .and_then(|answer| Some((answer.text?, answer.received_at?))))
        })
        .await?;
        let Some((text, read_at)) = answered else {
            return Err(AppError::Unavailable(
                "the machine's agent did not answer within 10 s; try again".into(),
            ));
        };
        Ok(ContainerLogs {
            booking_id: booking.id,
            text,
            read_at,
        })
    }

    /// The logs requests `listing_id`'s agent is to answer (asked within the last minute).
    pub(crate) async fn logs_wanted(&self, listing_id: Uuid) -> Result<Vec<LogsWanted>, AppError> {
        let since = Utc::now() - chrono::Duration::seconds(WANTED_SECS);
        Ok(self
            .db()
            .container_logs_wanted(listing_id, since)
            .await?
            .into_iter()
            .map(|r| LogsWanted {
                request_id: r.request_id,
                booking_id: r.booking_id,
                tail: r.tail,
            })
            .collect())
    }

    /// A listing's agent answers a logs request: bounded, kept for the waiting renter; 404
    /// when no such request of this listing waits.
    pub async fn agent_container_logs(
        &self,
        caller: Caller,
        listing_id: Uuid,
        (booking_id, request_id): (Uuid, Uuid),
        text: &str,
    ) -> Result<(), AppError> {
        self.require_agent_key(caller, listing_id).await?;
        if text.len() > MAX_LOG_BYTES {
            return Err(domain::ValidationError::new(
                "text",
                format!("at most {MAX_LOG_BYTES} bytes"),
            )
            .into());
        }
        if self
            .db()
            .put_container_logs((listing_id, booking_id), request_id, text, Utc::now())
            .await?
        {
            // The request leaves the desired state.
            self.wake_agent(listing_id).await;
            Ok(())
        } else {
            Err(AppError::NotFound("logs request"))
        }
    }
}
