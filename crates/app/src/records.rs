//! Records read by many use cases, below all of them: what a use case looks up before it
//! decides (so two use cases never reach each other just to read a row).

use store::ListingRecord;
use uuid::Uuid;

use crate::{App, AppError};

impl App {
    /// The listing as stored, for the use cases.
    pub(crate) async fn listing_record(&self, id: Uuid) -> Result<ListingRecord, AppError> {
        self.db()
            .listing_by_id(id)
            .await?
            .ok_or(AppError::NotFound("listing"))
    }
}
